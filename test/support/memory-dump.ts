import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { CoreDeps } from '../../src/core/ports/deps.js';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { MEMORY_DIR } from './paths.js';

interface Inside {
  kv?: unknown;
}
interface MemoryInside {
  records: Map<string, { data: string }>;
  sets: Map<string, Map<string, number>>;
}

/**
 * Writes what a gateway's embedded store holds (every record's key and data, every queue's and index's
 * members) under test-artifacts/memory-store, so that the card-data scan after the suite (test/scan) reads
 * the records of the tests that run on the embedded store as it reads Redis's files. Test support only: it
 * reads the adapter's own maps.
 */
export function dumpMemoryStore(deps: CoreDeps, name: string): void {
  const kv = (deps.store as Inside).kv;
  if (!(kv instanceof MemoryKv)) return;
  const inside = kv as unknown as MemoryInside;
  const lines: string[] = [];
  for (const [key, entry] of inside.records) lines.push(`${key}\t${entry.data}`);
  for (const [key, set] of inside.sets) for (const member of set.keys()) lines.push(`${key}\t${member}`);
  mkdirSync(MEMORY_DIR, { recursive: true });
  writeFileSync(join(MEMORY_DIR, `${name}-${randomBytes(4).toString('hex')}.tsv`), lines.join('\n'));
}

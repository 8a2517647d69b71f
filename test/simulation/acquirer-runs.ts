import { MemoryKv } from '../../src/store/memory-kv.js';
import { simulate, type RunResult } from './simulate.js';
import type { SimAcquirer } from './world.js';

/** A stub started for one run: what the run routes to, how many payments the stub made, and its stop. */
export interface RunStub {
  acquirer: SimAcquirer;
  /** the payments (intents, PSP payments) the stub made */
  charges(): number;
  /** the disputes the acquirer opened and decided (a stub that plays disputes) */
  disputes?(): { opened: number; decided: number };
  stop(): Promise<void>;
}

export interface AcquirerRuns {
  results: RunResult[];
  /** the stubs' payments over all runs: the runs went to the acquirer, not all stayed on the sandbox */
  charges: number;
  /** the stubs' disputes over all runs, opened and decided */
  disputes: { opened: number; decided: number };
  faults: number;
  /** the failed seeds, the first two with their violations and traces */
  failed: RunResult[];
  shown: string;
}

/**
 * Seeds 1..`seeds` of the fault simulation on the in-memory store, eight at a time, each against a stub of its
 * own (the runs' counting ids repeat from seed to seed, so an acquirer's records must not be shared).
 */
export async function acquirerRuns(seeds: number, start: () => Promise<RunStub>): Promise<AcquirerRuns> {
  const results: RunResult[] = [];
  let charges = 0;
  const disputes = { opened: 0, decided: 0 };
  let next = 1;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next <= seeds) {
        const seed = next++;
        const stub = await start();
        try {
          results.push(await simulate(seed, new MemoryKv(), { steps: 24, badWrites: false, lostCommits: false, acquirer: stub.acquirer }));
          charges += stub.charges();
          const d = stub.disputes?.();
          disputes.opened += d?.opened ?? 0;
          disputes.decided += d?.decided ?? 0;
        } finally {
          await stub.stop();
        }
      }
    }),
  );
  const failed = results.filter((r) => r.violations.length > 0);
  const shown = failed
    .slice(0, 2)
    .map((r) => [`seed ${r.seed}`, ...r.violations.map((v) => `  ! ${v}`), ...r.trace.map((t) => `  ${t}`)].join('\n'))
    .join('\n\n');
  return { results, charges, disputes, faults: results.reduce((n, r) => n + r.faults.length, 0), failed, shown };
}

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, startOptions } from '../../bench/lib.js';

/** The node command of the Dockerfile's last exec-form CMD. */
function dockerCommand(): string[] {
  const cmds = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => /^CMD \[/.test(l));
  return JSON.parse(cmds[cmds.length - 1]!.slice('CMD '.length)) as string[];
}

describe('the node options the gateway starts with', () => {
  it('when npm start, the Docker image and the bench start the gateway, then all three give node the same options', () => {
    const options = startOptions(ROOT);
    // a young generation of 64 MB halves, from the start (docs/performance.md, Memory and garbage collection)
    expect(options).toEqual(expect.arrayContaining(['--min-semi-space-size=64', '--max-semi-space-size=64']));
    expect(dockerCommand()).toEqual(['node', ...options, 'dist/main.js']);
  });

  it('when a checkout starts the gateway otherwise than node [options] dist/main.js, then the bench says so', () => {
    const root = mkdtempSync(join(tmpdir(), 'gw-start-'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { start: 'tsx src/main.ts' } }));
    expect(() => startOptions(root)).toThrow(/start is not "node \[options\] dist\/main.js": tsx src\/main.ts/);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { start: 'node dist/main.js' } }));
    expect(startOptions(root)).toEqual([]);
  });
});

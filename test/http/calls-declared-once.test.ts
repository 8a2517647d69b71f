import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALLS } from '../../src/http/calls/index.js';

/** Every source file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('one declaration per merchant call (docs/architecture.md "Adding a call")', () => {
  const files = sources('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));

  it.each(CALLS.map((c) => [c.path]))('when the source is read, then %s is written as a string in one file only', (path) => {
    // a quoted path, or one ending a template's text: `'/v1/capture'`, `"/v1/capture"`, `${base}/v1/capture`
    const pattern = new RegExp(`['"\`}]${path.replace(/\//g, '\\/')}['"\`]`);
    const holders = files.filter((f) => pattern.test(f.text)).map((f) => f.path);
    expect(holders).toEqual([expect.stringMatching(/^src\/http\/calls\/[a-z-]+\.ts$/)]);
  });

  it('when the calls are listed, then each path and operationId is declared once', () => {
    expect(new Set(CALLS.map((c) => c.path)).size).toBe(CALLS.length);
    expect(new Set(CALLS.map((c) => c.operationId)).size).toBe(CALLS.length);
  });
});

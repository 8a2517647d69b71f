import { afterEach, beforeAll } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../../../../test/support/gateway.js';

/** The repository's root, where `npx tsc -p packages/sdk/tsconfig.json` builds the package. */
export const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
/** The CLI as built (`gateway-sdk`). */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** Runs a program to its end: its stdout and stderr, or a rejection carrying its exit code and output. */
export const run = promisify(execFile);
/** The test account's credentials as the CLI takes them. */
export const ACCOUNT_FLAGS = ['--merchant', MERCHANT_ID, '--account', ACCOUNT_ID, '--key', SIGN_KEY];

/**
 * Builds the package before the file's tests: `fresh` always (a dist built before a command was added would not
 * know it), otherwise only when no build is there (npm test builds it first, in pretest).
 */
export function builtCli(fresh: boolean): void {
  beforeAll(() => {
    if (fresh || !existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'packages/sdk/tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
  });
}

/** Steps run after each test, in the order added: servers stopped, gateways closed. */
export function cleanupAfterEach(): (() => Promise<void> | void)[] {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });
  return cleanup;
}

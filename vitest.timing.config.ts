import { defineConfig } from 'vitest/config';

/**
 * Runs after the suite, one file at a time, before the card-data scan: tests that measure how long other
 * requests wait while an attack or a long job runs, on a machine the rest of the suite no longer loads
 * (their bounds are generous, but a machine busy with a dozen other test files leaves a process without a
 * core for hundreds of milliseconds). No global setup: the suite's artifacts stay for the scan.
 */
export default defineConfig({
  test: {
    include: ['test/timing/**/*.test.ts'],
    setupFiles: ['test/support/contract/setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * The connectors against the acquirers' own test environments (docs/connectors.md): run only on demand with
 * their keys (`npm run test:live`), never in the suite, which has no network to them.
 */
export default defineConfig({
  test: {
    include: ['test/live/**/*.test.ts'],
    testTimeout: 120_000,
    pool: 'forks',
  },
});

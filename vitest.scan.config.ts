import { defineConfig } from 'vitest/config';

/** Runs after the whole suite: scans what the suite left in Redis files and logs for card data. */
export default defineConfig({
  test: {
    include: ['test/scan/**/*.test.ts'],
    testTimeout: 60_000,
  },
});

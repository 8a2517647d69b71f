import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/sdk/test/**/*.test.ts'],
    exclude: ['test/scan/**', 'test/timing/**', 'test/live/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // every answer the gateway gives a test is checked against its OpenAPI document (issue 43)
    setupFiles: ['test/support/contract/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/quiet-temporal-runtime.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests share one Postgres database and one Temporal server; files still run in parallel.
    pool: 'forks',
  },
});

import { configDefaults, defineConfig } from 'vitest/config';
import { SlowestFilesReporter } from './test/support/slowest-files-reporter.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/quiet-temporal-runtime.ts'],
    // The default report, then the ten slowest files: where a slower run spent its time.
    reporters: ['default', new SlowestFilesReporter()],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests share one Postgres database and one Temporal server; files still run in parallel.
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'service', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/fuzz/**'], sequence: { groupOrder: 1 } },
      },
      // The fuzzer loads the service for minutes, so it runs alone after every other file: it must not slow their
      // timing-sensitive checks, nor they its budget. (With one worker, vitest runs group order 0 last, hence 1 and 2.)
      { extends: true, test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], sequence: { groupOrder: 2 } } },
    ],
  },
});

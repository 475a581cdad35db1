import { defineConfig } from 'vitest/config';
import { shareCompiledCode } from './test/support/node-compile-cache.ts';

shareCompiledCode();

/**
 * `npm run test:cluster`: the many-process test (test/cluster/), apart from `npm test`: its own set-up (a database
 * behind PgBouncer, a Temporal dev server) and one file that starts and kills the service's processes.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/cluster/global-setup.ts'],
    setupFiles: ['test/support/quiet-temporal-runtime.ts'],
    include: ['test/cluster/**/*.cluster.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});

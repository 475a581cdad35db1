import { configDefaults, defineConfig } from 'vitest/config';
import { shareCompiledCode } from './test/support/node-compile-cache.ts';
import { SlowestFilesReporter } from './test/support/slowest-files-reporter.ts';

shareCompiledCode();

/**
 * Files whose checks measure time at the scale of a loaded machine's delays (a send's pace within 5 %, a due date
 * seconds away, a relay's wake-up, a rate limit's window): they run one at a time, after the others, with nothing
 * beside them.
 */
export const timingFiles = [
  'test/api/api-rate-limit.test.ts',
  'test/api/artist-link-rate-limit.test.ts',
  'test/api/campaigns-fcm.test.ts',
  'test/api/delivery-retries.test.ts',
  'test/api/ingest-rules.test.ts',
  'test/api/job-events.test.ts',
  'test/outbound/fake-fcm.test.ts',
  'test/persistence/deliver-immediately.test.ts',
  'test/persistence/rate-limiter.test.ts',
  'test/persistence/relay-loop.test.ts',
];

/**
 * Files run side by side. Most of a file's time is spent waiting (for a run to close, a timer, a worker to start), so
 * three at a time fit on 2 cores; vitest's own default (cores − 1) would run one. `--maxWorkers` overrides it.
 */
const filesAtATime = 3;

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // The default report, then the ten slowest files: where a slower run spent its time.
    reporters: ['default', new SlowestFilesReporter()],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests share one Postgres database and one Temporal server, each with accounts and task queues of its own.
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          // The fuzzer (test/fuzz/) is one of them: it works for minutes on a fixed number of examples, whatever the
          // load, so it runs beside the others rather than after them, where its minutes would add to the run.
          exclude: [...configDefaults.exclude, ...timingFiles],
          maxWorkers: filesAtATime,
          sequence: { groupOrder: 1 },
        },
      },
      // (With one worker, vitest runs group order 0 last, hence 1 and 2.)
      { extends: true, test: { name: 'timing', include: timingFiles, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});

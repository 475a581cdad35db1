import { restartFileRuns } from '../domain/files/restart-file-runs.ts';
import type { Logger } from '../logger.ts';
import type { Orm } from '../persistence/orm.ts';
import type { TemporalAccess } from '../temporal/temporal-access.ts';
import type { RunningRelay } from './relay-loop.ts';

export interface FileRunRecoverySettings {
  /** How often the worker looks for files whose processing run was never started. */
  everyMs: number;
  /** A file this old without a run lost its start (the API starts a run within a second of the commit). */
  olderThanMs: number;
}

export const defaultFileRunRecovery: FileRunRecoverySettings = { everyMs: 30_000, olderThanMs: 30_000 };

/**
 * The safety net of file uploads: the API commits a file and then starts its processing run; when that start fails
 * (Temporal down, the API killed in between), the file waits here, and every worker of the bulk queue starts such runs
 * every `everyMs`. Starting is idempotent (one run per file id).
 */
export function startFileRunRecovery(deps: { orm: Orm; temporal: TemporalAccess; logger: Logger }, settings = defaultFileRunRecovery): RunningRelay {
  const log = deps.logger.child({ component: 'file-run-recovery' });
  let running: Promise<void> = Promise.resolve();
  const recover = () => {
    running = running.then(() =>
      restartFileRuns({ em: deps.orm.em.fork(), temporal: deps.temporal, logger: log }, settings.olderThanMs).then(
        (started) => void (started > 0 && log.info({ started }, 'processing runs started for files that had none')),
        (error: unknown) => log.warn({ err: error }, 'recovering file runs failed; the next round retries'),
      ),
    );
  };
  const timer = setInterval(recover, settings.everyMs).unref();
  recover();
  return {
    wake: recover,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

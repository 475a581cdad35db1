import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { startFileRun } from './start-file-run.ts';

/**
 * Starts the processing runs that were never started: files committed `processing` whose start failed after the commit
 * (Temporal out of reach, the API killed in between), older than `olderThanMs` so that a start in flight is left to
 * its caller. Starting is idempotent, so two workers doing this at once start each run once. Answers how many it
 * started (or found started).
 */
export async function restartFileRuns(deps: { em: EntityManager; temporal: TemporalAccess; logger: Logger }, olderThanMs: number, limit = 100): Promise<number> {
  const unstarted = await deps.em.find(
    RecordingFile,
    { status: 'processing', runStartedAt: null, createdAt: { $lt: new Date(Date.now() - olderThanMs) } },
    { orderBy: { createdAt: 'asc' }, limit },
  );
  for (const file of unstarted) await startFileRun(deps, file);
  return unstarted.length;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { startFileProcessing } from '../../temporal/starters/process-file.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';

/**
 * Starts a committed file's processing run and notes that it has one. A start that fails is logged and left to the
 * worker's recovery, which starts every file still without a run (restartFileRuns): the caller's answer stands, as the
 * file is stored and its row committed.
 */
export async function startFileRun(deps: { em: EntityManager; temporal: TemporalAccess; logger: Logger }, file: RecordingFile): Promise<void> {
  try {
    await startFileProcessing(deps.temporal, {
      fileId: file.id,
      accountId: file.accountId,
      appId: file.appId,
      fetch: file.source === 'url',
      label: file.fileName ?? file.sourceUrl ?? file.id,
    });
    await deps.em.nativeUpdate(RecordingFile, { id: file.id, runStartedAt: null }, { runStartedAt: new Date() });
  } catch (error) {
    deps.logger.warn({ err: error, fileId: file.id }, 'processing run not started; the worker’s recovery starts it');
  }
}

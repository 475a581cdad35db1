import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import type { ObjectStorage } from '../../storage/index.ts';

export interface RetentionPolicy {
  /** RECORDING_RETENTION_DAYS: how long a take nobody selected outlives its job, and an upload nothing used. */
  retentionDays: number;
  /** How long a rejected file is kept (a day): long enough to read why. */
  rejectedForHours: number;
}

export interface RetentionOutcome {
  deleted: number;
  /** More files were due than one batch takes: call again. */
  more: boolean;
}

/**
 * Deletes the files that are due as of `asOf`, objects first and then rows, oldest first, at most `batchSize`:
 * - a rejected file, `rejectedForHours` after it was decided;
 * - a take of a job that ended (ACCEPTED or CANCELLED) `retentionDays` ago;
 * - a file that is no job's take (never submitted), `retentionDays` after it came.
 * Only `accountId`'s files when given. Never one that something plays or may play: a message's recording, a stock item's, the take selected by a job that
 * was not cancelled; nor one still processing. Idempotent: a file half deleted (objects gone, row left) goes next time.
 */
export async function deleteExpiredFiles(
  deps: { em: EntityManager; storage: ObjectStorage },
  options: RetentionPolicy & { asOf: Date; batchSize: number; accountId?: string | undefined },
): Promise<RetentionOutcome> {
  const { asOf, batchSize } = options;
  const rejectedBefore = new Date(asOf.getTime() - options.rejectedForHours * 3_600_000);
  const unusedBefore = new Date(asOf.getTime() - options.retentionDays * 86_400_000);
  const due: Array<{ id: string }> = await deps.em.getConnection().execute(
    `select f.id from files f
      where f.status <> 'processing' and (?::uuid is null or f.account_id = ?::uuid)
        and not exists (select 1 from notifications n where n.recording_file_id = f.id)
        and not exists (select 1 from stock s where s.file_id = f.id)
        and not exists (select 1 from jobs j where j.selected_file_id = f.id and j.status <> 'CANCELLED')
        and (
          (f.status = 'rejected' and coalesce(f.processed_at, f.created_at) < ?)
          or (f.submission_id is null and f.created_at < ?)
          or exists (select 1 from jobs j where j.id = f.job_id and j.status in ('ACCEPTED', 'CANCELLED') and j.updated_at < ?)
        )
      order by f.created_at, f.id
      limit ?`,
    [options.accountId ?? null, options.accountId ?? null, rejectedBefore, unusedBefore, unusedBefore, batchSize + 1],
  );
  const batch = due.slice(0, batchSize);
  for (const { id } of batch) {
    const file = await deps.em.findOne(RecordingFile, { id });
    if (!file) continue;
    await deps.storage.delete(file.originalKey);
    if (file.deliveryKey) await deps.storage.delete(file.deliveryKey);
    await deps.em.nativeDelete(RecordingFile, { id });
  }
  return { deleted: batch.length, more: due.length > batchSize };
}

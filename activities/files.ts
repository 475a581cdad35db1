import { Context } from '@temporalio/activity';
import { Semaphore } from 'async-mutex';
import { deleteExpiredFiles, type RetentionOutcome } from '../src/domain/files/delete-expired-files.ts';
import { fetchFileSource, type FetchedSource } from '../src/domain/files/fetch-file-source.ts';
import { processStoredFile, type FileProgress } from '../src/domain/files/process-stored-file.ts';
import { recordFileOutcome } from '../src/domain/files/record-file-outcome.ts';
import type { FileOutcome } from '../workflows/process-file.contract.ts';
import type { ActivityDeps } from './deps.ts';
import { whileHeartbeating } from './heartbeat.ts';

/**
 * Recording files' I/O: fetching a URL, checking and normalising a file (ffmpeg), recording a failure, and the
 * retention sweep. Processing takes a core for seconds, so a worker runs at most `processingSlots` files at once; the
 * others wait their turn heartbeating `{ stage: 'queued' }`.
 */
export function createFileActivities(deps: ActivityDeps) {
  const { storage, media, limits, scratchDir, processingSlots, retention } = deps.files;
  const slots = new Semaphore(processingSlots);
  return {
    async processRecordingFile(input: { fileId: string }): Promise<FileOutcome | null> {
      const { cancellationSignal: signal } = Context.current();
      let progress: FileProgress | { stage: 'queued'; fraction: 0 } = { stage: 'queued', fraction: 0 };
      return whileHeartbeating(
        () =>
          slots.runExclusive(() =>
            processStoredFile({ em: deps.orm.em.fork(), storage, media, limits, scratchDir }, input.fileId, {
              signal,
              onProgress: (step) => (progress = step),
            }),
          ),
        2_000,
        () => progress,
      );
    },

    fetchRecordingSource(input: { fileId: string }): Promise<FetchedSource | FileOutcome | null> {
      const { cancellationSignal: signal } = Context.current();
      return whileHeartbeating(() => fetchFileSource({ em: deps.orm.em.fork(), storage, http: deps.http, limits }, input.fileId, signal));
    },

    /** The run's steps failed for good: the file is rejected with what went wrong (unless it was decided already). */
    rejectRecordingFile(input: { fileId: string; reason: string; detail: string }): Promise<FileOutcome | null> {
      return recordFileOutcome({ em: deps.orm.em.fork(), storage }, input.fileId, { status: 'rejected', reason: input.reason, detail: input.detail.slice(0, 2000) });
    },

    deleteExpiredRecordings(input: { asOf: number; batchSize: number; accountId?: string | undefined }): Promise<RetentionOutcome> {
      const options = { ...retention, asOf: new Date(input.asOf), batchSize: input.batchSize, accountId: input.accountId };
      return whileHeartbeating(() => deleteExpiredFiles({ em: deps.orm.em.fork(), storage }, options));
    },
  };
}

import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../persistence/entities/job.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { Stock } from '../../persistence/entities/stock.ts';
import type { ObjectStorage } from '../../storage/index.ts';
import { resolveArtistLink } from '../artist-links/resolve-artist-link.ts';
import { DomainError, notFound } from '../errors.ts';
import { recordingKeys } from '../files/file-deps.ts';

export interface DeleteTakeDeps {
  em: EntityManager;
  storage: ObjectStorage;
  graceHours: number;
}

/**
 * Deletes a take of the link's job, its objects and its row, while no take is selected. Under the job's row lock, as
 * the job's steps are written (`applyJobAction`): a select that comes first makes this 409 `invalid_state`, one that
 * comes after finds no take (404). The objects go before the row, in the same transaction, so a storage fault leaves
 * the take whole (503) for a retry. A processing run still at work on it finds no row and drops what it made
 * (`recordFileOutcome`).
 *
 * 404 for a file that is no take of this job (another job's take included); 409 `file_in_use` when stock plays it.
 */
export async function deleteArtistTake(deps: DeleteTakeDeps, token: string, fileId: string): Promise<void> {
  const link = await resolveArtistLink(deps, token);
  await deps.em.transactional(async (tx) => {
    const job = await tx.findOneOrFail(Job, { id: link.job.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const file = await tx.findOne(RecordingFile, { id: fileId, jobId: job.id, submissionId: { $ne: null } }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!file) throw notFound('Take');
    if (job.selectedFileId != null) {
      throw new DomainError('invalid_state', `The job is ${job.status}: take ${job.selectedFileId} has been selected, so its takes can no longer be deleted`);
    }
    if ((await tx.count(Stock, { fileId })) > 0) throw new DomainError('file_in_use', `File ${fileId} is played by a stock recording; it cannot be deleted`);
    // The delivery key is the file's own even before a run records it: a run may be writing it now.
    await Promise.all([deps.storage.delete(file.originalKey), deps.storage.delete(recordingKeys(file.accountId, file.id).delivery)]);
    await tx.nativeDelete(RecordingFile, { id: file.id });
  });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { DomainError } from '../errors.ts';

/** At most this many takes a job (issue 41): an artist's link cannot fill storage, nor the account's review, without end. */
export const maxTakesPerJob = 20;

/** How many takes the job has: the files submitted to it, whatever their status. */
export const countJobTakes = (em: EntityManager, jobId: string) => em.count(RecordingFile, { jobId, submissionId: { $ne: null } });

/**
 * 409 `too_many_takes` when the job has its 20 takes already. Checked before an upload is read (cheaply, a hint), and
 * again under the job's row lock as the take is written, where two submissions at once cannot both pass.
 */
export async function requireRoomForTake(em: EntityManager, jobId: string): Promise<void> {
  const takes = await countJobTakes(em, jobId);
  if (takes >= maxTakesPerJob) {
    throw new DomainError('too_many_takes', `The job has ${takes} takes, the most it may have (${maxTakesPerJob}); a take must be deleted before another is submitted`);
  }
}

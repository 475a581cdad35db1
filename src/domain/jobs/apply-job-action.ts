import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { Job } from '../../persistence/entities/job.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { requireReadyFile } from '../files/find-owned-file.ts';
import { playbackOf } from '../files/playback-of.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { mintArtistLink } from '../artist-links/mint-artist-link.ts';
import { DomainError, notFound } from '../errors.ts';
import { loadJobView } from './job-records.ts';
import { requireRoomForTake } from './take-limit.ts';
import { transition } from '../../sandbox-safe/job-transitions.ts';
import type { JobChanges, JobView, RecordingInput } from './job-view.ts';

export type JobActionInput =
  | { action: 'update'; changes: JobChanges }
  | { action: 'execute' }
  | { action: 'submitRecording'; fileId: string; recording: RecordingInput }
  | { action: 'select'; fileId: string }
  | { action: 'accept' }
  | { action: 'cancel' };

/**
 * Applies one lifecycle step to the stored job (and its message), in one transaction under a row lock, after
 * checking the transition against the stored state. The job workflow calls it; a retry with the same transition id
 * finds the step already applied and returns the job as it is.
 *
 * A step that assigns an artist (execute, or an update that changes the artist of an executed job) makes the
 * artist's link in the same transaction, revoking the one before (`secrets` seals its token).
 */
export async function applyJobAction(
  em: EntityManager,
  input: JobActionInput & { jobId: string; transitionId: string },
  secrets: SecretBox,
): Promise<JobView> {
  return em.transactional(async (tx) => {
    const job = await tx.findOne(Job, { id: input.jobId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!job) throw notFound('Job');
    if (job.lastTransitionId === input.transitionId) return loadJobView(tx, job);
    const step = transition(input.action, job.status);
    if (!step.ok) throw new DomainError('invalid_state', step.message);

    switch (input.action) {
      case 'update': {
        const artistBefore = job.artist;
        Object.assign(job, definedOnly(input.changes));
        if (job.dueDate != null && job.artistDueDate != null && job.artistDueDate > job.dueDate) {
          throw new DomainError('validation_failed', 'The job is not valid', [{ path: 'body.artistDueDate', message: 'artistDueDate must not be after dueDate' }]);
        }
        if (job.status !== 'CREATED' && job.artist !== artistBefore) await mintArtistLink(tx, secrets, job);
        break;
      }
      case 'submitRecording':
        await takeFile(tx, job, input.recording.fileId, input.fileId);
        break;
      case 'select': {
        const file = await tx.findOne(RecordingFile, { id: input.fileId, jobId: job.id, submissionId: { $ne: null } });
        if (!file) throw notFound('Recording');
        requireReadyFile(file);
        job.selectedFileId = file.id;
        break;
      }
      case 'accept': {
        const file = await tx.findOneOrFail(RecordingFile, { id: job.selectedFileId! });
        const notification = await tx.findOneOrFail(Notification, { id: job.notificationId });
        notification.status = 'READY';
        Object.assign(notification, playbackOf(file));
        break;
      }
      case 'cancel': {
        const notification = await tx.findOneOrFail(Notification, { id: job.notificationId });
        if (notification.status === 'RECORDING') notification.status = 'DRAFT';
        break;
      }
      case 'execute':
        await mintArtistLink(tx, secrets, job);
        break;
    }
    job.status = step.next;
    job.lastTransitionId = input.transitionId;
    await tx.flush();
    return loadJobView(tx, job);
  });
}

const definedOnly = (changes: JobChanges) => Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));

/**
 * Makes the file a take of the job, named by `submissionId`, the id the job's workflow gave this SUBMITTED step. The
 * file must be of the job's account and app, and no other job's take, nor this job's already, and the job must have room
 * for it (20 takes; the job's row is locked, so two submissions cannot both take the last place). Its status is not
 * checked here: a file submitted while it processed (a URL, an artist's upload) may have been rejected since, and is
 * then a rejected take (the caller refuses a file that was rejected before).
 */
async function takeFile(tx: EntityManager, job: Job, fileId: string, submissionId: string): Promise<void> {
  const file = await tx.findOne(RecordingFile, { id: fileId, accountId: job.accountId, appId: job.appId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!file) throw notFound('File');
  if (file.submissionId != null || (file.jobId != null && file.jobId !== job.id)) throw takenAlready(file);
  await requireRoomForTake(tx, job.id);
  file.jobId = job.id;
  file.submissionId = submissionId;
  file.submittedAt = new Date();
}

/** A file is a take of one job, once. */
export const takenAlready = (file: RecordingFile) =>
  new DomainError('file_in_use', `File ${file.id} is already a take of ${file.jobId === null ? 'a job' : `job ${file.jobId}`}`);

import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { Job } from '../../persistence/entities/job.ts';
import { JobFile } from '../../persistence/entities/job-file.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { mintArtistLink } from '../artist-links/mint-artist-link.ts';
import { DomainError, notFound } from '../errors.ts';
import { loadJobView } from './job-records.ts';
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
        tx.create(JobFile, { id: input.fileId, accountId: job.accountId, jobId: job.id, ...nullsFor(input.recording) });
        break;
      case 'select': {
        const file = await tx.findOne(JobFile, { id: input.fileId, jobId: job.id });
        if (!file) throw notFound('Recording');
        job.selectedFileId = file.id;
        break;
      }
      case 'accept': {
        const file = await tx.findOneOrFail(JobFile, { id: job.selectedFileId! });
        const notification = await tx.findOneOrFail(Notification, { id: job.notificationId });
        notification.status = 'READY';
        notification.recordingUrl = file.url;
        notification.recordingFileId = file.id;
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

const nullsFor = (recording: RecordingInput) => ({
  url: recording.url,
  fileName: recording.fileName ?? null,
  mimeType: recording.mimeType ?? null,
  durationMs: recording.durationMs ?? null,
  sizeBytes: recording.sizeBytes ?? null,
});

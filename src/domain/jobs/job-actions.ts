import {
  acceptJob,
  cancelJob,
  executeJob,
  selectRecording,
  submitRecording,
  updateJob,
} from '../../../workflows/recording-job.contract.ts';
import type { Job } from '../../persistence/entities/job.ts';
import type { RecordingFile } from '../../persistence/entities/recording-file.ts';
import type { AllowList, Resolve } from '../../security/ip-policy.ts';
import { transition } from '../../sandbox-safe/job-transitions.ts';
import { DomainError, notFound } from '../errors.ts';
import { createUrlFile } from '../files/create-url-file.ts';
import type { FileDeps } from '../files/file-deps.ts';
import { findOwnedFile, requireReadyFile } from '../files/find-owned-file.ts';
import { requireAppSegment } from '../segments/require-app-segment.ts';
import { takenAlready } from './apply-job-action.ts';
import { findOwnedJob } from './find-owned-job.ts';
import { requireRoomForTake } from './take-limit.ts';
import { sendJobUpdate, type JobDeps } from './job-workflow-client.ts';
import type { JobChanges, JobView, RecordingView } from './job-view.ts';

/** Every lifecycle step after create: find the account's job, then let its workflow check and apply the step. */

export async function updateRecordingJob(deps: JobDeps, accountId: string, jobId: string, changes: JobChanges & { appId?: string | undefined }): Promise<JobView> {
  const job = await findOwnedJob(deps.em, accountId, jobId);
  const { appId, ...rest } = changes;
  if (appId !== undefined && appId !== job.appId) {
    throw new DomainError('validation_failed', 'A job cannot move to another app', [{ path: 'body.appId', message: 'must be the job’s app' }]);
  }
  await requireAppSegment(deps.em, accountId, job.appId, rest.filterId);
  return sendJobUpdate(deps, job, 'update', (handle) => handle.executeUpdate(updateJob, { args: [rest], updateId: deps.updateId }));
}

export async function executeRecordingJob(deps: JobDeps, accountId: string, jobId: string): Promise<JobView> {
  const job = await findOwnedJob(deps.em, accountId, jobId);
  return sendJobUpdate(deps, job, 'execute', (handle) => handle.executeUpdate(executeJob, { updateId: deps.updateId }));
}

/** A take: a file the service holds (uploaded, or the artist's), or a URL it fetches (kept for compatibility). */
export type TakeInput = { fileId: string } | { url: string; fileName?: string | undefined };

export type SubmitDeps = JobDeps & FileDeps & { outbound: { allow: AllowList; resolve: Resolve } };

/**
 * Submits a take to the job (the SUBMITTED step): a file of the job's app that is no job's take yet, or a URL, which
 * becomes such a file and is fetched. The file may still be processing; select waits for it to be ready.
 */
export async function submitJobRecording(deps: SubmitDeps, accountId: string, jobId: string, take: TakeInput): Promise<RecordingView & { job: JobView }> {
  const job = await findOwnedJob(deps.em, accountId, jobId);
  // Refused here before a URL file is made for a job that takes no takes; the workflow checks again.
  const allowed = transition('submitRecording', job.status);
  if (!allowed.ok) throw new DomainError('invalid_state', allowed.message);
  const file = 'fileId' in take ? await submittableFile(deps, accountId, job, take.fileId) : await urlFile(deps, accountId, job, take);
  const recording = { fileId: file.id, url: file.url, fileName: file.fileName ?? undefined };
  const result = await sendJobUpdate(deps, job, 'submitRecording', (handle) => handle.executeUpdate(submitRecording, { args: [recording], updateId: deps.updateId }));
  const submitted = result.job.recordings.find((candidate) => candidate.fileId === file.id)!;
  return { ...submitted, job: result.job };
}

/**
 * A file the account may submit to the job: its own, of the job's app, not rejected, and no other job's. One that is
 * this job's take already goes on to the workflow, which answers a retry of its submission (the same update id) with
 * the first outcome and refuses any other (`file_in_use`).
 */
async function submittableFile(deps: FileDeps, accountId: string, job: Job, fileId: string): Promise<RecordingFile> {
  const file = await findOwnedFile(deps.em, accountId, fileId);
  if (file.appId !== job.appId) throw notFound('File');
  if (file.jobId != null && file.jobId !== job.id) throw takenAlready(file);
  if (file.status === 'rejected') requireReadyFile(file);
  // A retry of this file's submission goes on to the workflow, which answers it as before even when the job is full.
  if (file.submissionId == null) await requireRoomForTake(deps.em, job.id);
  return file;
}

/** A take given as a URL becomes a file of the job, fetched and checked like an upload; not when the job is full. */
async function urlFile(deps: SubmitDeps, accountId: string, job: Job, take: { url: string; fileName?: string | undefined }): Promise<RecordingFile> {
  await requireRoomForTake(deps.em, job.id);
  return createUrlFile(deps, { accountId, appId: job.appId, jobId: job.id, url: take.url, fileName: take.fileName ?? null, operationId: deps.updateId });
}

/** Select takes a file id; the job is the file's. Only a `ready` take: 409 `file_not_ready`, 422 `file_rejected`. */
export async function selectJobRecording(deps: JobDeps, accountId: string, fileId: string): Promise<JobView> {
  const file = await findOwnedFile(deps.em, accountId, fileId);
  if (file.jobId == null || file.submissionId == null) throw notFound('Recording');
  requireReadyFile(file);
  const job = await findOwnedJob(deps.em, accountId, file.jobId);
  return sendJobUpdate(deps, job, 'select', (handle) => handle.executeUpdate(selectRecording, { args: [{ fileId }], updateId: deps.updateId }));
}

export async function acceptRecordingJob(deps: JobDeps, accountId: string, jobId: string): Promise<JobView> {
  const job = await findOwnedJob(deps.em, accountId, jobId);
  return sendJobUpdate(deps, job, 'accept', (handle) => handle.executeUpdate(acceptJob, { updateId: deps.updateId }));
}

export async function cancelRecordingJob(deps: JobDeps, accountId: string, jobId: string): Promise<JobView> {
  const job = await findOwnedJob(deps.em, accountId, jobId);
  return sendJobUpdate(deps, job, 'cancel', (handle) => handle.executeUpdate(cancelJob, { updateId: deps.updateId }));
}

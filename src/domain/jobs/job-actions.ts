import {
  acceptJob,
  cancelJob,
  executeJob,
  selectRecording,
  submitRecording,
  updateJob,
} from '../../../workflows/recording-job.contract.ts';
import { DomainError } from '../errors.ts';
import { requireAppSegment } from '../segments/require-app-segment.ts';
import { findOwnedJob, findOwnedRecording } from './find-owned-job.ts';
import { sendJobUpdate, type JobDeps } from './job-workflow-client.ts';
import type { JobChanges, JobView, RecordingInput, RecordingView } from './job-view.ts';

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

export async function submitJobRecording(
  deps: JobDeps,
  accountId: string,
  jobId: string,
  recording: RecordingInput,
): Promise<RecordingView & { job: JobView }> {
  const job = await findOwnedJob(deps.em, accountId, jobId);
  const result = await sendJobUpdate(deps, job, 'submitRecording', (handle) => handle.executeUpdate(submitRecording, { args: [recording], updateId: deps.updateId }));
  const file = result.job.recordings.find((candidate) => candidate.fileId === result.fileId)!;
  return { ...file, job: result.job };
}

/** Select takes a file id; the job is the file's. */
export async function selectJobRecording(deps: JobDeps, accountId: string, fileId: string): Promise<JobView> {
  const file = await findOwnedRecording(deps.em, accountId, fileId);
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

import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { EventType } from '../src/domain/events/event-types.ts';
import type { JobChanges, JobFields, JobView, RecordingInput } from '../src/domain/jobs/job-view.ts';
import { AccountId, AppId, EntityId, EntityType, JobStatus } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of a recording job's run, `job:<jobId>`, from create to accept or cancel. Every step is a Workflow
 * Update that answers with the job as stored.
 */
export const recordingJobWorkflowType = 'recordingJob';

/** An outbound event the run has decided on and not yet published. */
export interface PendingJobEvent {
  eventId: string;
  type: EventType;
  result: Record<string, unknown>;
}

/** What a run hands to the next when it continues as new. */
export interface CarriedJobState {
  version: 1;
  job: JobView;
  outbox: PendingJobEvent[];
  artistOverdueSentFor: number | null;
  overdueSentFor: number | null;
}

export interface RecordingJobInput {
  version: 1;
  jobId: string;
  accountId: string;
  appId: string;
  carried?: CarriedJobState | undefined;
  /** Continue as new past this many history events (the server's own suggestion also triggers it). */
  historyLimit?: number | undefined;
}

export type RecordingJobWorkflow = (input: RecordingJobInput) => Promise<JobView | null>;

export interface CreateJobArgs extends JobFields {
  notificationId: string;
}

export const createJob = defineUpdate<JobView, [CreateJobArgs]>('create');
export const updateJob = defineUpdate<JobView, [JobChanges]>('update');
export const executeJob = defineUpdate<JobView, []>('execute');
export const submitRecording = defineUpdate<{ job: JobView; fileId: string }, [RecordingInput]>('submitRecording');
export const selectRecording = defineUpdate<JobView, [{ fileId: string }]>('select');
export const acceptJob = defineUpdate<JobView, []>('accept');
export const cancelJob = defineUpdate<JobView, []>('cancel');
export const jobState = defineQuery<JobView | null>('state');

export const jobWorkflowId = (jobId: string) => `job:${jobId}`;

export const jobSearchAttributes = (job: { jobId: string; accountId: string; appId: string }) => [
  { key: AccountId, value: job.accountId },
  { key: AppId, value: job.appId },
  { key: EntityType, value: 'job' },
  { key: EntityId, value: job.jobId },
  { key: JobStatus, value: 'CREATED' },
];

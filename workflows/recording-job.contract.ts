import type { WithStartWorkflowOperation } from '@temporalio/client';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { EventType } from '../src/domain/events/event-types.ts';
import type { JobChanges, JobFields, JobView, RecordingInput } from '../src/domain/jobs/job-view.ts';
import { AccountId, AppId, EntityId, EntityType, JobStatus } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';

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
export interface CarriedJobStateV1 {
  version: 1;
  job: JobView;
  outbox: PendingJobEvent[];
  artistOverdueSentFor: number | null;
  overdueSentFor: number | null;
}
export type CarriedJobState = CarriedJobStateV1;

/** Runs started before inputs were versioned hold the same fields without `version` (read as version 1). */
export interface RecordingJobInputV1 {
  version: 1;
  jobId: string;
  accountId: string;
  appId: string;
  carried?: CarriedJobState | undefined;
  /** Continue as new past this many history events (the server's own suggestion also triggers it). */
  historyLimit?: number | undefined;
}
export type RecordingJobInput = RecordingJobInputV1;

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

export interface NewRecordingJob {
  jobId: string;
  accountId: string;
  appId: string;
  create: CreateJobArgs;
  /**
   * The create update's id. A retry with the same id joins the first call's run and gets its answer, instead of
   * creating a second job (the API passes the Idempotency-Key).
   */
  updateId?: string | undefined;
  historyLimit?: number | undefined;
}

/**
 * Starts the job's run and sends it `create` in one call (update-with-start), so either both happen or neither.
 * The client's WithStartWorkflowOperation class is passed in: this module is loaded in the workflow sandbox too, so it
 * imports nothing from @temporalio/client at run time.
 */
export function createRecordingJobRun(
  temporal: TemporalAccess,
  Operation: typeof WithStartWorkflowOperation,
  job: NewRecordingJob,
): Promise<JobView> {
  const { create } = job;
  const startWorkflowOperation = new Operation<RecordingJobWorkflow>(recordingJobWorkflowType, {
    workflowId: jobWorkflowId(job.jobId),
    // Job steps are interactive: their runs (and so their activities) go to the interactive queue's own worker.
    taskQueue: temporal.interactiveTaskQueue ?? temporal.taskQueue,
    args: [{ version: 1, jobId: job.jobId, accountId: job.accountId, appId: job.appId, historyLimit: job.historyLimit }],
    workflowIdConflictPolicy: job.updateId ? 'USE_EXISTING' : 'FAIL',
    typedSearchAttributes: jobSearchAttributes(job),
    staticSummary: `Recording job “${create.title}”${create.artist ? ` for ${create.artist}` : ''}`,
    staticDetails: `Message ${create.notificationId} in app ${job.appId}`,
  });
  return temporal.client.workflow.executeUpdateWithStart(createJob, {
    args: [create],
    startWorkflowOperation,
    ...(job.updateId ? { updateId: job.updateId } : {}),
  });
}

/** The job's run, for updates and queries; it follows the workflow id to the latest run after continue-as-new. */
export const recordingJobHandle = (temporal: Pick<TemporalAccess, 'client'>, jobId: string) =>
  temporal.client.workflow.getHandle<RecordingJobWorkflow>(jobWorkflowId(jobId));

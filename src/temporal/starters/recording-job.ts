import { WithStartWorkflowOperation } from '@temporalio/client';
import type { JobView } from '../../domain/jobs/job-view.ts';
import {
  createJob,
  jobSearchAttributes,
  jobWorkflowId,
  recordingJobWorkflowType,
  type CreateJobArgs,
  type RecordingJobWorkflow,
} from '../../../workflows/recording-job.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';

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

/** Starts the job's run and sends it `create` in one call (update-with-start), so either both happen or neither. */
export function createRecordingJobRun(temporal: TemporalAccess, job: NewRecordingJob): Promise<JobView> {
  const { create } = job;
  const startWorkflowOperation = new WithStartWorkflowOperation<RecordingJobWorkflow>(recordingJobWorkflowType, {
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

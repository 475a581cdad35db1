import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import {
  recordingRetentionScheduleId,
  recordingRetentionSearchAttributes,
  recordingRetentionWorkflowId,
  recordingRetentionWorkflowType,
  type RecordingRetentionWorkflow,
} from '../../../workflows/recording-retention.contract.ts';

/**
 * Creates the hourly schedule of the recording retention sweep, or brings an existing one up to date (its queue,
 * its interval), so that every worker start leaves exactly one, as this code describes it. `scheduleId` is for tests.
 */
export async function ensureRecordingRetentionSchedule(client: Client, taskQueue: string, scheduleId = recordingRetentionScheduleId): Promise<'created' | 'updated'> {
  const options = {
    scheduleId,
    spec: { intervals: [{ every: '1 hour' }] },
    action: {
      type: 'startWorkflow',
      workflowType: recordingRetentionWorkflowType,
      workflowId: scheduleId === recordingRetentionScheduleId ? recordingRetentionWorkflowId : scheduleId,
      taskQueue,
      args: [{ version: 1 }] as Parameters<RecordingRetentionWorkflow>,
      typedSearchAttributes: recordingRetentionSearchAttributes,
      staticSummary: 'Recording retention: delete the takes nobody selected, unused uploads and rejected files',
    },
    // A sweep still running when the next is due: the next is skipped, as it would find the same files.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    memo: { description: 'Deletes recording files nothing plays (docs/recordings.md, "Retention")' },
  } satisfies ScheduleOptions;
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: options.policies }));
  return 'updated';
}

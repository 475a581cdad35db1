import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RecordingRetentionInput, RecordingRetentionResult } from './recording-retention.contract.ts';

const { deleteExpiredRecordings } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/** Files per activity, and activities per run: a run's history stays short, and the next run takes the rest. */
const batchSize = 200;
const maxBatches = 50;

/**
 * One retention sweep: deletes the recording files due as of the run's start (its workflow time, which a
 * time-skipping test moves), in batches, until none is left or the run has done its share.
 */
export async function recordingRetention(input: RecordingRetentionInput): Promise<RecordingRetentionResult> {
  const asOf = Date.now();
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const outcome = await deleteExpiredRecordings({ asOf, batchSize, accountId: input.accountId });
    deleted += outcome.deleted;
    if (!outcome.more) return { deleted, more: false };
  }
  return { deleted, more: true };
}

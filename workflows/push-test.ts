import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { PushTestInput, PushTestResult } from './push-test.contract.ts';

const { sendTestPushes } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** A test send, `push-test:<testId>`: the chosen devices' pushes, through the send engine, once each. */
export async function pushTest(input: PushTestInput): Promise<PushTestResult> {
  return sendTestPushes({ notificationId: input.notificationId, sendIds: input.sendIds });
}

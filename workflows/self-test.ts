import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { SelfTestInput, SelfTestResult } from './self-test.contract.ts';

const { readDatabaseClock } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** The smallest round trip through every part: API → Temporal → worker → activity → Postgres. */
export async function selfTest(_input: SelfTestInput): Promise<SelfTestResult> {
  const databaseNow = await readDatabaseClock();
  return { workflowId: workflowInfo().workflowId, databaseNow };
}

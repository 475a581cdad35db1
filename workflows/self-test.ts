import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { readDatabaseClock } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface SelfTestResult {
  workflowId: string;
  databaseNow: string;
}

/** The smallest round trip through every part: API → Temporal → worker → activity → Postgres. */
export async function selfTest(): Promise<SelfTestResult> {
  const databaseNow = await readDatabaseClock();
  return { workflowId: workflowInfo().workflowId, databaseNow };
}

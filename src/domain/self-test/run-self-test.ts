import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { EntityId, EntityType } from '../../temporal/search-attributes.ts';
import { selfTestWorkflowId } from '../../temporal/workflow-ids.ts';
import type { SelfTestResult } from '../../../workflows/self-test.ts';

/** Runs the self-test workflow to completion and returns what the worker read from Postgres. */
export async function runSelfTest(client: Client, taskQueue: string): Promise<SelfTestResult & { runId: string }> {
  const id = randomUUID();
  const handle = await client.workflow.start('selfTest', {
    taskQueue,
    workflowId: selfTestWorkflowId(id),
    workflowExecutionTimeout: '30 seconds',
    typedSearchAttributes: [
      { key: EntityType, value: 'self-test' },
      { key: EntityId, value: id },
    ],
    staticSummary: 'Self-test: API → Temporal → worker → Postgres',
  });
  const result: SelfTestResult = await handle.result();
  return { ...result, runId: handle.firstExecutionRunId };
}

import { selfTestSearchAttributes, selfTestWorkflowId, selfTestWorkflowType, type SelfTestWorkflow } from '../../../workflows/self-test.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';

export function startSelfTest(temporal: TemporalAccess, testId: string) {
  return temporal.client.workflow.start<SelfTestWorkflow>(selfTestWorkflowType, {
    taskQueue: temporal.taskQueue,
    workflowId: selfTestWorkflowId(testId),
    args: [{ version: 1, testId }],
    workflowExecutionTimeout: '30 seconds',
    typedSearchAttributes: selfTestSearchAttributes(testId),
    staticSummary: 'Self-test: API → Temporal → worker → Postgres',
  });
}

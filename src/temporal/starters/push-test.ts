import { pushTestSearchAttributes, pushTestWorkflowId, pushTestWorkflowType, type PushTestInput, type PushTestWorkflow } from '../../../workflows/push-test.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';

/** Starts a test send's run; its id is new for every test send. */
export async function startPushTest(temporal: TemporalAccess, input: PushTestInput): Promise<void> {
  await temporal.client.workflow.start<PushTestWorkflow>(pushTestWorkflowType, {
    workflowId: pushTestWorkflowId(input.testId),
    taskQueue: temporal.taskQueue,
    args: [input],
    typedSearchAttributes: pushTestSearchAttributes(input),
    staticSummary: `Test send to ${input.sendIds.length} device(s)`,
    staticDetails: `App ${input.appId} · message ${input.notificationId}`,
  });
}

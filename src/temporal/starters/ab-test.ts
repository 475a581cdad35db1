import { WithStartWorkflowOperation } from '@temporalio/client';
import {
  abTestSearchAttributes,
  abTestWorkflowId,
  abTestWorkflowType,
  scheduleAbTest,
  type AbTestInput,
  type AbTestRunState,
  type AbTestWorkflow,
} from '../../../workflows/ab-test.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';

/**
 * Schedules the test: starts its run if there is none (update-with-start) and sets playTime; a run that exists (a
 * schedule withdrawn earlier) is scheduled again.
 */
export function scheduleAbTestRun(temporal: TemporalAccess, input: AbTestInput & { name: string }, playTime: number): Promise<AbTestRunState> {
  const { name, ...args } = input;
  const startWorkflowOperation = new WithStartWorkflowOperation<AbTestWorkflow>(abTestWorkflowType, {
    workflowId: abTestWorkflowId(input.testId),
    taskQueue: temporal.taskQueue,
    args: [{ ...args, version: 1 }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: abTestSearchAttributes(input),
    staticSummary: `A/B test “${name}”`,
    staticDetails: `App ${input.appId}`,
  });
  return temporal.client.workflow.executeUpdateWithStart(scheduleAbTest, { args: [{ playTime }], startWorkflowOperation });
}

export const abTestHandle = (temporal: Pick<TemporalAccess, 'client'>, testId: string) =>
  temporal.client.workflow.getHandle<AbTestWorkflow>(abTestWorkflowId(testId));

import {
  cancelExperienceRunsSearchAttributes,
  cancelExperienceRunsWorkflowId,
  cancelExperienceRunsWorkflowType,
  type CancelExperienceRunsInput,
  type CancelExperienceRunsWorkflow,
} from '../../../workflows/cancel-experience-runs.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';
import { startOnce } from './start-once.ts';

/** Starts the run that cancels an archived experience's live runs; archiving twice finds it started already. */
export async function startCancelExperienceRuns(temporal: TemporalAccess, input: CancelExperienceRunsInput): Promise<void> {
  await startOnce(() =>
    temporal.client.workflow.start<CancelExperienceRunsWorkflow>(cancelExperienceRunsWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: cancelExperienceRunsWorkflowId(input.experienceId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: cancelExperienceRunsSearchAttributes(input),
      staticSummary: `Cancel the live runs of archived experience ${input.experienceId}`,
    }),
  );
}

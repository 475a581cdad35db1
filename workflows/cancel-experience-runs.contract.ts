import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { AccountId, EntityId, EntityType, ExperienceId } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';

/**
 * The contract of the run that ends every live run of an archived experience, `experience-archive:<experienceId>`.
 * The API answers the archive at once; this run pages through the live runs and cancels each.
 */
export const cancelExperienceRunsWorkflowType = 'cancelExperienceRuns';

export interface CancelExperienceRunsInputV1 {
  version: 1;
  accountId: string;
  experienceId: string;
  /** Where a continued run picks up: the last run id already handled, and the count so far. */
  carried?: { version: 1; afterRunId: string | null; cancelled: number } | undefined;
}
export type CancelExperienceRunsInput = CancelExperienceRunsInputV1;

export type CancelExperienceRunsWorkflow = (input: CancelExperienceRunsInput) => Promise<{ cancelled: number }>;

export const cancelExperienceRunsWorkflowId = (experienceId: string) => `experience-archive:${experienceId}`;

export async function startCancelExperienceRuns(temporal: TemporalAccess, input: CancelExperienceRunsInput): Promise<void> {
  try {
    await temporal.client.workflow.start<CancelExperienceRunsWorkflow>(cancelExperienceRunsWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: cancelExperienceRunsWorkflowId(input.experienceId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: [
        { key: AccountId, value: input.accountId },
        { key: EntityType, value: 'experience-archive' },
        { key: EntityId, value: input.experienceId },
        { key: ExperienceId, value: input.experienceId },
      ],
      staticSummary: `Cancel the live runs of archived experience ${input.experienceId}`,
    });
  } catch (error) {
    // Archived once: the run that cancels its live runs exists already.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

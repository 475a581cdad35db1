import { AccountId, EntityId, EntityType, ExperienceId } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of the run that ends every live run of an archived experience, `experience-archive:<experienceId>`.
 * The API answers the archive at once; this run pages through the live runs and cancels each.
 */
export const cancelExperienceRunsWorkflowType = 'cancelExperienceRuns';

export interface CancelExperienceRunsInput {
  version: 1;
  accountId: string;
  experienceId: string;
  /** Where a continued run picks up: the last run id already handled, and the count so far. */
  carried?: { version: 1; afterRunId: string | null; cancelled: number } | undefined;
}

export type CancelExperienceRunsWorkflow = (input: CancelExperienceRunsInput) => Promise<{ cancelled: number }>;

export const cancelExperienceRunsWorkflowId = (experienceId: string) => `experience-archive:${experienceId}`;

export const cancelExperienceRunsSearchAttributes = (input: CancelExperienceRunsInput) => [
  { key: AccountId, value: input.accountId },
  { key: EntityType, value: 'experience-archive' },
  { key: EntityId, value: input.experienceId },
  { key: ExperienceId, value: input.experienceId },
];

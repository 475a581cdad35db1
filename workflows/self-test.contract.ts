import { EntityId, EntityType } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';

/**
 * The contract of the self-test run, the smallest round trip through every part (API → Temporal → worker →
 * activity → Postgres). Callers start it through `startSelfTest`, never by its name.
 */
export const selfTestWorkflowType = 'selfTest';

export interface SelfTestInputV1 {
  version: 1;
  testId: string;
}
export type SelfTestInput = SelfTestInputV1;

export interface SelfTestResult {
  workflowId: string;
  databaseNow: string;
}

/** Runs recorded before inputs were versioned carry no input at all. */
export type SelfTestWorkflow = (input?: SelfTestInput) => Promise<SelfTestResult>;

export const selfTestWorkflowId = (testId: string) => `self-test:${testId}`;

export const selfTestSearchAttributes = (testId: string) => [
  { key: EntityType, value: 'self-test' },
  { key: EntityId, value: testId },
];

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

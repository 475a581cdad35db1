import { EntityId, EntityType } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of the self-test run, the smallest round trip through every part (API → Temporal → worker →
 * activity → Postgres). The API starts it through src/temporal/starters/self-test.ts.
 */
export const selfTestWorkflowType = 'selfTest';

export interface SelfTestInput {
  version: 1;
  testId: string;
}

export interface SelfTestResult {
  workflowId: string;
  databaseNow: string;
}

export type SelfTestWorkflow = (input: SelfTestInput) => Promise<SelfTestResult>;

export const selfTestWorkflowId = (testId: string) => `self-test:${testId}`;

export const selfTestSearchAttributes = (testId: string) => [
  { key: EntityType, value: 'self-test' },
  { key: EntityId, value: testId },
];

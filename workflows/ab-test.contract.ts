import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { AbTestState as AbTestStateKey, AccountId, AppId, EntityId, EntityType } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of an A/B test's run, `abtest:<testId>`: it waits for playTime, snapshots the audience, sends A and B,
 * runs for `expiry` minutes, decides, and sends the winner to the rest of the segment. The API schedules it (and
 * moves or withdraws the schedule) and cancels it through updates.
 */
export const abTestWorkflowType = 'abTest';

/** A test's state, as the run reports it and the `AbTestState` search attribute shows it; its row stores the same. */
export type AbTestState = 'NEW' | 'VALIDATED' | 'SCHEDULED' | 'RUNNING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';

export interface AbTestInput {
  version: 1;
  testId: string;
  accountId: string;
  appId: string;
  /** What a run hands to the next when a long wait for playTime continues as new. */
  carried?: { version: 1; playTime: number | null } | undefined;
  /** Continue as new past this many history events (the server's own suggestion also triggers it). */
  historyLimit?: number | undefined;
}

/** What the run knows of itself; live counts of sends and clicks are in Postgres (GET /abtest/get). */
export interface AbTestRunState {
  state: AbTestState;
  playTime: number | null;
  phase: 'waiting' | 'scheduled' | 'sending' | 'running' | 'deciding' | 'sending-winner' | 'ended';
  audience: number | null;
  sent: { A: number; B: number; remainder: number };
  winner: 'A' | 'B' | null;
  /** The last provisional results the run read, with when. */
  provisional: unknown;
}

export type AbTestWorkflow = (input: AbTestInput) => Promise<AbTestRunState>;

export const abTestState = defineQuery<AbTestRunState>('state');
/** Sets or moves playTime (epoch ms). Refused once the test has started. */
export const scheduleAbTest = defineUpdate<AbTestRunState, [{ playTime: number }]>('schedule');
/** Takes the schedule back (the test was changed and is NEW again). Refused once the test has started. */
export const withdrawAbTest = defineUpdate<AbTestRunState, []>('withdraw');
/** Ends the test: nothing more is sent and no winner is declared. Refused once it has ended. */
export const cancelAbTest = defineUpdate<AbTestRunState, []>('cancel');

export const abTestWorkflowId = (testId: string) => `abtest:${testId}`;

export const abTestSearchAttributes = (input: AbTestInput) => [
  { key: AccountId, value: input.accountId },
  { key: AppId, value: input.appId },
  { key: EntityType, value: 'abtest' },
  { key: EntityId, value: input.testId },
  { key: AbTestStateKey, value: ['SCHEDULED'] },
];

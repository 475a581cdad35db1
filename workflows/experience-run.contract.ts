import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ExperienceDefinition } from '../src/domain/experiences/definition-schema.ts';
import type { PathStep } from '../src/sandbox-safe/experiences/run-path.ts';
import type { RunPosition } from '../src/sandbox-safe/experiences/experience-interpreter.ts';
import {
  AccountId,
  ClientUserId,
  CurrentNode,
  EntityId,
  EntityType,
  ExperienceId,
  ExperienceVersion,
  RunStatus,
} from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of one person's run through one version of an experience (flow). Routing starts it
 * and hands it later events of the same person (src/temporal/starters/experience-run.ts); the API cancels it with the
 * `cancel` update.
 */
export const experienceRunWorkflowType = 'experienceRun';

export type { PathStep };
/** How a run stands (the `state` query); the run's row stores the same values. */
export type ExperienceRunStatus = 'running' | 'completed' | 'goal_reached' | 'cancelled' | 'failed';
/** Why a run ended: max_duration ends it as `cancelled`. */
export type ExperienceEndReason = 'completed' | 'goal_reached' | 'max_duration' | 'cancelled' | 'failed';

/** An event handed to a run: ids only, so the run's history stays small; conditions read the rest from Postgres. */
export interface RunEvent {
  eventId: string;
  eventType: string;
  occurredAt: string;
}

/** An event the run has received, in the order received; `consumed` once a waitForEvent has taken it. */
export interface BufferedEvent extends RunEvent {
  seq: number;
  consumed: boolean;
}

/** Where a run continues after continue-as-new: the node it was waiting on and until when (the interpreter's). */
export type { RunPosition };

export interface CarriedRunState {
  version: 1;
  position: RunPosition;
  path: PathStep[];
  buffer: BufferedEvent[];
  /** Ids of the events received lately, to drop a redelivered one. */
  seen: string[];
  goalsReached: string[];
  /** Events received and not yet looked at when the run handed over. */
  inbox: RunEvent[];
  nextSeq: number;
}

/** Where routing's first steps left a new run: the path so far, and the node that needs time (or a provider call). */
export interface WalkedSteps {
  nodeId: string;
  path: PathStep[];
}

export interface ExperienceRunInput {
  version: 1;
  runId: string;
  accountId: string;
  experienceId: string;
  experienceName: string;
  experienceVersion: number;
  /** The version's frozen definition: a new version never changes a live run. */
  definition: ExperienceDefinition;
  visitorId: string | null;
  clientUserId: string | null;
  trigger: RunEvent;
  /** Epoch ms, from the run's row: the start of maxDurationSeconds. */
  enteredAt: number;
  carried?: CarriedRunState | undefined;
  /**
   * The nodes routing walked when it entered the run (webhook, condition, split: none needs time to pass) and the
   * node the run goes on from; absent when routing stopped at the start node (ADR 0066).
   */
  walked?: WalkedSteps | undefined;
  /** Continue as new past this many history events (the server's own suggestion also triggers it). */
  historyLimit?: number | undefined;
}

/** What the `state` query and the `cancel` update answer. */
export interface ExperienceRunState {
  status: ExperienceRunStatus;
  currentNodeId: string | null;
  path: PathStep[];
  endReason: ExperienceEndReason | null;
  endedAt: string | null;
  bufferedEvents: number;
}

export type ExperienceRunWorkflow = (input: ExperienceRunInput) => Promise<ExperienceRunState>;

export const runState = defineQuery<ExperienceRunState>('state');
/** Events handed over together, in order of arrival: one workflow task for all of them. */
export const runEvents = defineSignal<[RunEvent[]]>('events');
export const cancelRun = defineUpdate<ExperienceRunState, []>('cancel');

/**
 * `experience:<experienceId>:<visitorId>` for a person's first run, `…:<n>` for the n-th; an anonymous run is keyed by
 * the event that started it, `experience:<experienceId>:event:<eventId>`.
 */
export function experienceRunWorkflowId(experienceId: string, who: { visitorId: string; runNumber: number } | { eventId: string }): string {
  if ('eventId' in who) return `experience:${experienceId}:event:${who.eventId}`;
  return `experience:${experienceId}:${who.visitorId}${who.runNumber > 1 ? `:${who.runNumber}` : ''}`;
}

export const experienceRunSearchAttributes = (input: ExperienceRunInput) => [
  { key: AccountId, value: input.accountId },
  { key: EntityType, value: 'experience-run' },
  { key: EntityId, value: input.runId },
  { key: ExperienceId, value: input.experienceId },
  { key: ExperienceVersion, value: input.experienceVersion },
  ...(input.clientUserId ? [{ key: ClientUserId, value: input.clientUserId }] : []),
  { key: RunStatus, value: 'running' },
  { key: CurrentNode, value: input.definition.start },
];

import type {
  ConditionNode,
  ExitNode,
  ExperienceDefinition,
  ExperienceGoal,
  ExperienceNodeOf,
  ProviderNode,
  SplitNode,
  WaitForEventNode,
  WaitNode,
  WebhookNode,
} from '../../domain/experiences/definition-schema.ts';
import { nodeById, takeSplit } from './definition-graph.ts';
import type { PathStep } from './run-path.ts';

// The one interpreter of an experience's definition. Given the definition, where a run is and what it heard, it says what
// the run does next and what its path records. Its two callers only carry the steps out: the run's workflow with
// activities and timers, routing with writes in its transaction, stopping at the first step that takes time (ADR 0066,
// docs/adr/0066-routing-takes-a-new-run-s-first-steps.md). Pure TypeScript with type-only imports and no clock: the workflow loads
// it in its sandbox.

/** A path step before its time is stamped (the interpreter has no clock; its callers have). */
export type PathEntry = Omit<PathStep, 'at'>;

/** Where a run is: a node, and until when it waits there once that is known (a resumed wait, a push quiet hours held). */
export interface RunPosition {
  nodeId: string;
  waitUntil?: number | undefined;
}

/** Who walks: a split sends the same person the same way, wherever the split is taken. */
export interface Walker {
  experienceId: string;
  visitorId: string | null;
  runId: string;
}

/** Where a step leads: the entry it adds to the path, and the position after it (null: the run has exited). */
export interface StepMove {
  entry: PathEntry;
  next: RunPosition | null;
}

/**
 * What a run does at its position. A split and an exit need nothing heard, so their move comes with them; every other
 * step is carried out by the caller, and `follow` takes what it heard.
 */
export type RunStep =
  | { kind: 'fireWebhook'; node: WebhookNode }
  | { kind: 'evaluateCondition'; node: ConditionNode }
  /** Wait until `until`, or `node.seconds` from now when the wait has not begun. */
  | { kind: 'wait'; node: WaitNode; until: number | undefined }
  | { kind: 'callProvider'; node: ProviderNode }
  /** Send the push; `heldUntil`: quiet hours held part of it, so wait until then and send the rest. */
  | { kind: 'sendPush'; node: ExperienceNodeOf<'push'>; heldUntil: number | undefined }
  /** Take the first matching event, or time out at `until` (`node.timeoutSeconds` from now when not yet begun). */
  | { kind: 'waitForEvent'; node: WaitForEventNode; until: number | undefined }
  | { kind: 'takeSplit'; node: SplitNode; move: StepMove }
  | { kind: 'exit'; node: ExitNode; move: StepMove };

/** A step whose outcome the caller has to hear. */
export type CarriedStep = Exclude<RunStep, { kind: 'takeSplit' | 'exit' }>;

/** What a provider's API answered: sent, or refused (a 4xx, or out of attempts) with why. */
export type ProviderAnswer = { sent: true; status: number } | { sent: false; reason: string };

/** What a caller heard when it carried a step out. */
export type Heard =
  | { kind: 'webhookFired'; eventId: string }
  | { kind: 'conditionEvaluated'; holds: boolean }
  | { kind: 'timerFired' }
  | { kind: 'providerAnswered'; answer: ProviderAnswer }
  | { kind: 'pushSent'; summary: string; heldUntil: number | null }
  | { kind: 'eventTaken'; event: { eventType: string; eventId: string } }
  | { kind: 'timedOut' };

/** What each carried step may hear. */
type HeardBy = {
  fireWebhook: 'webhookFired';
  evaluateCondition: 'conditionEvaluated';
  wait: 'timerFired';
  callProvider: 'providerAnswered';
  sendPush: 'pushSent';
  waitForEvent: 'eventTaken' | 'timedOut';
};

/** The step at a position. A node the definition lacks is a bug (publishing checked every edge): it throws. */
export function stepAt(definition: ExperienceDefinition, walker: Walker, position: RunPosition): RunStep {
  const node = nodeById(definition, position.nodeId);
  if (!node) throw new Error(`experience ${walker.experienceId} has no node ${position.nodeId}`);
  const until = position.waitUntil;
  switch (node.type) {
    case 'webhook':
      return { kind: 'fireWebhook', node };
    case 'condition':
      return { kind: 'evaluateCondition', node };
    case 'wait':
      return { kind: 'wait', node, until };
    case 'provider':
      return { kind: 'callProvider', node };
    case 'push':
      return { kind: 'sendPush', node, heldUntil: until };
    case 'waitForEvent':
      return { kind: 'waitForEvent', node, until };
    case 'split': {
      const split = takeSplit(node, walker);
      return { kind: 'takeSplit', node, move: onward(node, split.outcome, split.next) };
    }
    case 'exit':
      return { kind: 'exit', node, move: { entry: entry(node, 'exit'), next: null } };
  }
}

/**
 * Whether a step takes time to pass: a timer, an event, a provider call (which may back off for minutes) or a push
 * (FCM's pace, quiet hours). Routing takes a new run's steps up to the first such step; its workflow goes on from it.
 */
export function takesTime(step: RunStep): step is Extract<CarriedStep, { kind: 'wait' | 'waitForEvent' | 'callProvider' | 'sendPush' }> {
  return step.kind === 'wait' || step.kind === 'waitForEvent' || step.kind === 'callProvider' || step.kind === 'sendPush';
}

/** Where a carried step leads, given what was heard. Hearing what the step cannot hear is a bug: it throws. */
export function follow(step: CarriedStep, heard: Heard): StepMove {
  switch (step.kind) {
    case 'fireWebhook':
      return onward(step.node, `sent ${heardAs(step, heard, 'webhookFired').eventId}`, step.node.next);
    case 'evaluateCondition': {
      const holds = heardAs(step, heard, 'conditionEvaluated').holds;
      return onward(step.node, holds ? 'then' : 'else', holds ? step.node.then : step.node.else);
    }
    case 'wait':
      heardAs(step, heard, 'timerFired');
      return onward(step.node, `waited ${step.node.seconds} s`, step.node.next);
    case 'callProvider': {
      const answer = heardAs(step, heard, 'providerAnswered').answer;
      return onward(step.node, answer.sent ? `sent (HTTP ${answer.status})` : `failed: ${answer.reason}`, step.node.next);
    }
    case 'sendPush': {
      const pushed = heardAs(step, heard, 'pushSent');
      // Held by quiet hours: the path says until when, and the run stays on the node to send the rest then.
      if (pushed.heldUntil !== null) return { entry: entry(step.node, pushed.summary), next: { nodeId: step.node.id, waitUntil: pushed.heldUntil } };
      return onward(step.node, pushed.summary, step.node.next);
    }
    case 'waitForEvent': {
      const taken = heardAs(step, heard, 'eventTaken', 'timedOut');
      if (taken.kind === 'timedOut') return onward(step.node, 'timeout', step.node.timeoutNext);
      return onward(step.node, `${taken.event.eventType} ${taken.event.eventId}`, step.node.next);
    }
  }
}

/** The goals an event may reach: of its type, and not reached before. Their conditions, if any, are still to hold. */
export function goalsToCheck(definition: ExperienceDefinition, eventType: string, reached: readonly string[]): ExperienceGoal[] {
  return definition.goals.filter((goal) => goal.eventType === eventType && !reached.includes(goal.id));
}

/** The path entry of a goal an event reached. */
export function goalEntry(goal: ExperienceGoal, event: { eventType: string; eventId: string }): PathEntry {
  return { nodeId: `goal:${goal.id}`, type: 'goal', outcome: `reached on ${event.eventType} ${event.eventId}${goal.exit ? '; exit' : ''}` };
}

const entry = (node: { id: string; type: string }, outcome: string): PathEntry => ({ nodeId: node.id, type: node.type, outcome });

const onward = (node: { id: string; type: string }, outcome: string, next: string): StepMove => ({ entry: entry(node, outcome), next: { nodeId: next } });

function heardAs<S extends CarriedStep, K extends HeardBy[S['kind']]>(step: S, heard: Heard, ...kinds: K[]): Extract<Heard, { kind: K }> {
  if (!(kinds as string[]).includes(heard.kind)) throw new Error(`a ${step.kind} step at ${step.node.id} cannot hear ${heard.kind}`);
  return heard as Extract<Heard, { kind: K }>;
}

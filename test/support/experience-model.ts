import fc from 'fast-check';
import type { ExperienceDefinition, ExperienceGoal, ExperienceNode } from '../../src/domain/experiences/definition-schema.ts';
import { nodeEdges } from '../../src/sandbox-safe/experiences/definition-graph.ts';
import type { ExperienceContext } from '../../src/sandbox-safe/experiences/context-fields.ts';
import { evaluateCondition, type Condition } from '../../src/sandbox-safe/experiences/evaluate-condition.ts';
import {
  follow,
  goalEntry,
  goalsToCheck,
  stepAt,
  type RunStep,
  type Heard,
  type PathEntry,
  type ProviderAnswer,
  type Walker,
} from '../../src/sandbox-safe/experiences/experience-interpreter.ts';

// Random flows for the property tests of the interpreter's two callers (routing's first steps and the run's
// workflow), the world they meet, and what a run of each must come to: a model that hears the world and asks the
// interpreter, step by step, as a run does.

/** What a run meets: the trigger's attributes (condition nodes read `c_<nodeId>`), each provider's answer, the push
 * nodes quiet hours hold once, and the events handed over together when the run first waits. */
export interface ExperienceWorld {
  trigger: Record<string, boolean>;
  provider: Record<string, ProviderAnswer>;
  heldPushes: string[];
  events: Array<{ eventId: string; eventType: string; ok: boolean }>;
}

export interface ExperienceSample {
  definition: ExperienceDefinition;
  world: ExperienceWorld;
}

export const sampleWalker: Walker = { experienceId: 'exp_property', visitorId: '7d5a3c9e-2b1f-4e8a-9c6d-0f1e2d3c4b5a', runId: 'run_property' };

/** Conditions read an event's `ok` attribute (goals, waitForEvent) or the trigger's `c_<nodeId>` (condition nodes). */
const eventIsOk: Condition = { field: 'event.attributes.ok', op: 'eq', value: true };
const triggerSays = (nodeId: string): Condition => ({ field: `trigger.attributes.c_${nodeId}`, op: 'eq', value: true });
export const heldSummary = 'held by quiet hours';
export const sentSummary = 'sent to 1 device';
const eventTypes = ['a', 'b', 'x'] as const;
const splits = [[50, 50], [0, 100], [20, 30, 50]] as const;

type Kind = ExperienceNode['type'];
const kinds: Kind[] = ['webhook', 'wait', 'condition', 'provider', 'push', 'waitForEvent', 'split'];
/** Any node kind; an exit before the last node seldom (the last one always is), so that flows have some length. */
const kind = fc.oneof({ arbitrary: fc.constantFrom(...kinds), weight: 12 }, { arbitrary: fc.constant<Kind>('exit'), weight: 1 });

/** Node i of n: its kind, and picks for its forward edges (so the graph has no cycle) and its other choices. */
function buildNode(i: number, n: number, kind: Kind, picks: number[]): ExperienceNode {
  const id = `n${i}`;
  const ahead = (k: number) => `n${i + 1 + (picks[k]! % (n - 1 - i))}`;
  switch (i === n - 1 ? 'exit' : kind) {
    case 'webhook':
      return { id, type: 'webhook', result: { step: i }, next: ahead(0) };
    case 'wait':
      return { id, type: 'wait', seconds: 60 + (picks[1]! % 86_400), next: ahead(0) };
    case 'condition':
      return { id, type: 'condition', if: triggerSays(id), then: ahead(0), else: ahead(1) };
    case 'provider':
      return { id, type: 'provider', connectionId: 'conn_property', call: 'track', event: 'Property', next: ahead(0) };
    case 'push':
      return { id, type: 'push', notificationId: '5f0c8a5e-1d4b-4c7a-8f3e-2a6b9c1d0e7f', next: ahead(0) };
    case 'waitForEvent':
      return {
        id,
        type: 'waitForEvent',
        eventType: eventTypes[picks[2]! % eventTypes.length]!,
        conditions: picks[3]! % 2 ? eventIsOk : null,
        timeoutSeconds: 3_600,
        next: ahead(0),
        timeoutNext: ahead(1),
      };
    case 'split':
      return { id, type: 'split', branches: splits[picks[2]! % splits.length]!.map((percent, k) => ({ percent, next: ahead(k) })) };
    case 'exit':
      return { id, type: 'exit' };
  }
}

/** Keeps the nodes reachable from the first (publishing refuses a node that is not). */
function reachable(nodes: ExperienceNode[]): ExperienceNode[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const edge of nodeEdges(byId.get(id)!)) visit(edge.target);
  };
  visit(nodes[0]!.id);
  return nodes.filter((node) => seen.has(node.id));
}

export interface SampleOptions {
  /** Goals without conditions, all of them exits: a hand-over is then checked against them in one go (see the caller). */
  exitGoalsOnly?: boolean;
  maxNodes?: number;
}

/** A valid definition (published as is), and the world a run of it meets. */
export function flowSamples(options: SampleOptions = {}): fc.Arbitrary<ExperienceSample> {
  const goal = fc.record({ eventType: fc.constantFrom(...eventTypes), conditional: fc.boolean(), exit: fc.boolean() });
  return fc.integer({ min: 2, max: options.maxNodes ?? 10 }).chain((n) =>
    fc
      .record({
        kinds: fc.array(kind, { minLength: n, maxLength: n }),
        picks: fc.array(fc.array(fc.nat(), { minLength: 4, maxLength: 4 }), { minLength: n, maxLength: n }),
        goals: fc.array(goal, { maxLength: 2 }),
        answers: fc.array(fc.record({ holds: fc.boolean(), sent: fc.boolean(), held: fc.boolean() }), { minLength: n, maxLength: n }),
        events: fc.array(fc.record({ eventType: fc.constantFrom(...eventTypes), ok: fc.boolean() }), { maxLength: 6 }),
      })
      .map(({ kinds: chosen, picks, goals, answers, events }) => {
        const nodes = reachable(chosen.map((kind, i) => buildNode(i, n, kind, picks[i]!)));
        const goalList: ExperienceGoal[] = goals.map((g, k) => ({
          id: `g${k}`,
          eventType: g.eventType,
          conditions: g.conditional && !options.exitGoalsOnly ? eventIsOk : null,
          exit: options.exitGoalsOnly ? true : g.exit,
        }));
        const definition: ExperienceDefinition = {
          name: 'Property flow',
          trigger: { eventType: 'signup', conditions: null },
          entry: { reentry: 'never' },
          goals: goalList,
          maxDurationSeconds: 365 * 86_400,
          start: 'n0',
          nodes,
        };
        const at = (id: string) => answers[Number(id.slice(1))]!;
        const world: ExperienceWorld = {
          trigger: Object.fromEntries(nodes.map((node) => [`c_${node.id}`, at(node.id).holds])),
          provider: Object.fromEntries(nodes.map((node) => [node.id, at(node.id).sent ? { sent: true, status: 200 } : { sent: false, reason: 'refused (HTTP 400)' }])),
          heldPushes: nodes.filter((node) => node.type === 'push' && at(node.id).held).map((node) => node.id),
          events: events.map((event, k) => ({ eventId: `iev_${k}`, ...event })),
        };
        return { definition, world };
      }),
  );
}

/** What conditions read in this world: the trigger (a `signup` with the world's attributes) and the event judged. */
export function contextIn(world: ExperienceWorld, eventId?: string): ExperienceContext {
  const trigger = { eventType: 'signup', attributes: world.trigger };
  const event = world.events.find((candidate) => candidate.eventId === eventId);
  return { trigger, event: event ? { eventType: event.eventType, attributes: { ok: event.ok } } : trigger, visitor: null };
}

/** A flow entry with the kind of step that made it. */
export type ModelEntry = PathEntry & { kind: RunStep['kind'] };

/** The steps that take time to pass (ADR 0066): routing takes every step before the first of them. */
const timeTaking: Array<RunStep['kind']> = ['wait', 'waitForEvent', 'callProvider', 'sendPush'];

export interface ExpectedRun {
  /** The path's entries of the flow's nodes, in order. */
  flow: ModelEntry[];
  /** The path's goal entries, in order. */
  goals: PathEntry[];
  endReason: 'completed' | 'goal_reached';
  /** The node the run ends on. */
  endNodeId: string;
  /** The first step that takes time: where routing stops (the number of flow entries before it); null when none. */
  firstTimeTaking: { nodeId: string; after: number } | null;
}

/**
 * A run as the workflow takes it: the flow's steps heard from the world, and the world's events handed over together
 * when the run first waits (a wait, a waitForEvent with nothing buffered, a push held by quiet hours); each is checked
 * against the goals, then kept for the waitForEvent nodes, which take the first buffered event of their type (not
 * taken before) that passes their conditions, or time out.
 */
export function expectedRun({ definition, world }: ExperienceSample, walker: Walker = sampleWalker): ExpectedRun {
  const run: ExpectedRun = { flow: [], goals: [], endReason: 'completed', endNodeId: definition.start, firstTimeTaking: null };
  const buffer: Array<ExperienceWorld['events'][number] & { taken: boolean }> = [];
  const reached: string[] = [];
  const pushesHeld = new Set<string>();
  let handedOver = false;
  /** The hand-over: true when an exit goal ends the run. */
  const handOver = (): boolean => {
    handedOver = true;
    for (const event of world.events) {
      let exits = false;
      for (const goal of goalsToCheck(definition, event.eventType, reached)) {
        if (goal.conditions && !evaluateCondition(goal.conditions, contextIn(world, event.eventId))) continue;
        reached.push(goal.id);
        run.goals.push(goalEntry(goal, event));
        exits ||= goal.exit;
      }
      // An exit ends the run once the event has met every goal; the events after it are not looked at.
      if (exits) return true;
      buffer.push({ ...event, taken: false });
    }
    return false;
  };
  const hear = (step: Exclude<RunStep, { kind: 'takeSplit' | 'exit' }>): Heard => {
    const { node } = step;
    switch (step.kind) {
      case 'fireWebhook':
        return { kind: 'webhookFired', eventId: `evt_${node.id}` };
      case 'evaluateCondition':
        return { kind: 'conditionEvaluated', holds: evaluateCondition(step.node.if, contextIn(world)) };
      case 'wait':
        return { kind: 'timerFired' };
      case 'callProvider':
        return { kind: 'providerAnswered', answer: world.provider[node.id]! };
      case 'sendPush': {
        const holds = world.heldPushes.includes(node.id) && !pushesHeld.has(node.id);
        pushesHeld.add(node.id);
        return holds ? { kind: 'pushSent', summary: heldSummary, heldUntil: 1 } : { kind: 'pushSent', summary: sentSummary, heldUntil: null };
      }
      case 'waitForEvent': {
        const conditions = step.node.conditions;
        const taken = buffer.find((event) => !event.taken && event.eventType === step.node.eventType && (!conditions || evaluateCondition(conditions, contextIn(world, event.eventId))));
        if (!taken) return { kind: 'timedOut' };
        taken.taken = true;
        return { kind: 'eventTaken', event: taken };
      }
    }
  };
  let step = stepAt(definition, walker, { nodeId: definition.start });
  for (;;) {
    run.endNodeId = step.node.id;
    if (!run.firstTimeTaking && timeTaking.includes(step.kind)) run.firstTimeTaking = { nodeId: step.node.id, after: run.flow.length };
    // Where the run first waits (before the hand-over, nothing is buffered for a waitForEvent to take).
    const waits = step.kind === 'wait' || step.kind === 'waitForEvent' || (step.kind === 'sendPush' && step.heldUntil !== undefined);
    if (waits && !handedOver && handOver()) return { ...run, endReason: 'goal_reached' };
    const move = step.kind === 'takeSplit' || step.kind === 'exit' ? step.move : follow(step, hear(step));
    run.flow.push({ ...move.entry, kind: step.kind });
    if (!move.next) return run;
    step = stepAt(definition, walker, move.next);
  }
}

/** A path without its times, as `node:outcome`: flow entries and goal entries apart. */
export function pathParts(path: Array<{ nodeId: string; type: string; outcome: string }>): { flow: string[]; goals: string[] } {
  const shown = (step: { nodeId: string; outcome: string }) => `${step.nodeId}:${step.outcome}`;
  return { flow: path.filter((step) => step.type !== 'goal').map(shown), goals: path.filter((step) => step.type === 'goal').map(shown) };
}

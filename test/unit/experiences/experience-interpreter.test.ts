import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDefinitionGraph } from '../../../src/domain/experiences/check-definition-graph.ts';
import { experienceDefinitionSchema, type ExperienceDefinition } from '../../../src/domain/experiences/definition-schema.ts';
import { takeFirstSteps } from '../../../src/domain/experiences/walk-first-steps.ts';
import { evaluateCondition } from '../../../src/sandbox-safe/experiences/evaluate-condition.ts';
import { follow, stepAt, takesTime, type CarriedStep } from '../../../src/sandbox-safe/experiences/experience-interpreter.ts';
import { contextIn, expectedRun, flowSamples, pathParts, sampleWalker } from '../../support/experience-model.ts';

const flow = (nodes: ExperienceDefinition['nodes']): ExperienceDefinition => ({
  name: 'Interpreter',
  trigger: { eventType: 'signup', conditions: null },
  entry: { reentry: 'never' },
  goals: [],
  maxDurationSeconds: 86_400,
  start: nodes[0]!.id,
  nodes,
});

const carried = (definition: ExperienceDefinition, nodeId: string, waitUntil?: number) => stepAt(definition, sampleWalker, { nodeId, waitUntil }) as CarriedStep;

describe('the flow interpreter', () => {
  const definition = flow([
    { id: 'nudge', type: 'push', notificationId: '5f0c8a5e-1d4b-4c7a-8f3e-2a6b9c1d0e7f', next: 'await' },
    { id: 'await', type: 'waitForEvent', eventType: 'purchase', conditions: null, timeoutSeconds: 60, next: 'call', timeoutNext: 'done' },
    { id: 'call', type: 'provider', connectionId: 'conn_x', call: 'identify', next: 'done' },
    { id: 'done', type: 'exit' },
  ]);

  it('keeps a push that quiet hours held on its node, until then, and moves on once it is sent', () => {
    const held = follow(carried(definition, 'nudge'), { kind: 'pushSent', summary: 'delayed until 2026-11-29T07:00:00.000Z', heldUntil: 1_000 });
    expect(held).toEqual({ entry: { nodeId: 'nudge', type: 'push', outcome: 'delayed until 2026-11-29T07:00:00.000Z' }, next: { nodeId: 'nudge', waitUntil: 1_000 } });
    const again = carried(definition, 'nudge', 1_000);
    expect(again).toMatchObject({ kind: 'sendPush', heldUntil: 1_000 });
    expect(follow(again, { kind: 'pushSent', summary: 'sent to 2 devices', heldUntil: null }).next).toEqual({ nodeId: 'await' });
  });

  it('takes an event to next and a timeout to timeoutNext; records a provider that failed, and goes on', () => {
    const wait = carried(definition, 'await');
    expect(follow(wait, { kind: 'eventTaken', event: { eventType: 'purchase', eventId: 'iev_1' } })).toEqual({ entry: { nodeId: 'await', type: 'waitForEvent', outcome: 'purchase iev_1' }, next: { nodeId: 'call' } });
    expect(follow(wait, { kind: 'timedOut' })).toEqual({ entry: { nodeId: 'await', type: 'waitForEvent', outcome: 'timeout' }, next: { nodeId: 'done' } });
    expect(follow(carried(definition, 'call'), { kind: 'providerAnswered', answer: { sent: false, reason: 'out of attempts' } }).entry.outcome).toBe('failed: out of attempts');
  });

  it('refuses to hear what a step cannot hear, and a node the definition lacks', () => {
    expect(() => follow(carried(definition, 'await'), { kind: 'timerFired' })).toThrow('a waitForEvent step at await cannot hear timerFired');
    expect(() => stepAt(definition, sampleWalker, { nodeId: 'gone' })).toThrow('has no node gone');
  });

  it('says which steps take time: routing stops at the first', () => {
    const timed = (['nudge', 'await', 'call'] as const).map((id) => takesTime(stepAt(definition, sampleWalker, { nodeId: id })));
    expect(timed).toEqual([true, true, true]);
    expect(takesTime(stepAt(definition, sampleWalker, { nodeId: 'done' }))).toBe(false);
  });
});

describe('the interpreter’s callers (property)', () => {
  it('generates definitions that publish', () => {
    fc.assert(
      fc.property(flowSamples(), ({ definition }) => {
        expect(experienceDefinitionSchema.safeParse(definition).success).toBe(true);
        expect(checkDefinitionGraph(definition)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  // Routing's first steps (ADR 0066) and the run's workflow walk the same path: routing's is the run's up to its first
  // step that takes time, where routing stops and the workflow goes on; a run that needs none ends in routing.
  it('routing takes a new run’s first steps exactly as the run takes them', async () => {
    await fc.assert(
      fc.asyncProperty(flowSamples(), async (sample) => {
        const run = expectedRun(sample);
        const first = await takeFirstSteps(sample.definition, sampleWalker, {
          fireWebhook: async (node) => `evt_${node.id}`,
          holds: (condition) => evaluateCondition(condition, contextIn(sample.world)),
        });
        const upTo = run.firstTimeTaking?.after ?? run.flow.length;
        expect(pathParts(first.path).flow).toEqual(pathParts(run.flow.slice(0, upTo)).flow);
        expect(first.ended).toBe(run.firstTimeTaking === null);
        expect(first.nodeId).toBe(run.firstTimeTaking?.nodeId ?? run.endNodeId);
      }),
      { numRuns: 500 },
    );
  });
});

import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ExperienceDefinition, ExperienceGoal } from '../../src/domain/experiences/definition-schema.ts';
import type { EndRunInput } from '../../src/domain/experiences/run-steps.ts';
import { cancelRun, runEvents, runState, type ExperienceRunInput, type ExperienceRunState, type ExperienceRunWorkflow } from '../../workflows/experience-run.contract.ts';
import { startExperienceRun } from '../../src/temporal/starters/experience-run.ts';
import { isWorkflowTaskFailure, recordHistoryIfAsked, waitForHistoryEvent } from '../support/temporal.ts';
import { connectTestEnvironment, startTimeSkippingEnvironment } from '../support/temporal-worker.ts';
import { experienceRunInput } from '../support/experiences.ts';
import { until } from '../support/wait.ts';

const day = 24 * 3600;

/** Long timers run on the time-skipping server; the cancel update runs on the dev server (see below). */
let env: TestWorkflowEnvironment;
let devEnv: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startTimeSkippingEnvironment();
  devEnv = await connectTestEnvironment();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
  await devEnv?.teardown();
});

/**
 * Stub activities: conditions answer as `conditionHolds` says; a push node's sends answer as `pushes` says, in turn
 * (given the time the call was scheduled); every action is recorded in order.
 */
function stubActivities(conditionHolds: (eventId: string) => boolean = () => true, pushes: Array<(now: number) => { summary: string; heldUntil: number | null }> = []) {
  const calls: Array<{ name: string; input: any }> = [];
  const log = (name: string) => async (input: any) => {
    calls.push({ name, input });
  };
  const activities = {
    async enterExperienceRun(input: { runId: string }) {
      calls.push({ name: 'enter', input });
      return { status: 'running' };
    },
    saveExperienceRunProgress: log('save'),
    evaluateExperienceCondition: async (input: { eventId: string }) => {
      calls.push({ name: 'evaluate', input });
      return conditionHolds(input.eventId);
    },
    async fireExperienceWebhook(input: { nodeId: string }) {
      calls.push({ name: 'webhook', input });
      return { eventId: `evt_${input.nodeId}` };
    },
    async publishExperienceGoal(input: { goalId: string }) {
      calls.push({ name: 'goal', input });
      return { eventId: `evt_goal_${input.goalId}` };
    },
    async callExperienceProvider(input: any) {
      calls.push({ name: 'provider', input });
      return { sent: true, status: 200 };
    },
    async sendExperiencePush(input: any) {
      const now = Context.current().info.scheduledTimestampMs;
      calls.push({ name: 'push', input: { ...input, at: now } });
      return pushes.shift()?.(now) ?? { summary: 'sent to 1 device', heldUntil: null };
    },
    async endExperienceRun(input: EndRunInput) {
      calls.push({ name: 'end', input });
      return { eventId: 'evt_end' };
    },
  };
  return { activities, calls, named: (name: string) => calls.filter((call) => call.name === name).map((call) => call.input) };
}

/**
 * Stub activities whose goal condition and webhook are in flight together: the condition answers (true) once the
 * webhook has started, and the webhook right after it, in the next turn of the worker's event loop.
 */
function goalAnsweredBeforeWebhook() {
  const stub = stubActivities();
  const webhookStarted = Promise.withResolvers<void>();
  const goalRead = Promise.withResolvers<void>();
  stub.activities.evaluateExperienceCondition = async (input: { eventId: string }) => {
    stub.calls.push({ name: 'evaluate', input });
    await webhookStarted.promise;
    goalRead.resolve();
    return true;
  };
  stub.activities.fireExperienceWebhook = async (input: { nodeId: string }) => {
    stub.calls.push({ name: 'webhook', input });
    webhookStarted.resolve();
    await goalRead.promise;
    await new Promise((next) => setImmediate(next));
    return { eventId: `evt_${input.nodeId}` };
  };
  return stub;
}

const definition = (overrides: Partial<ExperienceDefinition> & Pick<ExperienceDefinition, 'nodes'>): ExperienceDefinition => ({
  name: 'Workflow test',
  trigger: { eventType: 'signup', conditions: null },
  entry: { reentry: 'never' },
  goals: [],
  maxDurationSeconds: 30 * day,
  start: overrides.nodes[0]!.id,
  ...overrides,
});

async function withRun<T>(
  flow: ExperienceDefinition,
  stub: ReturnType<typeof stubActivities>,
  during: (handle: WorkflowHandle<ExperienceRunWorkflow>, input: ExperienceRunInput) => Promise<T>,
  extra: Partial<ExperienceRunInput> = {},
  on: TestWorkflowEnvironment = env,
): Promise<T> {
  const taskQueue = `flow-${randomUUID()}`;
  const worker = await Worker.create({
    connection: on.nativeConnection,
    namespace: on.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: stub.activities,
  });
  const input = experienceRunInput(flow, on === env ? await env.currentTimeMs() : Date.now(), extra);
  const workflowId = `experience:exp_test:${input.runId}`;
  return worker.runUntil(async () => {
    await startExperienceRun({ client: on.client, taskQueue }, workflowId, input);
    return during(on.client.workflow.getHandle<ExperienceRunWorkflow>(workflowId), input);
  });
}

/** Waits (by query, which does not move time) until the run is at the node. */
const reach = (handle: WorkflowHandle, nodeId: string): Promise<ExperienceRunState> =>
  until(`the run to reach ${nodeId}`, () => handle.query(runState), (state) => state.currentNodeId === nodeId && state.status === 'running', {
    timeoutMs: 10_000,
    intervalMs: 50,
  });

const event = (eventType: string, eventId = `iev_${randomUUID()}`) => ({ eventId, eventType, occurredAt: new Date().toISOString() });

/** A checkout flow: wait for `checkout`, then a 30-day linger; an exit goal on `purchase` with these conditions. */
const checkoutFlow = (goalConditions: ExperienceGoal['conditions']) =>
  definition({
    goals: [{ id: 'bought', eventType: 'purchase', conditions: goalConditions, exit: true }],
    nodes: [
      { id: 'await', type: 'waitForEvent', eventType: 'checkout', conditions: null, timeoutSeconds: 30 * day, next: 'linger', timeoutNext: 'done' },
      { id: 'linger', type: 'wait', seconds: 30 * day, next: 'done' },
      { id: 'done', type: 'exit' },
    ],
  });

/** Once the run has saved its wait on `await`, hands it a checkout and a purchase together, as routing would. */
async function handOverCheckoutAndPurchase(handle: WorkflowHandle, stub: ReturnType<typeof stubActivities>): Promise<void> {
  await reach(handle, 'await');
  await until('the wait on await to be saved', async () => stub.named('save').length, (saved) => saved === 1);
  await handle.signal(runEvents, [event('checkout', 'iev_checkout'), event('purchase', 'iev_purchase')]);
}

describe('experienceRun workflow (time-skipping, stub activities)', () => {
  it('sends a push node, waits out the quiet hours that held it, sends the rest, and records both outcomes', async () => {
    const hours = 3_600_000;
    let heldUntil = 0;
    const stub = stubActivities(undefined, [
      (now) => {
        heldUntil = now + 9 * hours;
        return { summary: `delayed until ${new Date(heldUntil).toISOString()}`, heldUntil };
      },
      () => ({ summary: 'sent to 2 devices', heldUntil: null }),
    ]);
    const flow = definition({ nodes: [{ id: 'nudge', type: 'push', notificationId: randomUUID(), next: 'done' }, { id: 'done', type: 'exit' }] });
    const result = await withRun(flow, stub, async (handle) => {
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'experience-run-push');
      return state;
    });
    const [first, second] = stub.named('push');
    // Both calls are the same node at the same step: the second sends what the first wrote and held.
    expect(first).toMatchObject({ nodeId: 'nudge', step: 0 });
    expect(second).toMatchObject({ nodeId: 'nudge', step: 0 });
    expect(second.at).toBeGreaterThanOrEqual(heldUntil);
    expect(result.path.map((step) => `${step.nodeId}:${step.outcome}`)).toEqual([
      `nudge:delayed until ${new Date(heldUntil).toISOString()}`,
      'nudge:sent to 2 devices',
      'done:exit',
    ]);
    expect(stub.named('save').at(-1)).toMatchObject({ currentNodeId: 'nudge' });
  });

  it('walks webhook → a day’s wait → condition (else) → exit, and records the path', async () => {
    const stub = stubActivities(() => false);
    const flow = definition({
      nodes: [
        { id: 'welcome', type: 'webhook', result: { step: 1 }, next: 'wait1' },
        { id: 'wait1', type: 'wait', seconds: day, next: 'check' },
        { id: 'check', type: 'condition', if: { field: 'visitor.attributes.country', op: 'eq', value: 'DE' }, then: 'seg', else: 'done' },
        { id: 'seg', type: 'provider', connectionId: 'conn_x', call: 'track', event: 'Nudge', next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const result = await withRun(flow, stub, async (handle) => {
      const start = await env.currentTimeMs();
      const state = await handle.result();
      expect((await env.currentTimeMs()) - start).toBeGreaterThanOrEqual(day * 1000);
      await recordHistoryIfAsked(handle, 'experience-run');
      return state;
    });
    expect(result).toMatchObject({ status: 'completed', endReason: 'completed', currentNodeId: 'done' });
    expect(result.path.map((step) => `${step.nodeId}:${step.outcome}`)).toEqual(['welcome:sent evt_welcome', `wait1:waited ${day} s`, 'check:else', 'done:exit']);
    expect(stub.named('provider')).toEqual([]);
    expect(stub.named('evaluate')).toEqual([expect.objectContaining({ eventId: 'iev_trigger' })]);
    expect(stub.named('end')).toEqual([expect.objectContaining({ status: 'completed', endReason: 'completed', currentNodeId: 'done' })]);
  });

  it('goes on from where routing’s first steps left it: the walked path first, no webhook again, still checking for a cancel before the start', async () => {
    const stub = stubActivities();
    const flow = definition({
      nodes: [
        { id: 'welcome', type: 'webhook', result: { step: 1 }, next: 'wait1' },
        { id: 'wait1', type: 'wait', seconds: day, next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const walkedPath = [{ nodeId: 'welcome', type: 'webhook', at: new Date().toISOString(), outcome: 'sent evt_routed' }];
    const result = await withRun(
      flow,
      stub,
      async (handle) => {
        const state = await handle.result();
        await recordHistoryIfAsked(handle, 'experience-run-walked-by-routing');
        return state;
      },
      { walked: { nodeId: 'wait1', path: walkedPath } },
    );
    expect(result.path.map((step) => `${step.nodeId}:${step.outcome}`)).toEqual(['welcome:sent evt_routed', `wait1:waited ${day} s`, 'done:exit']);
    // Archiving may have cancelled the run between routing's commit and this start: the run still looks.
    expect(stub.named('enter')).toHaveLength(1);
    expect(stub.named('webhook')).toEqual([]);
    expect(stub.named('end')).toEqual([expect.objectContaining({ status: 'completed', currentNodeId: 'done' })]);
  });

  it('ends at maxDurationSeconds with reason max_duration (status cancelled)', async () => {
    const stub = stubActivities();
    const flow = definition({
      maxDurationSeconds: 2 * day,
      nodes: [
        { id: 'wait1', type: 'wait', seconds: 10 * day, next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const result = await withRun(flow, stub, async (handle) => {
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'experience-run-max-duration');
      return state;
    });
    expect(result).toMatchObject({ status: 'cancelled', endReason: 'max_duration', currentNodeId: 'wait1' });
    expect(stub.named('end')).toEqual([expect.objectContaining({ endReason: 'max_duration', status: 'cancelled' })]);
  });

  it('keeps events that arrive between steps (handed over together), and a later waitForEvent takes one; an unmatched one times out', async () => {
    const stub = stubActivities((eventId) => eventId === 'iev_opened_2');
    const flow = definition({
      nodes: [
        { id: 'wait1', type: 'wait', seconds: day, next: 'await' },
        { id: 'await', type: 'waitForEvent', eventType: 'app.opened', conditions: { field: 'event.attributes.screen', op: 'eq', value: 'home' }, timeoutSeconds: 2 * day, next: 'await2', timeoutNext: 'done' },
        { id: 'await2', type: 'waitForEvent', eventType: 'app.closed', conditions: null, timeoutSeconds: 2 * day, next: 'done', timeoutNext: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const result = await withRun(flow, stub, async (handle) => {
      await reach(handle, 'wait1');
      // Both arrive in one hand-over while the run sleeps on wait1; only the second passes the condition.
      await handle.signal(runEvents, [event('app.opened', 'iev_opened_1'), event('app.opened', 'iev_opened_2')]);
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'experience-run-events-handed-over');
      return state;
    });
    expect(result.path.map((step) => `${step.nodeId}:${step.outcome}`)).toEqual([
      `wait1:waited ${day} s`,
      'await:app.opened iev_opened_2',
      'await2:timeout',
      'done:exit',
    ]);
  });

  it('ends on an exit goal in a hand-over before its waitForEvent takes the event beside it, in one local step that announces the goal', async () => {
    const stub = stubActivities();
    const result = await withRun(checkoutFlow(null), stub, async (handle) => {
      await handOverCheckoutAndPurchase(handle, stub);
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'experience-run-exit-goal-in-end');
      return state;
    });
    // The events of a hand-over meet the goals first (ADR 0061): the exit ends the run where it waited.
    expect(result).toMatchObject({ status: 'goal_reached', endReason: 'goal_reached', currentNodeId: 'await' });
    expect(result.path.map((step) => `${step.nodeId}:${step.outcome}`)).toEqual(['goal:bought:reached on purchase iev_purchase; exit']);
    // The save before the wait on `await` and nothing else: the goal rides on the end, the run's only step after.
    expect(stub.named('save')).toEqual([expect.objectContaining({ currentNodeId: 'await' })]);
    expect(stub.named('goal')).toEqual([]);
    expect(stub.named('end')).toEqual([
      expect.objectContaining({ endReason: 'goal_reached', goals: [{ goalId: 'bought', eventType: 'purchase', eventId: 'iev_purchase' }] }),
    ]);
  });

  it('saves no progress on the node it moved to while a goal with conditions is still being checked, when that goal ends the run', async () => {
    const stub = stubActivities();
    const result = await withRun(checkoutFlow({ field: 'event.attributes.total', op: 'gt', value: 0 }), stub, async (handle) => {
      await handOverCheckoutAndPurchase(handle, stub);
      return handle.result();
    });
    // While the goal's condition is read, the flow takes the checkout and moves on; the goal then ends the run.
    expect(result).toMatchObject({ status: 'goal_reached', currentNodeId: 'linger' });
    expect(result.path.map((step) => step.nodeId)).toEqual(['await', 'goal:bought']);
    expect(stub.named('save')).toEqual([expect.objectContaining({ currentNodeId: 'await' })]);
    expect(stub.named('end')).toEqual([expect.objectContaining({ goals: [expect.objectContaining({ goalId: 'bought' })] })]);
  });

  // The SDK's core fails the workflow task ("[TMPRL1100] Nondeterminism error: Invalid transition in state machine")
  // when a cancel reaches a local activity whose result it holds and the workflow has not seen yet: two local steps
  // in flight together, one of which ends the flow. Here the goal's condition (read beside the flow) and the webhook
  // the flow moved on to; the goal ends the run, and the webhook's step, never cancelled, finishes (ADR 0061).
  it('ends on an exit goal read while a local step of the flow is in flight: the step finishes, and no workflow task fails', async () => {
    const flow = definition({
      goals: [{ id: 'bought', eventType: 'purchase', conditions: { field: 'event.attributes.total', op: 'gt', value: 0 }, exit: true }],
      nodes: [
        { id: 'await', type: 'waitForEvent', eventType: 'checkout', conditions: null, timeoutSeconds: 30 * day, next: 'thanks', timeoutNext: 'done' },
        { id: 'thanks', type: 'webhook', result: {}, next: 'linger' },
        { id: 'linger', type: 'wait', seconds: 30 * day, next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    // The answers leave the worker in that order, but may reach the workflow in the other (then the webhook is done
    // before the goal ends anything): up to three runs, until one has the goal answered first.
    for (let attempt = 1; ; attempt++) {
      const stub = goalAnsweredBeforeWebhook();
      const result = await withRun(flow, stub, async (handle) => {
        await handOverCheckoutAndPurchase(handle, stub);
        // A failed workflow task would be retried for ever: the first one fails the test.
        const settled = await waitForHistoryEvent(handle, (event) => isWorkflowTaskFailure(event) || event.workflowExecutionCompletedEventAttributes != null, 20_000);
        expect(settled.workflowTaskFailedEventAttributes?.failure?.message).toBeUndefined();
        const state = await handle.result();
        await recordHistoryIfAsked(handle, 'experience-run-goal-during-local-step');
        return state;
      });
      // The webhook was sent: the path has it, whichever answer came first; the goal ended the run and rides on its end.
      expect(stub.calls.map((call) => call.name)).toEqual(['enter', 'save', 'evaluate', 'webhook', 'end']);
      const steps = result.path.map((step) => `${step.nodeId}:${step.outcome}`);
      expect([...steps].sort()).toEqual(['await:checkout iev_checkout', 'goal:bought:reached on purchase iev_purchase; exit', 'thanks:sent evt_thanks']);
      expect(result.status).toBe('goal_reached');
      expect(stub.named('end')).toEqual([expect.objectContaining({ endReason: 'goal_reached', goals: [expect.objectContaining({ goalId: 'bought' })] })]);
      // The goal first: it ended the flow while the webhook's step was in flight, which stayed on its node.
      if (steps[1]!.startsWith('goal:')) {
        expect(result.currentNodeId).toBe('thanks');
        return;
      }
      expect(attempt, 'the goal’s answer never reached the run before the webhook’s').toBeLessThan(3);
    }
  });

  it('continues as new while it waits, carrying its path, buffer and goals', async () => {
    // Local steps are one marker each: the run is 14 events long on wait1, and past 25 once the pings are in.
    const historyLimit = 25;
    const stub = stubActivities();
    const flow = definition({
      goals: [{ id: 'seen', eventType: 'ping', conditions: null, exit: false }],
      nodes: [
        { id: 'welcome', type: 'webhook', result: {}, next: 'wait1' },
        { id: 'wait1', type: 'wait', seconds: day, next: 'await' },
        { id: 'await', type: 'waitForEvent', eventType: 'ping', conditions: null, timeoutSeconds: day, next: 'wait2', timeoutNext: 'done' },
        { id: 'wait2', type: 'wait', seconds: day, next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const result = await withRun(
      flow,
      stub,
      async (handle) => {
        await reach(handle, 'wait1');
        // The first run hands over at wait2, after the events below: not yet while it sleeps on wait1.
        expect((await handle.describe()).historyLength).toBeLessThan(historyLimit);
        for (let i = 0; i < 5; i++) await handle.signal(runEvents, [event('ping', `iev_ping_${i}`)]);
        const state = await handle.result();
        const description = await handle.describe();
        const firstRunId = description.raw.workflowExecutionInfo?.firstRunId ?? undefined;
        expect(description.runId).not.toBe(firstRunId);
        await recordHistoryIfAsked(env.client.workflow.getHandle(handle.workflowId, firstRunId), 'experience-run-continued-as-new');
        await recordHistoryIfAsked(handle, 'experience-run-carried');
        return state;
      },
      { historyLimit },
    );
    expect(stub.named('goal')).toHaveLength(1);
    expect(stub.named('webhook')).toHaveLength(1);
    expect(result.path.map((step) => `${step.nodeId}:${step.outcome}`)).toEqual([
      'welcome:sent evt_welcome',
      'goal:seen:reached on ping iev_ping_0',
      `wait1:waited ${day} s`,
      'await:ping iev_ping_0',
      `wait2:waited ${day} s`,
      'done:exit',
    ]);
  });
});

/**
 * The time-skipping test server does not finish an update whose handler waits for the run to end, so the cancel
 * update runs on the dev server; the wait it cancels simply never fires there.
 */
describe('experienceRun workflow (dev server, stub activities)', () => {
  // On the dev server, whose workflow task handling is the production server's: a goal's step and the end are local
  // activities, which run again if their workflow task fails (ADR 0061, 0062): the task that completes the run fails
  // when the repeated purchase comes in meanwhile. What they publish has an id of its own, so only what they are
  // asked to publish counts here, as the outbox counts it.
  it('reaches an exit goal while waiting: the goal is announced once, the wait is cancelled, the run ends goal_reached', async () => {
    const stub = stubActivities();
    const flow = definition({
      goals: [{ id: 'purchased', eventType: 'purchase', conditions: null, exit: true }],
      nodes: [
        { id: 'wait1', type: 'wait', seconds: 10 * day, next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const result = await withRun(flow, stub, async (handle) => {
      await reach(handle, 'wait1');
      const purchase = event('purchase', 'iev_purchase');
      await handle.signal(runEvents, [purchase]);
      await handle.signal(runEvents, [purchase]);
      return handle.result();
    }, {}, devEnv);
    // Ended on the goal, not after the 10-day wait.
    expect(Date.parse(result.endedAt!) - Date.parse(result.path[0]!.at)).toBeLessThan(day * 1000);
    expect(result).toMatchObject({ status: 'goal_reached', endReason: 'goal_reached', currentNodeId: 'wait1' });
    expect(result.path.map((step) => step.nodeId)).toEqual(['goal:purchased']);
    // The end announces the exit goal (ADR 0061); each repeat of the end's step announces the same one.
    expect(stub.named('goal')).toEqual([]);
    expect(new Set(stub.named('end').flatMap((end) => end.goals.map((goal: { goalId: string; eventId: string }) => `${goal.goalId} on ${goal.eventId}`)))).toEqual(
      new Set(['purchased on iev_purchase']),
    );
    expect(new Set(stub.named('end').map((end) => end.endReason))).toEqual(new Set(['goal_reached']));
  });

  it('ends on the cancel update with reason cancelled, whatever node it is on', async () => {
    const stub = stubActivities();
    const flow = definition({ nodes: [{ id: 'wait1', type: 'wait', seconds: day, next: 'done' }, { id: 'done', type: 'exit' }] });
    await withRun(
      flow,
      stub,
      async (handle) => {
        await reach(handle, 'wait1');
        const cancelled = await handle.executeUpdate(cancelRun);
        expect(cancelled).toMatchObject({ status: 'cancelled', endReason: 'cancelled', currentNodeId: 'wait1', endedAt: expect.any(String) });
        expect(await handle.result()).toEqual(cancelled);
        await recordHistoryIfAsked(handle, 'experience-run-cancelled');
      },
      {},
      devEnv,
    );
    expect(stub.named('end')).toEqual([expect.objectContaining({ endReason: 'cancelled', detail: 'cancelled through the API' })]);
  });
});

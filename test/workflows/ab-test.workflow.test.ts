import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { abTestState, cancelAbTest, scheduleAbTest, withdrawAbTest, type AbTestWorkflow } from '../../workflows/ab-test.contract.ts';
import { abTestHandle, scheduleAbTestRun } from '../../src/temporal/starters/ab-test.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, startTimeSkippingEnvironment } from '../support/temporal-worker.ts';
import { until } from '../support/wait.ts';

const minute = 60_000;

/** Long windows run on the time-skipping server; the cancel update (which waits for the run to end) on the dev server. */
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

type Begin = { outcome: 'started'; audience: number; arms: { A: number; B: number; remainder: number }; expiryMinutes: number } | { outcome: 'failed'; reason: string };

/** Stub activities recording each call in order; `begin` decides what playTime finds. */
function stubActivities(begin: Begin, winner: 'A' | 'B' | null = 'B') {
  const calls: Array<{ name: string; input: any; at: number }> = [];
  // `at` is when the server scheduled the call: on the time-skipping server, the skipped-to time.
  const record = (name: string, input: any) => calls.push({ name, input, at: Context.current().info.scheduledTimestampMs });
  const activities = {
    async beginAbTest(input: unknown) {
      record('begin', input);
      return begin;
    },
    async sendAbTestArm(input: { arm: 'A' | 'B' | 'remainder' }) {
      record('send', input);
      return { sent: begin.outcome === 'started' ? begin.arms[input.arm] : 0, failed: 0 };
    },
    async readAbTestResults(input: unknown) {
      record('read', input);
      return { provisional: true };
    },
    async decideAbTest(input: unknown) {
      record('decide', input);
      return { winner, results: {} };
    },
    async completeAbTest(input: unknown) {
      record('complete', input);
    },
    async endAbTest(input: unknown) {
      record('end', input);
    },
  };
  return { activities, calls, names: () => calls.filter((call) => call.name !== 'read').map((call) => (call.name === 'send' ? `send ${call.input.arm}` : call.name)) };
}

async function withTest<T>(on: TestWorkflowEnvironment, stub: ReturnType<typeof stubActivities>, during: (handle: WorkflowHandle<AbTestWorkflow>, schedule: (playTime: number) => Promise<unknown>) => Promise<T>): Promise<T> {
  const taskQueue = `abtest-${randomUUID()}`;
  const worker = await Worker.create({
    connection: on.nativeConnection,
    namespace: on.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: stub.activities,
  });
  const testId = randomUUID();
  const input = { version: 1 as const, testId, accountId: randomUUID(), appId: randomUUID(), name: 'Workflow test' };
  return worker.runUntil(() =>
    during(abTestHandle(on, testId), (playTime) => scheduleAbTestRun({ client: on.client, taskQueue }, input, playTime)),
  );
}

const started = (expiryMinutes: number, remainder = 6): Begin => ({ outcome: 'started', audience: 6 + remainder, arms: { A: 3, B: 3, remainder }, expiryMinutes });

describe('abTest workflow (time-skipping, stub activities)', () => {
  it('waits for playTime (moved once), sends A and B, runs its 1440-minute window, decides and sends the winner', async () => {
    const stub = stubActivities(started(1440));
    const result = await withTest(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 120 * minute);
      // Moved earlier: the run follows the new playTime.
      const moved = await handle.executeUpdate(scheduleAbTest, { args: [{ playTime: now + 60 * minute }] });
      expect(moved).toMatchObject({ state: 'SCHEDULED', phase: 'scheduled', playTime: now + 60 * minute });
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'ab-test');
      const at = (name: string) => stub.calls.find((call) => call.name === name)!.at;
      expect(at('begin') - now).toBeGreaterThanOrEqual(60 * minute);
      expect(at('begin') - now).toBeLessThan(120 * minute);
      expect(at('decide') - at('begin')).toBeGreaterThanOrEqual(1440 * minute);
      return state;
    });
    expect(stub.names()).toEqual(['begin', 'send A', 'send B', 'decide', 'send remainder', 'complete']);
    expect(stub.calls.filter((call) => call.name === 'read').length).toBeGreaterThan(10);
    expect(result).toMatchObject({ state: 'COMPLETED', winner: 'B', audience: 12, sent: { A: 3, B: 3, remainder: 6 } });
  });

  it('sends nothing to the remainder without a winner, nor when the test takes the whole segment', async () => {
    const noWinner = stubActivities(started(30), null);
    await withTest(env, noWinner, async (handle, schedule) => {
      await schedule((await env.currentTimeMs()) + minute);
      expect(await handle.result()).toMatchObject({ state: 'COMPLETED', winner: null });
    });
    expect(noWinner.names()).toEqual(['begin', 'send A', 'send B', 'decide', 'complete']);

    const whole = stubActivities(started(30, 0), 'A');
    await withTest(env, whole, async (handle, schedule) => {
      await schedule((await env.currentTimeMs()) + minute);
      expect(await handle.result()).toMatchObject({ state: 'COMPLETED', winner: 'A' });
    });
    expect(whole.names()).toEqual(['begin', 'send A', 'send B', 'decide', 'complete']);
  });

  it('ends FAILED when the segment is too small at playTime, sending nothing', async () => {
    const stub = stubActivities({ outcome: 'failed', reason: 'at playTime the segment had 5 subscribed devices' });
    await withTest(env, stub, async (handle, schedule) => {
      await schedule((await env.currentTimeMs()) + minute);
      expect(await handle.result()).toMatchObject({ state: 'FAILED' });
    });
    expect(stub.names()).toEqual(['begin']);
  });

  it('waits without a timer once the schedule is withdrawn, and runs when scheduled again', async () => {
    const stub = stubActivities(started(10));
    await withTest(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 10 * minute);
      expect(await handle.executeUpdate(withdrawAbTest)).toMatchObject({ phase: 'waiting', playTime: null });
      expect((await handle.query(abTestState)).phase).toBe('waiting');
      await handle.executeUpdate(scheduleAbTest, { args: [{ playTime: now + 20 * minute }] });
      expect(await handle.result()).toMatchObject({ state: 'COMPLETED' });
    });
    expect(stub.names()[0]).toBe('begin');
  });
});

describe('abTest workflow (dev server, stub activities)', () => {
  it('cancels a running test: it stops, declares no winner, and refuses a change to its schedule', async () => {
    const stub = stubActivities(started(60));
    await withTest(devEnv, stub, async (handle, schedule) => {
      await schedule(Date.now() + 50);
      await until('the test to be running', () => handle.query(abTestState), (state) => state.phase === 'running', { timeoutMs: 5_000, intervalMs: 50 });
      await expect(handle.executeUpdate(withdrawAbTest)).rejects.toMatchObject({ cause: expect.objectContaining({ type: 'invalid_state' }) });
      const cancelled = await handle.executeUpdate(cancelAbTest);
      expect(cancelled).toMatchObject({ state: 'CANCELLED', winner: null, phase: 'ended' });
      expect(await handle.result()).toMatchObject({ state: 'CANCELLED' });
      await recordHistoryIfAsked(handle, 'ab-test-cancelled');
    });
    expect(stub.names()).toEqual(['begin', 'send A', 'send B', 'end']);
    expect(stub.calls.at(-1)!.input).toMatchObject({ state: 'CANCELLED' });
  });
});

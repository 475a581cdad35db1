import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  campaignSendState,
  cancelCampaignSend,
  messageReady,
  scheduleCampaignSend,
  type CampaignSendGroup,
  type CampaignSendInput,
  type CampaignSendWorkflow,
  type ScheduleCampaign,
} from '../../workflows/campaign-send.contract.ts';
import { pushTestWorkflowType, type PushTestWorkflow } from '../../workflows/push-test.contract.ts';
import { campaignSendHandle, scheduleCampaignRun } from '../../src/temporal/starters/campaign-send.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, startTimeSkippingEnvironment } from '../support/temporal-worker.ts';
import { until } from '../support/wait.ts';

const minute = 60_000;

/** Long waits run on the time-skipping server; the cancel update (which waits for the run to end) on the dev server. */
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

interface StubOptions {
  ready?: boolean;
  expiryMinutes?: number;
  shards?: number;
  /** The snapshot's groups, given the time the snapshot is taken (absent: the whole audience at once). */
  groups?: (now: number) => CampaignSendGroup[];
  /** The shard activity: resolves (sent) unless this throws. */
  shard?: (index: number) => Promise<void>;
  /** When each shard says the next push held by quiet hours is due, given the time it ran (absent: none held). */
  heldAfterShard?: (index: number, now: number) => number | null;
  /** What each look at the held pushes answers next, in turn (absent: none left). */
  heldLooks?: Array<(now: number) => number | null>;
}

/** Stub activities recording each call in order, with when the server scheduled it (on the time-skipping server, the skipped-to time). */
function stubActivities(options: StubOptions = {}) {
  const calls: Array<{ name: string; input: any; at: number }> = [];
  const record = (name: string, input: any) => calls.push({ name, input, at: Context.current().info.scheduledTimestampMs });
  const shards = options.shards ?? 3;
  const counts = { audience: 30, sent: 0, failed: 0, unregistered: 0, clicked: 0 };
  const activities = {
    async readCampaignMessage(input: unknown) {
      record('message', input);
      return { ready: options.ready ?? true, expiryMinutes: options.expiryMinutes ?? 1440 };
    },
    async beginCampaignSend(input: unknown) {
      record('begin', input);
      // As the real activity answers: a send not in local time is one group, at once.
      const groups = options.groups?.(Context.current().info.scheduledTimestampMs) ?? [
        { sendAt: null, utcOffsetMinutes: null, devices: 30, expired: false, shards: Array.from({ length: shards }, (_, shard) => shard) },
      ];
      return { outcome: 'started', audience: 30, shards, lanes: 2, startedAt: Date.now(), groups };
    },
    async sendCampaignShard(input: { shard: number }) {
      record('shard', input);
      await options.shard?.(input.shard);
      counts.sent += 10;
      return { nextHeld: options.heldAfterShard?.(input.shard, Context.current().info.scheduledTimestampMs) ?? null };
    },
    async sendHeldCampaignPushes(input: unknown) {
      record('held', input);
      const look = options.heldLooks?.shift();
      return { nextHeld: look?.(Context.current().info.scheduledTimestampMs) ?? null };
    },
    async readCampaignCounts(input: unknown) {
      record('counts', input);
      return counts;
    },
    async finishCampaignSend(input: { state: string; reason: string | null }) {
      record('finish', input);
      return { state: input.state, counts, finishedAt: Date.now(), reason: input.reason };
    },
    async sendTestPushes(input: { sendIds: string[] }) {
      record('test', input);
      return { sent: input.sendIds.length, failed: 0, unregistered: 0 };
    },
  };
  return { activities, calls, names: () => calls.filter((call) => call.name !== 'counts' && call.name !== 'message').map((call) => call.name) };
}

/** A shard that runs until cancelled, heartbeating as the engine does after each wave (cancellation arrives with a heartbeat). */
async function untilCancelled(): Promise<never> {
  const context = Context.current();
  for (;;) {
    context.heartbeat();
    await context.sleep(50);
  }
}

/** The run's current details, as the Temporal UI shows them under User Metadata. */
async function detailsOf(handle: WorkflowHandle): Promise<string> {
  const metadata: { currentDetails?: string } = await handle.query('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

const iso = (ms: number) => new Date(ms).toISOString();

type Schedule = (playTime: number, filterId?: string, more?: Partial<ScheduleCampaign>) => Promise<unknown>;

async function withRun<T>(
  on: TestWorkflowEnvironment,
  stub: ReturnType<typeof stubActivities>,
  during: (handle: WorkflowHandle<CampaignSendWorkflow>, schedule: Schedule, taskQueue: string) => Promise<T>,
  input: Partial<CampaignSendInput> = {},
): Promise<T> {
  const taskQueue = `campaign-${randomUUID()}`;
  const worker = await Worker.create({
    connection: on.nativeConnection,
    namespace: on.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: stub.activities,
  });
  const notificationId = randomUUID();
  const args = { version: 1 as const, notificationId, accountId: randomUUID(), appId: randomUUID(), title: 'Workflow test', ...input };
  const handle = campaignSendHandle(on, notificationId);
  const schedule: Schedule = (playTime, filterId = 'segment-1', more = {}) => scheduleCampaignRun({ client: on.client, taskQueue }, args, { playTime, filterId, ...more });
  try {
    return await worker.runUntil(() => during(handle, schedule, taskQueue));
  } catch (error) {
    // A run a failed test leaves open, its worker gone, would hold the time-skipping server's clock for the next tests.
    await handle.terminate('the test failed').catch(() => undefined);
    throw error;
  }
}

const hour = 60 * minute;

/** A local-time snapshot taken at `at`: +14:00 already expired, +10:00 an hour later, +08:00 (two shards) three hours later. */
const threeZones = (at: number): CampaignSendGroup[] => [
  { sendAt: at - 3 * hour, utcOffsetMinutes: 840, devices: 5, expired: true, shards: [0] },
  { sendAt: at + hour, utcOffsetMinutes: 600, devices: 10, expired: false, shards: [1] },
  { sendAt: at + 3 * hour, utcOffsetMinutes: 480, devices: 15, expired: false, shards: [2, 3] },
];

describe('campaignSend workflow (time-skipping, stub activities)', () => {
  it('waits for playTime (moved once, with its segment), then sends its shards two at a time and ends SENT', async () => {
    const stub = stubActivities({ shards: 3 });
    const result = await withRun(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 120 * minute);
      const moved = await handle.executeUpdate(scheduleCampaignSend, { args: [{ playTime: now + 60 * minute, filterId: 'segment-2' }] });
      expect(moved).toMatchObject({ state: 'SCHEDULED', playTime: now + 60 * minute, filterId: 'segment-2' });
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'campaign-send');
      const begin = stub.calls.find((call) => call.name === 'begin')!;
      expect(begin.at - now).toBeGreaterThanOrEqual(60 * minute);
      expect(begin.at - now).toBeLessThan(120 * minute);
      expect(begin.input).toMatchObject({ filterId: 'segment-2', playTime: now + 60 * minute });
      return state;
    });
    expect(stub.names()).toEqual(['begin', 'shard', 'shard', 'shard', 'finish']);
    expect(stub.calls.at(-1)!.input).toMatchObject({ state: 'SENT' });
    expect(result).toMatchObject({ state: 'SENT', audience: 30, sent: 30, shards: { done: 3, total: 3 } });
  });

  it('keeps the throttle its last schedule gave, and shows it', async () => {
    const stub = stubActivities({ shards: 2 });
    const result = await withRun(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      expect(await schedule(now + 60 * minute)).toMatchObject({ ratePerMinute: null });
      const throttled = await handle.executeUpdate(scheduleCampaignSend, { args: [{ playTime: now + 30 * minute, filterId: 'segment-1', ratePerMinute: 600 }] });
      expect(throttled).toMatchObject({ state: 'SCHEDULED', ratePerMinute: 600 });
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'campaign-send-throttled');
      return state;
    });
    expect(result).toMatchObject({ state: 'SENT', ratePerMinute: 600, shards: { done: 2, total: 2 } });
  });

  it('in local time, starts 14 hours before playTime and sends each group at its own time; an expired group never', async () => {
    const stub = stubActivities({ shards: 4, groups: threeZones });
    const { result, now } = await withRun(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 20 * hour, 'segment-1', { sendInLocalTime: true });
      const result = await handle.result();
      await recordHistoryIfAsked(handle, 'campaign-send-local-time');
      return { result, now };
    });
    const begin = stub.calls.find((call) => call.name === 'begin')!;
    expect(begin.at - now).toBeGreaterThanOrEqual(6 * hour);
    expect(begin.at - now).toBeLessThan(7 * hour);
    // Shard 1 (the +10:00 group) an hour in; shards 2 and 3 (+08:00) side by side, in either order, three hours in.
    const shardAt = new Map(stub.calls.filter((call) => call.name === 'shard').map((call) => [call.input.shard as number, call.at - begin.at]));
    expect([...shardAt.keys()].sort()).toEqual([1, 2, 3]);
    expect(shardAt.get(1)).toBeGreaterThanOrEqual(hour);
    expect(shardAt.get(1)).toBeLessThan(3 * hour);
    expect(shardAt.get(2)).toBeGreaterThanOrEqual(3 * hour);
    expect(shardAt.get(3)).toBeGreaterThanOrEqual(3 * hour);
    // Between groups the run waits on its timer alone: no count every 15 seconds for three hours.
    expect(stub.calls.filter((call) => call.name === 'counts').length).toBeLessThan(5);
    expect(result).toMatchObject({
      state: 'SENT',
      sendInLocalTime: true,
      shards: { done: 3, total: 4 },
      groups: [
        { utcOffsetMinutes: 840, devices: 5, state: 'expired' },
        { utcOffsetMinutes: 600, devices: 10, state: 'sent' },
        { utcOffsetMinutes: 480, devices: 15, state: 'sent' },
      ],
    });
  });

  it('shows a local-time send’s groups as groups in its details, each with its time and its shards', async () => {
    const stub = stubActivities({ shards: 4, groups: threeZones });
    const { between, ended, begunAt } = await withRun(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 20 * hour, 'segment-1', { sendInLocalTime: true });
      // The send starts 14 hours before playTime (6 hours from now); its +10:00 group an hour later, its +08:00 group
      // three hours later. Eight hours from now, the first group is sent and the run waits for the second.
      await env.sleep(8 * hour);
      const between = await until('the first group sent', () => detailsOf(handle), (details) => details.includes('1 of 2 groups sent'), { timeoutMs: 10_000, intervalMs: 50 });
      await handle.result();
      return { between, ended: await detailsOf(handle), begunAt: stub.calls.find((call) => call.name === 'begin')!.at };
    });
    const groupLines = (second: string, third: string) => [
      `- UTC+14:00 at ${iso(begunAt - 3 * hour)}: 5 devices in 1 shard, expired (its time plus the message’s expiry had passed): not sent`,
      `- UTC+10:00 at ${iso(begunAt + hour)}: 10 devices in 1 shard, ${second}`,
      `- UTC+08:00 at ${iso(begunAt + 3 * hour)}: 15 devices in 2 shards, ${third}`,
    ];
    expect(between.split('\n')).toEqual([
      `**SENDING** · 1 of 2 groups sent · next: UTC+08:00 at ${iso(begunAt + 3 * hour)}`,
      expect.stringMatching(/^audience: 30 · .* · groups 1\/2 sent, 1 expired · shards 1\/3$/),
      expect.stringMatching(/ in each device’s local time · segment segment-1$/),
      ...groupLines('sent', 'waiting'),
    ]);
    expect(ended.split('\n')).toEqual([
      '**SENT** · sent to 30 of 30 devices',
      'audience: 30 · sent 30 · failed 0 · unregistered 0 · groups 2/2 sent, 1 expired · shards 3/3',
      expect.stringMatching(/ in each device’s local time · segment segment-1$/),
      ...groupLines('sent', 'sent'),
    ]);
  });

  it('sends the pushes quiet hours held when they are due, looking once more after the last shard', async () => {
    let heldDue = 0;
    const stub = stubActivities({
      shards: 2,
      // The first shard holds pushes for two hours (each shard answers the send's earliest held push); the look when
      // they are due sends them and finds none left, and the last look after every shard finds none either.
      heldAfterShard: (_index, now) => (heldDue ||= now + 2 * hour),
      heldLooks: [() => null, () => null],
    });
    const result = await withRun(env, stub, async (handle, schedule) => {
      await schedule(await env.currentTimeMs());
      const result = await handle.result();
      await recordHistoryIfAsked(handle, 'campaign-send-quiet-hours');
      return result;
    });
    const looks = stub.calls.filter((call) => call.name === 'held');
    expect(looks).toHaveLength(2);
    expect(looks[0]!.at).toBeGreaterThanOrEqual(heldDue);
    expect(stub.names().at(-1)).toBe('finish');
    expect(result).toMatchObject({ state: 'SENT', shards: { done: 2, total: 2 } });
  });

  it('waits for the recording, past playTime, and sends as soon as the message is READY', async () => {
    const stub = stubActivities({ ready: false, expiryMinutes: 600 });
    await withRun(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 10 * minute);
      // The run shows SCHEDULED until it has read whether its message is READY.
      await until('the run to wait for the recording', () => handle.query(campaignSendState), (state) => state.state === 'WAITING_FOR_RECORDING', { timeoutMs: 10_000, intervalMs: 50 });
      await env.sleep(120 * minute);
      expect(stub.names()).toEqual([]);
      await handle.signal(messageReady);
      expect(await handle.result()).toMatchObject({ state: 'SENT' });
      expect(stub.calls.find((call) => call.name === 'begin')!.at - now).toBeGreaterThanOrEqual(120 * minute);
    });
  });

  it('ends EXPIRED, sending nothing, when the message is not READY by playTime + expiry', async () => {
    const stub = stubActivities({ ready: false, expiryMinutes: 30 });
    await withRun(env, stub, async (handle, schedule) => {
      const now = await env.currentTimeMs();
      await schedule(now + 10 * minute);
      const reason = 'the message’s recording was not accepted before playTime + expiry';
      expect(await handle.result()).toMatchObject({ state: 'EXPIRED', sent: 0, reason });
      expect(stub.calls.at(-1)!.at - now).toBeGreaterThanOrEqual(40 * minute);
      expect((await detailsOf(handle)).split('\n')[0]).toBe(`**EXPIRED** · expired: ${reason}; nothing was sent`);
    });
    expect(stub.names()).toEqual(['finish']);
    expect(stub.calls.at(-1)!.input).toMatchObject({ state: 'EXPIRED', reason: 'the message’s recording was not accepted before playTime + expiry' });
  });

  it.each([
    { sendInLocalTime: false, before: 6 * minute, reason: 'playTime + expiry passed before the send could start' },
    { sendInLocalTime: true, before: 12 * 60 * minute + 6 * minute, reason: 'playTime + expiry passed in every time zone before the send could start' },
  ])('ends EXPIRED at once, saying why, for a playTime already older than its expiry (local time: $sendInLocalTime)', async ({ sendInLocalTime, before, reason }) => {
    const stub = stubActivities({ expiryMinutes: 5 });
    await withRun(env, stub, async (handle, schedule) => {
      await schedule((await env.currentTimeMs()) - before, 'segment-1', { sendInLocalTime });
      expect(await handle.result()).toMatchObject({ state: 'EXPIRED', reason });
    });
    expect(stub.names()).toEqual(['finish']);
    expect(stub.calls.at(-1)!.input).toMatchObject({ state: 'EXPIRED', reason });
  });

  it('continues as new while a schedule keeps moving, carrying playTime, segment and readiness', async () => {
    const stub = stubActivities({ ready: false, expiryMinutes: 24 * 60 });
    await withRun(
      env,
      stub,
      async (handle, schedule) => {
        const now = await env.currentTimeMs();
        await schedule(now + 600 * minute);
        const first = await handle.describe();
        for (let move = 1; move <= 12; move++) {
          await handle.executeUpdate(scheduleCampaignSend, { args: [{ playTime: now + (600 + move) * minute, filterId: `segment-${move}` }] });
        }
        await handle.signal(messageReady);
        expect(await handle.result()).toMatchObject({ state: 'SENT', filterId: 'segment-12' });
        const last = await handle.describe();
        expect(last.runId).not.toBe(first.runId);
        expect(stub.calls.find((call) => call.name === 'begin')!.input).toMatchObject({ filterId: 'segment-12', playTime: now + 612 * minute });
      },
      { historyLimit: 20 },
    );
  });
});

describe('campaignSend workflow (dev server, stub activities)', () => {
  // On the dev server: the time-skipping server refuses to cancel an activity that completes at the same moment.
  it('ends FAILED when a shard fails for good, saying why, and starts no other shard', async () => {
    const stub = stubActivities({
      shard: async (index) => {
        if (index === 1) throw ApplicationFailure.nonRetryable('the notification is gone', 'not_found');
        await untilCancelled();
      },
    });
    await withRun(devEnv, stub, async (handle, schedule) => {
      await schedule(Date.now());
      const result = await handle.result();
      expect(result, JSON.stringify(result)).toMatchObject({ state: 'FAILED', reason: 'the notification is gone' });
    });
    expect(stub.calls.at(-1)!.input).toMatchObject({ state: 'FAILED', reason: 'the notification is gone' });
    // Two lanes: shard 0 (cancelled when shard 1 fails) and the failing shard 1; no other shard starts.
    expect(stub.names()).toEqual(['begin', 'shard', 'shard', 'finish']);
  });
  it('cancels a waiting send: nothing is sent, and the schedule refuses to move', async () => {
    const stub = stubActivities();
    await withRun(devEnv, stub, async (handle, schedule) => {
      await schedule(Date.now() + 3_600_000);
      const cancelled = await handle.executeUpdate(cancelCampaignSend);
      expect(cancelled).toMatchObject({ state: 'CANCELLED', sent: 0 });
      expect(await handle.result()).toMatchObject({ state: 'CANCELLED' });
      await recordHistoryIfAsked(handle, 'campaign-send-cancelled');
    });
    expect(stub.names()).toEqual(['finish']);
  });

  it('cancels mid-send: the shards under way are cancelled and no more start', async () => {
    let started = 0;
    const stub = stubActivities({
      shards: 6,
      shard: async () => {
        started++;
        await untilCancelled();
      },
    });
    await withRun(devEnv, stub, async (handle, schedule) => {
      await schedule(Date.now());
      await until('two shards under way', () => started >= 2, { timeoutMs: 10_000, intervalMs: 20 });
      await expect(handle.executeUpdate(scheduleCampaignSend, { args: [{ playTime: Date.now(), filterId: 'x' }] })).rejects.toMatchObject({
        cause: expect.objectContaining({ type: 'invalid_state' }),
      });
      expect(await handle.executeUpdate(cancelCampaignSend)).toMatchObject({ state: 'CANCELLED' });
    });
    expect(started).toBe(2);
    expect(stub.calls.at(-1)!.input).toMatchObject({ state: 'CANCELLED' });
  });

  it('runs a test send: one activity for its devices', async () => {
    const stub = stubActivities();
    const taskQueue = `push-test-${randomUUID()}`;
    const worker = await Worker.create({
      connection: devEnv.nativeConnection,
      namespace: devEnv.namespace ?? 'default',
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: stub.activities,
    });
    const sendIds = [randomUUID(), randomUUID()];
    const handle = await devEnv.client.workflow.start<PushTestWorkflow>(pushTestWorkflowType, {
      workflowId: `push-test:${randomUUID()}`,
      taskQueue,
      args: [{ version: 1, testId: randomUUID(), accountId: randomUUID(), appId: randomUUID(), notificationId: randomUUID(), sendIds }],
    });
    expect(await worker.runUntil(handle.result())).toEqual({ sent: 2, failed: 0, unregistered: 0 });
    await recordHistoryIfAsked(handle, 'push-test');
    expect(stub.names()).toEqual(['test']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaExceeded, unregistered, type FakeFcmSend } from '../../src/dev/fake-fcm.ts';
import { campaignSendWorkflowId, type CampaignSendWorkflow } from '../../workflows/campaign-send.contract.ts';
import { call, newAccount } from '../support/api.ts';
import {
  cancelSend,
  createMessage,
  getMessage,
  newAudience,
  pushesOf,
  pushStatusCounts,
  scheduleSend,
  sendsTo,
  startFcmSendPath,
  waitForSend,
  type FcmSendPath,
} from '../support/campaigns.ts';
import { ok } from '../support/http-assertions.ts';
import { freePort } from '../support/instances.ts';
import { sumOf, waitForMetrics } from '../support/metrics.ts';
import { temporalClient } from '../support/temporal.ts';

// Campaign sends through the real FCM provider, in a worker process of its own (PUSH_PROVIDER=fcm), to the fake FCM
// (src/dev/fake-fcm.ts), where the checks are on time at the scale of a loaded machine's delays (the pace, a throttle,
// a cancel mid-send): this file is one of vitest.config.ts's timingFiles. What each device gets, local time, quiet
// hours and the frequency cap are in test/api/campaigns-fcm-devices.test.ts; the sends on the suite's worker (the log
// provider) in test/api/campaigns.test.ts; a worker killed mid-send in test/crash/campaign-crash.test.ts.

let temporal: Awaited<ReturnType<typeof temporalClient>>;
beforeAll(async () => {
  temporal = await temporalClient();
});
afterAll(() => temporal?.close());

describe('campaign sends to FCM: the pace, Retry-After and gone tokens', () => {
  const waveSize = 5;
  const perMinute = 1200;
  let path: FcmSendPath;
  beforeAll(async () => {
    path = await startFcmSendPath({ fake: { keepBodies: true }, workerEnv: { FCM_CONCURRENCY: String(waveSize), FCM_MAX_PER_MINUTE: String(perMinute) } });
  });
  afterAll(() => path?.stop());

  it('sends each device one push within FCM_MAX_PER_MINUTE, waits out Retry-After, and unsubscribes the devices whose token is gone', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    const { segment, ids, tokens } = await newAudience(account, 100, 'paced');
    const gone = new Set(tokens.filter((_, index) => index % 25 === 7));
    // The first wave is refused whole, and two pushes of its retry too: seven refusals, each sent again once.
    const refusedFirst = 7;
    const retryAfterSeconds = 1;
    path.fake.answer((send) => (send.index < refusedFirst ? quotaExceeded(retryAfterSeconds) : gone.has(send.token) ? unregistered() : undefined));
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });

    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    const sent = await waitForSend(account, message.id, (send) => send.state === 'SENT');
    expect(sent).toMatchObject({ audience: 100, sent: 100 - gone.size, unregistered: gone.size, failed: 0 });

    // Every device once: the refused pushes were sent again, nothing else was.
    expect(path.fake.duplicates()).toBe(0);
    expect(path.fake.acceptedTokens()).toEqual(new Set(tokens.filter((token) => !gone.has(token))));
    expect(path.fake.received()).toBe(100 + refusedFirst);

    // The gone tokens' devices are unsubscribed, and their pushes counted unregistered.
    const unregisteredPushes = await pushesOf(account, message.id, '&status=unregistered');
    expect(unregisteredPushes.map((push) => push.deviceId).sort()).toEqual([...gone].map((token) => ids.get(token)).sort());
    for (const token of gone) expect(ok(await call('GET', `/device/get?id=${ids.get(token)}`, { token: account.apiKey })).subscribed).toBe(false);

    // The engine claims a wave only after reserving its FCM_CONCURRENCY slots in the project's pace (push_pace), and
    // the wave goes out when its slots begin: wave starts are at least waveSize × 60 000 / perMinute = 250 ms apart.
    // One shard is one sender, which reserves the next wave only once the last one is answered, so a wave's pushes
    // arrive between its start and the next wave's. A window just under four wave intervals (990 ms: Node's timers
    // may fire a millisecond early) then holds the starts of at most four waves, plus the tail of the wave begun
    // before it: 5 waves, 25 pushes. That is the cap's share of the window (19.8) and the one wave the design lets go
    // at once; without the pace, the 100 pushes would all go within a fraction of a second.
    const waveIntervalMs = (waveSize * 60_000) / perMinute;
    const windowMs = 4 * waveIntervalMs - 10;
    expect(path.fake.maxInWindow(windowMs)).toBeLessThanOrEqual(5 * waveSize);

    // Each refusal's Retry-After was waited out: no push of a later wave arrived sooner after it. Waves are the fake's
    // arrival order cut in waveSize: every wave but the last is full, and none is sent before the last is answered.
    const sends = path.fake.bodies();
    const waveOf = (send: FakeFcmSend) => Math.floor(send.index / waveSize);
    const timerSlackMs = 2;
    for (const refusal of sends.filter((send) => send.index < refusedFirst)) {
      const nextArrival = Math.min(...sends.filter((send) => waveOf(send) > waveOf(refusal)).map((send) => send.receivedAt));
      expect(nextArrival - refusal.receivedAt).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - timerSlackMs);
    }
  });
});

describe('campaign sends to FCM: a throttled send', () => {
  const ratePerMinute = 600;
  let path: FcmSendPath;
  beforeAll(async () => {
    // FCM's own pace (FCM_MAX_PER_MINUTE) is far above the send's throttle here: the throttle is the lower, and holds.
    path = await startFcmSendPath({ fake: { keepBodies: true }, workerEnv: { FCM_CONCURRENCY: '50', FCM_MAX_PER_MINUTE: '60000' } });
  });
  afterAll(() => path?.stop());

  it('spreads the pushes evenly at ratePerMinute, measured at the fake', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    const devices = 100;
    const { segment, tokens } = await newAudience(account, devices, 'throttled');
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, message.id, { playTime: Date.now(), ratePerMinute }));
    const sent = await waitForSend(account, message.id, (send) => send.state === 'SENT', 45_000);
    expect(sent).toMatchObject({ audience: devices, sent: devices, ratePerMinute });
    expect(path.fake.duplicates()).toBe(0);
    expect(path.fake.acceptedTokens()).toEqual(new Set(tokens));

    // The pushes of each wave one at a time, 91 ms apart, from the first second on: they arrived at the rate, within
    // 5 %, and no second held more than 13 (waves going out at once put 20 in the first). The sender may put 12 in a
    // second (a gap is 91 ms, and a timer may fire a ms early); the fake, in this busy test process behind TLS, may
    // stamp an arrival late enough to bunch it with the next, one more.
    const arrivals = sendsTo(path, tokens).map((send) => send.receivedAt).sort((a, b) => a - b);
    const measuredPerMinute = ((devices - 1) / (arrivals.at(-1)! - arrivals[0]!)) * 60_000;
    expect(Math.abs(measuredPerMinute / ratePerMinute - 1)).toBeLessThanOrEqual(0.05);
    const inSecondFrom = (start: number) => arrivals.filter((at) => at >= start && at < start + 1000).length;
    expect(Math.max(...arrivals.map(inSecondFrom))).toBeLessThanOrEqual(ratePerMinute / 60 + 3);
  });
});

describe('campaign sends to FCM: cancel mid-send', () => {
  const waveSize = 5;
  let path: FcmSendPath;
  let sdkMetricsUrl: string;
  beforeAll(async () => {
    const sdkMetricsPort = await freePort();
    sdkMetricsUrl = `http://127.0.0.1:${sdkMetricsPort}/metrics`;
    // A slow FCM: each wave takes 100 ms, so the send is under way for seconds.
    path = await startFcmSendPath({ fake: { delayMs: 100 }, workerEnv: { FCM_CONCURRENCY: String(waveSize), TEMPORAL_METRICS_PORT: String(sdkMetricsPort) } });
  });
  afterAll(() => path?.stop());

  it('sends at most the wave in flight once the cancel has answered, and leaves the rest unsent', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    const audience = 200;
    const { segment } = await newAudience(account, audience, 'cancelled');
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    await path.fake.waitForAccepted(5 * waveSize);

    const cancelled = ok(await cancelSend(account, message.id));
    const receivedAtCancel = path.fake.received();
    expect(cancelled.send).toMatchObject({ state: 'CANCELLED', reason: 'cancelled' });

    const run = await temporal.client.workflow.getHandle<CampaignSendWorkflow>(campaignSendWorkflowId(message.id)).result();
    expect(run.state).toBe('CANCELLED');
    // The run closes as soon as it has asked its shard activity to stop, without waiting for it (TRY_CANCEL): the
    // activity learns of it at its next heartbeat, or stops when its next claim finds the campaign CANCELLED. Once it
    // has returned (the worker's SDK metrics count it), nothing more can go out.
    await waitForMetrics(sdkMetricsUrl, (samples) => sumOf(samples, 'temporal_activity_execution_latency_count', { activity_type: 'sendCampaignShard' }) === 1);

    expect(path.fake.received() - receivedAtCancel).toBeLessThanOrEqual(waveSize);
    const accepted = path.fake.accepted();
    expect(accepted).toBeLessThan(audience - waveSize);
    // What the fake accepted is what is recorded sent; the rest was never claimed, and is marked cancelled.
    expect(await pushStatusCounts(message.id)).toEqual({ sent: accepted, cancelled: audience - accepted });
    expect((await getMessage(account, message.id)).send).toMatchObject({ state: 'CANCELLED', audience, sent: accepted, failed: 0, cancelled: audience - accepted });
  });
});

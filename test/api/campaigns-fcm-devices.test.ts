import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignSendWorkflowId, type CampaignSendWorkflow } from '../../workflows/campaign-send.contract.ts';
import { pushTestWorkflowId, type PushTestWorkflow } from '../../workflows/push-test.contract.ts';
import { call, newAccount } from '../support/api.ts';
import {
  cancelSend,
  createMessage,
  getMessage,
  newAudience,
  newStockMessage,
  pushesOf,
  scheduleSend,
  sendsTo,
  startFcmSendPath,
  testSend,
  waitForSend,
  type FcmSendPath,
} from '../support/campaigns.ts';
import { newSegment } from '../support/devices.ts';
import { ok } from '../support/http-assertions.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';

// Campaign and test sends through the real FCM provider, in a worker process of its own (PUSH_PROVIDER=fcm), to the
// fake FCM (src/dev/fake-fcm.ts), which tells what each device got: its texts and recording, and what local time,
// quiet hours and a frequency cap let through. Their checks on time are bounds a loaded machine cannot break (nothing
// before playTime or before quiet hours end), so this file runs beside the others; the pace, the throttle and a
// cancel mid-send are in test/api/campaigns-fcm.test.ts.

let temporal: Awaited<ReturnType<typeof temporalClient>>;
beforeAll(async () => {
  temporal = await temporalClient();
});
afterAll(() => temporal?.close());

/** Texts that differ from each other, so a push shows which of them it was built from. */
const texts = {
  title: 'Jingle of the week',
  subtitle: 'Fresh from the studio',
  text: 'Tap to hear it',
  fbTitle: 'A new jingle',
  fbSubtitle: 'From the stock',
  fbText: 'Open the app to hear it',
};

describe('campaign and test sends to FCM: what each device gets', () => {
  let path: FcmSendPath;
  beforeAll(async () => {
    path = await startFcmSendPath({ fake: { keepBodies: true }, workerEnv: { FCM_CONCURRENCY: '4' } });
  });
  afterAll(() => path?.stop());

  it('sends a from-stock message to each device of its segment once, from playTime on, with its fallback texts, its recording and the device’s send id', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    const { segment, ids, tokens, platformOf } = await newAudience(account, 20, 'stock');
    const { stock, message } = await newStockMessage(account, texts);
    expect(message).toMatchObject({ type: 'RICHPUSH', status: 'READY', filterId: null, recording: { url: stock.url } });
    const playTime = Date.now() + 5000;

    ok(await scheduleSend(account, message.id, { playTime, filterId: segment.id }));
    const sent = await waitForSend(account, message.id, (send) => send.state === 'SENT');
    expect(sent).toMatchObject({ audience: 20, sent: 20, failed: 0, unregistered: 0, filterId: segment.id });

    const sendIdOfDevice = new Map((await pushesOf(account, message.id)).map((push) => [push.deviceId, push.sendId]));
    const received = sendsTo(path, tokens);
    expect(received.map((send) => send.token).sort()).toEqual([...tokens].sort());
    for (const token of tokens) expect(path.fake.countFor(token)).toBe(1);
    for (const { token, message: pushed } of received) {
      // A READY rich message: the system shows the fallback texts; the app gets its own texts and the recording.
      expect(pushed.notification).toEqual({ title: texts.fbTitle, body: texts.fbText });
      expect(pushed.data).toMatchObject({
        sendId: sendIdOfDevice.get(ids.get(token)!),
        notificationId: message.id,
        type: 'RICHPUSH',
        action: 'Open',
        title: texts.title,
        subtitle: texts.subtitle,
        text: texts.text,
        recordingUrl: stock.url,
      });
      if (platformOf.get(token) === 'ios') {
        expect(pushed.apns?.payload.aps).toEqual({ alert: { title: texts.fbTitle, subtitle: texts.fbSubtitle, body: texts.fbText }, 'mutable-content': 1 });
        expect(pushed.android).toBeUndefined();
      } else {
        expect(pushed.android).toEqual({ priority: 'NORMAL', ttl: `${message.expiry * 60}s` });
        expect(pushed.apns).toBeUndefined();
      }
    }
    expect(new Set(received.map((send) => send.message.data?.sendId)).size).toBe(20);
    expect(Math.min(...received.map((send) => send.receivedAt))).toBeGreaterThanOrEqual(playTime);
  });

  it('test-sends a rich message that is not READY yet with its fallback texts, marked test, outside the message’s send', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    const { ids, tokens } = await newAudience(account, 3, 'tested');
    const message = await createMessage(account, { type: 'RICHPUSH', ...texts });
    expect(message.status).not.toBe('READY');
    const chosen = tokens.slice(0, 2);

    const tested = ok(await testSend(account, message.id, chosen.map((token) => ids.get(token)!)), 202);
    const outcome = await temporal.client.workflow.getHandle<PushTestWorkflow>(pushTestWorkflowId(tested.testId)).result();
    expect(outcome).toEqual({ sent: 2, failed: 0, unregistered: 0 });

    const sendIdOfDevice = new Map<string, string>(tested.sends.map((send: { deviceId: string; sendId: string }) => [send.deviceId, send.sendId]));
    const received = sendsTo(path, tokens);
    expect(received.map((send) => send.token).sort()).toEqual([...chosen].sort());
    for (const { token, message: pushed } of received) {
      // No recording yet: every device shows the fallback texts, and nothing asks the app to play one.
      expect(pushed.notification).toEqual({ title: texts.fbTitle, body: texts.fbText });
      expect(pushed.data).toMatchObject({ test: 'true', sendId: sendIdOfDevice.get(ids.get(token)!), notificationId: message.id, type: 'RICHPUSH' });
      expect(pushed.data).not.toHaveProperty('recordingUrl');
      expect(JSON.stringify(pushed)).not.toContain('mutable-content');
    }
    const pushes = await pushesOf(account, message.id);
    expect(pushes.map((push) => [push.sendId, push.source, push.status]).sort()).toEqual(
      tested.sends.map((send: { sendId: string }) => [send.sendId, 'test', 'sent']).sort(),
    );
    expect((await getMessage(account, message.id)).send).toMatchObject({ state: 'UNSCHEDULED', audience: null, sent: 0 });
  });
});

describe('campaign sends to FCM: local time and quiet hours', () => {
  let path: FcmSendPath;
  beforeAll(async () => {
    path = await startFcmSendPath({ fake: { keepBodies: true } });
  });
  afterAll(() => path?.stop());
  /** The tokens of `tokens` that reached the fake. */
  const reached = (tokens: string[]) => new Set(sendsTo(path, tokens).map((send) => send.token));
  const setApp = (account: Awaited<ReturnType<typeof newAccount>> & { baseUrl?: string }, body: Record<string, unknown>) =>
    call('PATCH', `/accounts/${account.accountId}/apps/${account.appId}`, { token: account.apiKey, baseUrl: account.baseUrl, body }).then(ok);
  /** HH:MM of an instant in UTC. */
  const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

  it('sends the group whose local time has come, counts the group past its expiry expired, and keeps the later one waiting', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    // Devices without a timezone take the app's.
    await setApp(account, { defaultTimezone: 'Pacific/Honolulu' });
    const zones = ['UTC', 'Asia/Tokyo', undefined];
    const { segment, tokens } = await newAudience(account, 12, 'local-time', (index) => (zones[index % 3] ? { timezone: zones[index % 3] } : {}));
    const tokensIn = (zone: number) => tokens.filter((_, index) => index % 3 === zone);
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id, expiry: 60 });
    // Now in UTC: 09:00 UTC, say. Tokyo's 09:00 was nine hours ago (past its hour of expiry); Honolulu's is ten hours on.
    ok(await scheduleSend(account, message.id, { playTime: Date.now(), sendInLocalTime: true }));
    const sending = await waitForSend(account, message.id, (send) => send.groups.some((group: any) => group.utcOffset === '+00:00' && group.state === 'sent'));
    expect(sending).toMatchObject({ state: 'SENDING', sendInLocalTime: true, audience: 12, sent: 4, expired: 4 });
    expect(sending.groups).toEqual([
      { utcOffset: '+09:00', sendAt: expect.any(String), devices: 4, sent: 0, state: 'expired' },
      { utcOffset: '+00:00', sendAt: expect.any(String), devices: 4, sent: 4, state: 'sent' },
      { utcOffset: '-10:00', sendAt: expect.any(String), devices: 4, sent: 0, state: 'waiting' },
    ]);
    const [tokyo, utc, honolulu] = sending.groups.map((group: any) => Date.parse(group.sendAt));
    expect(utc - tokyo).toBe(9 * 3_600_000);
    expect(honolulu - utc).toBe(10 * 3_600_000);
    expect(reached(tokens)).toEqual(new Set(tokensIn(0)));
    // The record is written by the group's last step; the run hears of it a moment later.
    const runState = () => temporal.client.workflow.getHandle<CampaignSendWorkflow>(campaignSendWorkflowId(message.id)).query<any>('state');
    await expect.poll(runState, { timeout: 10_000 }).toMatchObject({
      state: 'SENDING',
      groups: [{ state: 'expired' }, { state: 'sent' }, { state: 'waiting' }],
    });

    // The waiting group is the send's to cancel.
    const cancelled = ok(await cancelSend(account, message.id)).send;
    expect(cancelled).toMatchObject({ state: 'CANCELLED', sent: 4, expired: 4, cancelled: 4 });
    expect(cancelled.groups.map((group: any) => group.state)).toEqual(['expired', 'sent', 'cancelled']);
    expect(reached(tokens)).toEqual(new Set(tokensIn(0)));
  });

  it('applies them together with a throttle and a frequency cap: each device gets what its own controls allow', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    const now = Date.now();
    // Quiet now in UTC (skip); at most one push a day; devices without a zone are in Honolulu.
    await setApp(account, {
      defaultTimezone: 'Pacific/Honolulu',
      frequencyCap: { max: 1, hours: 24 },
      quietHours: { start: clock(now - 60_000), end: clock(now + 2 * 3_600_000), action: 'skip' },
    });
    // 0–3 in UTC (quiet now), 4–7 twelve hours ahead (their 09:00 was twelve hours ago, within a day's expiry), 8–11 in
    // Honolulu (ten hours to go). 4 and 5 have had their push of the day already.
    const zoneOf = (index: number) => (index < 4 ? { timezone: 'UTC' } : index < 8 ? { timezone: 'Etc/GMT-12' } : {});
    const { segment, tokens } = await newAudience(account, 12, 'together', (index) => ({ ...zoneOf(index), attributes: { group: 'together', n: index } }));
    const earlier = await createMessage(account, { type: 'PUSH', filterId: (await newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: 'together' }, { field: 'attributes.n', op: 'in', value: [4, 5] }] })).id });
    // That earlier send is not in local time: its devices are twelve hours ahead, outside the UTC quiet hours.
    ok(await scheduleSend(account, earlier.id, { playTime: Date.now() }));
    expect(await waitForSend(account, earlier.id, (send) => send.state === 'SENT')).toMatchObject({ sent: 2 });

    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id, expiry: 1440 });
    ok(await scheduleSend(account, message.id, { playTime: Date.now(), sendInLocalTime: true, ratePerMinute: 600 }));
    const sending = await waitForSend(account, message.id, (send) => send.groups.some((group: any) => group.utcOffset === '+00:00' && group.state === 'sent') && send.groups.some((group: any) => group.utcOffset === '+12:00' && group.state === 'sent'));
    expect(sending).toMatchObject({ state: 'SENDING', audience: 12, sent: 2, quiet: 4, capped: 2, ratePerMinute: 600 });
    expect(sending.groups.map((group: any) => [group.utcOffset, group.devices, group.sent, group.state])).toEqual([
      ['+12:00', 4, 2, 'sent'],
      ['+00:00', 4, 0, 'sent'],
      ['-10:00', 4, 0, 'waiting'],
    ]);
    // Each device reached the fake at most once across both sends: 4 and 5 by the first, 6 and 7 by the second.
    expect(reached(tokens)).toEqual(new Set([tokens[4], tokens[5], tokens[6], tokens[7]]));
    expect(path.fake.duplicates()).toBe(0);
    expect(ok(await cancelSend(account, message.id)).send).toMatchObject({ state: 'CANCELLED', cancelled: 4 });
  });

  it('skips the devices in quiet hours (action skip), recording them quiet', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    // Quiet now in UTC, for two hours; twelve hours ahead (Etc/GMT-12 is UTC+12) it is not.
    const now = Date.now();
    await setApp(account, { quietHours: { start: clock(now - 60_000), end: clock(now + 2 * 3_600_000), action: 'skip' } });
    const { segment, tokens } = await newAudience(account, 6, 'quiet-skip', (index) => ({ timezone: index % 2 ? 'Etc/GMT-12' : 'UTC' }));
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    expect(await waitForSend(account, message.id, (send) => send.state === 'SENT')).toMatchObject({ audience: 6, sent: 3, quiet: 3 });
    expect(reached(tokens)).toEqual(new Set(tokens.filter((_, index) => index % 2)));
    const quiet = await pushesOf(account, message.id, '&status=quiet');
    expect(quiet).toHaveLength(3);
    expect(quiet[0]!.error).toMatch(/^quiet hours \d\d:\d\d–\d\d:\d\d: not sent$/);
  });

  it('holds the devices in quiet hours (action delay) until they end, then sends them', { timeout: 150_000 }, async () => {
    const account = path.via(await newAccount());
    // Quiet hours that end at the next minute at least 30 s away, in UTC: the held pushes go then. (This file runs
    // beside others: the 30 s are for the first three pushes to go out before then, on a busy machine.)
    const now = Date.now();
    const end = Math.ceil((now + 30_000) / 60_000) * 60_000;
    await setApp(account, { quietHours: { start: clock(now - 60_000), end: clock(end), action: 'delay' } });
    const { segment, tokens } = await newAudience(account, 6, 'quiet-delay', (index) => ({ timezone: index % 2 ? 'Etc/GMT-12' : 'UTC' }));
    const held = tokens.filter((_, index) => index % 2 === 0);
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id, expiry: 60 });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));

    await until('the devices outside quiet hours to be sent', async () => reached(tokens).size, (size) => size === 3, { timeoutMs: 30_000, intervalMs: 100 });
    const waiting = await pushesOf(account, message.id, '&status=pending');
    expect(waiting).toHaveLength(3);
    expect(waiting[0]!.error).toBe(`quiet hours ${clock(now - 60_000)}–${clock(end)}: delayed until ${new Date(end).toISOString()}`);
    expect((await getMessage(account, message.id)).send).toMatchObject({ state: 'SENDING', sent: 3 });

    expect(await waitForSend(account, message.id, (send) => send.state === 'SENT', 110_000)).toMatchObject({ audience: 6, sent: 6, quiet: 0 });
    const heldArrivals = sendsTo(path, held).map((send) => send.receivedAt);
    expect(heldArrivals).toHaveLength(3);
    for (const arrival of heldArrivals) expect(arrival).toBeGreaterThanOrEqual(end);
    expect(path.fake.duplicates()).toBe(0);
  });
});

describe('campaign sends to FCM: a frequency cap', () => {
  let path: FcmSendPath;
  beforeAll(async () => {
    // Small waves, so the two sends' waves interleave and reach the devices they share at the same moments.
    path = await startFcmSendPath({ fake: { keepBodies: true, delayMs: 20 }, workerEnv: { FCM_CONCURRENCY: '5' } });
  });
  afterAll(() => path?.stop());

  it('holds under two sends started at once to overlapping audiences: each device gets one push, the rest are capped', { timeout: 60_000 }, async () => {
    const account = path.via(await newAccount());
    ok(await call('PATCH', `/accounts/${account.accountId}/apps/${account.appId}`, { token: account.apiKey, baseUrl: account.baseUrl, body: { frequencyCap: { max: 1, hours: 24 } } }));
    const everyone = await newAudience(account, 40, 'capped', (n) => ({ attributes: { group: 'capped', n } }));
    const segmentOf = (from: number, to: number) =>
      newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: 'capped' }, { field: 'attributes.n', op: 'gte', value: from }, { field: 'attributes.n', op: 'lt', value: to }] });
    // 0–29 and 10–39: devices 10–29 are in both.
    const first = await createMessage(account, { type: 'PUSH', filterId: (await segmentOf(0, 30)).id });
    const second = await createMessage(account, { type: 'PUSH', filterId: (await segmentOf(10, 40)).id });
    const now = Date.now();
    await Promise.all([first, second].map((message) => scheduleSend(account, message.id, { playTime: now }).then(ok)));
    const [one, two] = await Promise.all([first, second].map((message) => waitForSend(account, message.id, (send) => send.state === 'SENT', 45_000)));

    expect(path.fake.duplicates()).toBe(0);
    expect(path.fake.acceptedTokens()).toEqual(new Set(everyone.tokens));
    expect(one.sent + two.sent).toBe(40);
    expect(one.capped + two.capped).toBe(20);
    expect(one).toMatchObject({ audience: 30, sent: 30 - one.capped });
    expect(two).toMatchObject({ audience: 30, sent: 30 - two.capped });
    const capped = [...(await pushesOf(account, first.id, '&status=capped')), ...(await pushesOf(account, second.id, '&status=capped'))];
    expect(capped).toHaveLength(20);
    expect(capped[0]!.error).toBe('frequency cap: the device had 1 push(es) in the last 24 hour(s)');

    // A third send within the window reaches nobody; without the cap it would reach everyone.
    const third = await createMessage(account, { type: 'PUSH', filterId: everyone.segment.id });
    ok(await scheduleSend(account, third.id, { playTime: Date.now() }));
    expect(await waitForSend(account, third.id, (send) => send.state === 'SENT')).toMatchObject({ audience: 40, sent: 0, capped: 40 });
    expect(path.fake.duplicates()).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { cancelSend, createMessage, getMessage, newAudience, newStockMessage, pushesOf, scheduleSend, waitForSend } from '../support/campaigns.ts';
import { query } from '../support/db.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { newMessage, sampleJob } from '../support/jobs.ts';
import { temporalClient, waitForRunClosed } from '../support/temporal.ts';
import { newEndpoint } from '../support/webhooks.ts';
import { until } from '../support/wait.ts';
import { fileRow } from '../support/files.ts';

// Campaign sends through the API, on the suite's worker (the log provider: every push counts as sent). The sends to a
// fake FCM, the crash and the provider's pace are in test/api/campaigns-fcm.test.ts and test/crash/campaign-crash.test.ts.

const as = (account: TestAccount) => ({ token: account.apiKey });
let temporal: Awaited<ReturnType<typeof temporalClient>>;
beforeAll(async () => {
  temporal = await temporalClient();
});
afterAll(() => temporal.close());
const runOf = (workflowId: string) => temporal.client.workflow.getHandle(workflowId);
const campaignRows = async (notificationId: string) =>
  (await query<{ n: number }>(`select count(*)::int as n from push_sends where notification_id = $1 and source = 'campaign'`, [notificationId]))[0]!.n;

/** A RICHPUSH message with a job taken to SELECTED: `accept()` makes it READY. */
async function messageAwaitingAcceptance(account: TestAccount, fields: Record<string, unknown>) {
  const message = await createMessage(account, fields);
  const job = ok(await call('POST', '/job/create', { ...as(account), body: sampleJob(account, message.id) }), 201);
  ok(await call('POST', `/job/executeJob?id=${job.id}`, as(account)));
  const submitted = ok(await call('POST', `/job/recording?id=${job.id}`, { ...as(account), body: { fileId: (await fileRow(account)).fileId } }), 201);
  ok(await call('POST', `/richPush/select?file_id=${submitted.fileId}`, as(account)));
  return { message, accept: async () => ok(await call('POST', `/job/accept?id=${job.id}`, as(account))) };
}

describe('campaign sends', () => {
  it('sends a plain message to each device of its segment once, at playTime, and counts it', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { segment, ids } = await newAudience(account, 20);
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    const endpoint = await newEndpoint(account, ['message.sending', 'message.sent']);
    const playTime = Date.now() + 3000;

    const scheduled = ok(await scheduleSend(account, message.id, { playTime }));
    expect(scheduled.send).toMatchObject({ state: 'SCHEDULED', playTime, filterId: segment.id, audience: null, sent: 0 });
    const sent = await waitForSend(account, message.id, (send) => send.state === 'SENT');
    expect(sent).toMatchObject({ audience: 20, sent: 20, failed: 0, unregistered: 0, clicked: 0, ctr: 0, startedAt: expect.any(String), finishedAt: expect.any(String) });
    expect(Date.parse(sent.startedAt)).toBeGreaterThanOrEqual(playTime);

    const pushes = await pushesOf(account, message.id);
    expect(pushes.map((push) => push.deviceId).sort()).toEqual([...ids.values()].sort());
    expect(pushes.every((push) => push.source === 'campaign' && push.status === 'sent' && push.abTestId === null && push.arm === null)).toBe(true);

    // A click counts once, through the API or as an ingested event alike (the A/B tests check the event path).
    ok(await call('POST', '/push/click', { ...as(account), body: { sendId: pushes[0].sendId } }));
    ok(await call('POST', '/push/click', { ...as(account), body: { sendId: pushes[0].sendId } }));
    expect((await getMessage(account, message.id)).send).toMatchObject({ clicked: 1, ctr: 0.05 });

    // Sent once: the schedule cannot change, the send cannot be cancelled.
    expectError(await scheduleSend(account, message.id, { playTime: Date.now() + 60_000 }), 409, 'invalid_state');
    expectError(await cancelSend(account, message.id), 409, 'invalid_state');
    // The send reads SENT once the run's last activity commits; the run closes a workflow task later.
    await waitForRunClosed(temporal.client, `send:${message.id}`);
    const run = await runOf(`send:${message.id}`).describe();
    expect(run.status.name).toBe('COMPLETED');

    // Signed outbound events, as for every other event type: the send started, then ended.
    const received = (await endpoint.receiver.waitForRequests(2)).map((request) => JSON.parse(request.body));
    expect(received.map((event) => event.type).sort()).toEqual(['message.sending', 'message.sent']);
    expect(received.find((event) => event.type === 'message.sent').data.result).toEqual({
      notificationId: message.id,
      appId: account.appId,
      audience: 20,
      sent: 20,
      failed: 0,
      unregistered: 0,
    });
    await endpoint.receiver.close();
  });

  it('never sends a message that is not scheduled, whatever its filterId and playTime', async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 3);
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id, playTime: Date.now() - 1000 });
    expect((await getMessage(account, message.id)).send).toMatchObject({ state: 'UNSCHEDULED', playTime: null, audience: null, sent: 0 });
    await expect(runOf(`send:${message.id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(await campaignRows(message.id)).toBe(0);
  });

  it('waits for a rich message’s recording, then sends it once accepted', { timeout: 90_000 }, async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 4);
    const { message, accept } = await messageAwaitingAcceptance(account, { filterId: segment.id });

    ok(await scheduleSend(account, message.id, { playTime: Date.now() - 1000 }));
    expect((await getMessage(account, message.id)).send.state).toBe('WAITING_FOR_RECORDING');
    const run = runOf(`send:${message.id}`);
    await waitForRunState(run, 'WAITING_FOR_RECORDING');

    await accept();
    const sent = await waitForSend(account, message.id, (send) => send.state === 'SENT');
    expect(sent).toMatchObject({ audience: 4, sent: 4 });
    // The run's `state` query shows what GET /notification/get does, and its shards, once the run has ended: the
    // row says SENT as soon as it is written, a moment before the run takes the step.
    await run.result();
    const { shards, ...shown } = await run.query<any>('state');
    expect(shown).toEqual(sent);
    expect(shards).toEqual({ done: 1, total: 1 });
  });

  it('ends EXPIRED, sending nothing, when the recording is accepted after playTime + expiry', { timeout: 90_000 }, async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 3);
    const { message, accept } = await messageAwaitingAcceptance(account, { filterId: segment.id, expiry: 1 });
    const endpoint = await newEndpoint(account, ['message.expired']);

    ok(await scheduleSend(account, message.id, { playTime: Date.now() - 58_000 }));
    const expired = await waitForSend(account, message.id, (send) => send.state === 'EXPIRED');
    // An EXPIRED send says why.
    expect(expired).toMatchObject({ audience: null, sent: 0, finishedAt: expect.any(String), reason: 'the message’s recording was not accepted before playTime + expiry' });
    await accept();
    expect((await getMessage(account, message.id)).send.state).toBe('EXPIRED');
    expect(await campaignRows(message.id)).toBe(0);
    const [event] = (await endpoint.receiver.waitForRequests(1)).map((request) => JSON.parse(request.body));
    expect(event).toMatchObject({ type: 'message.expired', data: { result: { notificationId: message.id, audience: 0, sent: 0 } } });
    await endpoint.receiver.close();
  });

  it('moves a waiting send to another time and segment', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const first = await newAudience(account, 3, 'first');
    const second = await newAudience(account, 5, 'second');
    const message = await createMessage(account, { type: 'PUSH', filterId: first.segment.id });

    // Local time and a far playTime: the send would start 14 hours before it, so it stays SCHEDULED.
    const throttled = ok(await scheduleSend(account, message.id, { playTime: Date.now() + 86_400_000, ratePerMinute: 6000, sendInLocalTime: true }));
    expect(throttled.send).toMatchObject({ state: 'SCHEDULED', ratePerMinute: 6000, sendInLocalTime: true, groups: [] });
    expect(await runOf(`send:${message.id}`).query<any>('state')).toMatchObject({ ratePerMinute: 6000, sendInLocalTime: true });
    // A move changes what it names: the throttle and local time go only when the call says so.
    const moved = ok(await scheduleSend(account, message.id, { playTime: Date.now() + 1000, filterId: second.segment.id, ratePerMinute: null, sendInLocalTime: false }));
    expect(moved.send).toMatchObject({ state: 'SCHEDULED', filterId: second.segment.id, ratePerMinute: null, sendInLocalTime: false });
    expect(await waitForSend(account, message.id, (send) => send.state === 'SENT')).toMatchObject({ audience: 5, sent: 5 });
    const pushed = new Set((await pushesOf(account, message.id)).map((push) => push.deviceId));
    expect(pushed).toEqual(new Set(second.ids.values()));
  });

  it('moves only what a move names: the rest stays the waiting send’s own, not the message’s', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const first = await newAudience(account, 2, 'named-first');
    const second = await newAudience(account, 2, 'named-second');
    // A from-stock message has no segment of its own; this one's playTime is in the past.
    const { message } = await newStockMessage(account, { type: 'PUSH', playTime: Date.now() - 1000 });
    const dayAhead = Date.now() + 86_400_000;
    ok(await scheduleSend(account, message.id, { playTime: dayAhead, filterId: first.segment.id, ratePerMinute: 600, sendInLocalTime: true }));

    // Only playTime: the send keeps its segment (the message has none), its throttle and its local time.
    const later = dayAhead + 3_600_000;
    const movedTime = ok(await scheduleSend(account, message.id, { playTime: later }));
    expect(movedTime.send).toMatchObject({ state: 'SCHEDULED', playTime: later, filterId: first.segment.id, ratePerMinute: 600, sendInLocalTime: true });
    // Only filterId: the send keeps its time (not the message's past one, which would send at once) and the rest.
    const movedSegment = ok(await scheduleSend(account, message.id, { filterId: second.segment.id }));
    expect(movedSegment.send).toMatchObject({ state: 'SCHEDULED', playTime: later, filterId: second.segment.id, ratePerMinute: 600, sendInLocalTime: true });
    // The run waits on the same schedule.
    expect(await runOf(`send:${message.id}`).query<any>('state')).toMatchObject({
      state: 'SCHEDULED',
      playTime: later,
      filterId: second.segment.id,
      ratePerMinute: 600,
      sendInLocalTime: true,
    });
    ok(await cancelSend(account, message.id));
  });

  it('refuses a schedule that could never send (playTime plus expiry already past), and spends nothing', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 1);
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id, expiry: 60 });

    // Epoch seconds by mistake: a time in January 1970.
    const inSeconds = Math.floor(Date.now() / 1000);
    const refused = expectError(await scheduleSend(account, message.id, { playTime: inSeconds }), 422, 'play_time_expired');
    expect(refused.message).toContain(new Date(inSeconds).toISOString());
    expect(refused.message).toContain('epoch milliseconds');
    expect(refused.details).toEqual([{ path: 'body.playTime', message: expect.stringContaining('expiry (60 minutes)') }]);
    // Two hours ago, with an expiry of one hour: refused too; in local time its last zone still has ten hours to go.
    expectError(await scheduleSend(account, message.id, { playTime: Date.now() - 7_200_000 }), 422, 'play_time_expired');
    expect((await getMessage(account, message.id)).send).toMatchObject({ state: 'UNSCHEDULED', reason: null });
    await expect(runOf(`send:${message.id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    // The message can still be scheduled.
    const playTime = Date.now() + 3_600_000;
    expect(ok(await scheduleSend(account, message.id, { playTime })).send).toMatchObject({ state: 'SCHEDULED', playTime });
    ok(await cancelSend(account, message.id));

    // The message's own playTime, when the call gives none, is held to the same rule.
    const stale = await createMessage(account, { type: 'PUSH', filterId: segment.id, expiry: 1, playTime: Date.now() - 3_600_000 });
    const refusedStale = expectError(await scheduleSend(account, stale.id), 422, 'play_time_expired');
    expect(refusedStale.message).toMatch(/^The send’s playTime/);
    const localTime = ok(await scheduleSend(account, stale.id, { playTime: Date.now() - 3_600_000, sendInLocalTime: true }));
    expect(localTime.send).toMatchObject({ sendInLocalTime: true });
  });

  it('counts a conversion: the person’s purchase after their push, once, and not one from before it', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { segment, ids, tokens } = await newAudience(account, 3, 'converting', (index) => ({ clientUserId: `shopper-${index}` }));
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id, conversion: { eventType: 'purchase', withinHours: 24 } });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    await waitForSend(account, message.id, (send) => send.state === 'SENT');
    const connection = await newConnection(account);
    const purchases = [
      directEvent({ eventType: 'purchase', clientUserId: 'shopper-0' }),
      directEvent({ eventType: 'purchase', clientUserId: 'shopper-0' }),
      // Shopper 1 bought an hour before the push: not a conversion of it.
      directEvent({ eventType: 'purchase', clientUserId: 'shopper-1', occurredAt: new Date(Date.now() - 3_600_000).toISOString() }),
      // Shopper 2 did something else.
      directEvent({ eventType: 'signup', clientUserId: 'shopper-2' }),
    ];
    for (const purchase of purchases) {
      expect((await postSigned(connection, purchase)).status).toBe(202);
      await waitForEvent(account, purchase.messageId, 'PROCESSED');
    }
    const send = (await getMessage(account, message.id)).send;
    expect(send).toMatchObject({ sent: 3, conversions: 1 });
    expect(send.conversionRate).toBeCloseTo(1 / 3);
    const converted = (await pushesOf(account, message.id)).filter((push) => push.convertedAt !== null);
    expect(converted.map((push) => push.deviceId)).toEqual([ids.get(tokens[0]!)]);
  });

  it('cancels a send before playTime: nothing is sent, and the send cannot be scheduled again', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 3);
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() + 3_600_000 }));

    const cancelled = ok(await cancelSend(account, message.id));
    expect(cancelled.send).toMatchObject({ state: 'CANCELLED', sent: 0 });
    const result = await runOf(`send:${message.id}`).result();
    expect(result).toMatchObject({ state: 'CANCELLED', sent: 0 });
    expect(await campaignRows(message.id)).toBe(0);
    expectError(await cancelSend(account, message.id), 409, 'invalid_state');
    expectError(await scheduleSend(account, message.id), 409, 'invalid_state');
  });

  it('refuses a click at a time it cannot have happened, and counts none: before its push was sent, or in the future', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 2, 'clicking');
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    await waitForSend(account, message.id, (send) => send.state === 'SENT');
    const [first, second] = await pushesOf(account, message.id);
    const sentAt = Date.parse(first.sentAt);
    const click = (sendId: string, clickedAt?: number) =>
      call('POST', '/push/click', { ...as(account), body: { sendId, ...(clickedAt === undefined ? {} : { clickedAt: new Date(clickedAt).toISOString() }) } });

    // Beyond the 30 s of clock skew either way (docs/spec-decisions.md, "Clicks").
    const early = expectError(await click(first.sendId, sentAt - 3_600_000), 400, 'invalid_click_time');
    expect(early.message).toContain('before the push was sent');
    expect(early.details).toEqual([{ path: 'body.clickedAt', message: expect.stringContaining(first.sentAt) }]);
    const future = expectError(await click(first.sendId, Date.now() + 3_600_000), 400, 'invalid_click_time');
    expect(future.message).toContain('in the future');
    // An ingested click from before the send is not counted either.
    const connection = await newConnection(account);
    const earlyEvent = directEvent({ eventType: 'push.clicked', attributes: { sendId: second.sendId }, occurredAt: new Date(sentAt - 3_600_000).toISOString() });
    expect((await postSigned(connection, earlyEvent)).status).toBe(202);
    await waitForEvent(account, earlyEvent.messageId, 'PROCESSED');
    expect((await getMessage(account, message.id)).send).toMatchObject({ clicked: 0 });
    expect((await pushesOf(account, message.id)).map((push) => push.clickedAt)).toEqual([null, null]);

    // Within the skew, and after the send, a click counts.
    expect(ok(await click(first.sendId, sentAt - 1000)).clickedAt).toBe(new Date(sentAt - 1000).toISOString());
    ok(await click(second.sendId));
    expect((await getMessage(account, message.id)).send).toMatchObject({ clicked: 2 });
  });

  it('test-sends to chosen devices now, READY or not, without counting them in the send', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { ids } = await newAudience(account, 3);
    const notificationId = await newMessage(account);
    const [first, second] = [...ids.values()];

    const tested = ok(await call('POST', `/notification/test?id=${notificationId}&appId=${account.appId}`, { ...as(account), body: { deviceIds: [first, second] } }), 202);
    expect(tested.sends.map((send: any) => send.deviceId)).toEqual([first, second]);
    await runOf(`push-test:${tested.testId}`).result();
    const pushes = await pushesOf(account, notificationId, '&status=sent');
    expect(pushes.map((push) => push.sendId).sort()).toEqual(tested.sends.map((send: any) => send.sendId).sort());
    expect(pushes.every((push) => push.source === 'test')).toBe(true);
    expect((await getMessage(account, notificationId)).send).toMatchObject({ state: 'UNSCHEDULED', sent: 0 });
  });

  it('refuses what it cannot send, with a clear error', async () => {
    const account = await newAccount();
    const other = await newAccount();
    const { segment, ids } = await newAudience(account, 1);
    const noSegment = await createMessage(account, { type: 'PUSH' });
    expectError(await scheduleSend(account, noSegment.id), 422, 'segment_required');
    expectError(await scheduleSend(account, noSegment.id, { filterId: 'not-a-segment' }), 422, 'unknown_segment');
    expectError(await scheduleSend(other, noSegment.id, { filterId: segment.id }), 404, 'not_found');
    for (const ratePerMinute of [99, 1_000_001, 150.5, '600']) {
      const refusedRate = expectError(await scheduleSend(account, noSegment.id, { filterId: segment.id, ratePerMinute }), 400, 'validation_failed');
      expect(refusedRate.details!.map((detail: { path: string }) => detail.path)).toEqual(['body.ratePerMinute']);
    }
    for (const sendInLocalTime of ['true', 1, null]) {
      const refusedLocal = expectError(await scheduleSend(account, noSegment.id, { filterId: segment.id, sendInLocalTime }), 400, 'validation_failed');
      expect(refusedLocal.details!.map((detail: { path: string }) => detail.path)).toEqual(['body.sendInLocalTime']);
    }
    expectError(await call('POST', `/notification/schedule?id=${noSegment.id}&appId=${other.appId}`, { ...as(account), body: {} }), 404, 'not_found');
    expectError(await cancelSend(other, noSegment.id), 404, 'not_found');
    expectError(await call('GET', '/push/sends', as(account)), 400, 'validation_failed');
    expectError(await call('GET', `/push/sends?notificationId=${noSegment.id}`, as(other)), 404, 'not_found');
    const tooMany = Array.from({ length: 21 }, () => [...ids.values()][0]);
    expectError(await call('POST', `/notification/test?id=${noSegment.id}&appId=${account.appId}`, { ...as(account), body: { deviceIds: tooMany } }), 400, 'validation_failed');
    const foreign = await newAudience(other, 1);
    const refused = expectError(
      await call('POST', `/notification/test?id=${noSegment.id}&appId=${account.appId}`, { ...as(account), body: { deviceIds: [...foreign.ids.values()] } }),
      400,
      'validation_failed',
    );
    expect(refused.details).toEqual([{ path: 'body.deviceIds.0', message: 'is not a device of the message’s app' }]);
  });
});

async function waitForRunState(run: { query: <T>(name: string) => Promise<T> }, state: string): Promise<void> {
  await until(`the run to be ${state}`, () => run.query<any>('state'), (value) => value.state === state, { timeoutMs: 30_000 });
}

import { describe, expect, it } from 'vitest';
import { formatPlayTime } from '../../src/domain/abtests/play-time.ts';
import { call, newAccount } from '../support/api.ts';
import { registerDevices, newSegment } from '../support/devices.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { createMessage, startFcmSendPath, type Caller } from '../support/campaigns.ts';
import { newMessage } from '../support/jobs.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';

const as = (account: Caller) => ({ token: account.apiKey, baseUrl: account.baseUrl });
const get = async (account: Caller, id: string) => ok(await call('GET', `/abtest/get?id=${id}`, as(account)));
const update = (account: Caller, body: Record<string, unknown>) => call('PUT', '/abtest/update', { ...as(account), body });
const action = (account: Caller, verb: 'validate' | 'schedule' | 'cancel', id: string, method = 'POST') =>
  call(method, `/abtest/${verb}?id=${id}&appId=${account.appId}`, as(account));
/** A playTime `seconds` from now, written with a +01:00 offset the way the spec writes it. */
const playTimeIn = (seconds: number) => formatPlayTime(new Date(Date.now() + seconds * 1000), 60);

/** Polls the test until the predicate holds. */
const waitForTest = (account: Caller, id: string, predicate: (test: any) => boolean, timeoutMs = 120_000): Promise<any> =>
  until(`A/B test ${id} to match`, () => get(account, id), predicate, { timeoutMs, intervalMs: 250 });

const sendsOf = async (account: Caller, id: string, arm: string) => ok(await call('GET', `/push/sends?abTestId=${id}&arm=${arm}&limit=100`, as(account))).items;

/** An account with 20 devices: 12 in the segment `group = test`, 5 in `group = small`, 3 in neither. */
async function audience() {
  const account = await newAccount();
  const group = (index: number) => (index < 12 ? 'test' : index < 17 ? 'small' : 'other');
  await registerDevices(
    account,
    Array.from({ length: 20 }, (_, index) => ({ token: `ab-${index}`, platform: index % 2 ? 'ios' : 'android', attributes: { group: group(index) } })),
  );
  const segment = await newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: 'test' }] });
  const small = await newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: 'small' }] });
  const [messageA, messageB] = [await newMessage(account), await newMessage(account)];
  return { account, segment, small, messageA, messageB };
}

async function newTest(account: Caller, fields: Record<string, unknown>): Promise<any> {
  const created = ok(await call('POST', '/abtest/create', { ...as(account), body: { appId: account.appId, abTestName: 'Copy test', ...fields } }), 201);
  return created;
}

describe('A/B tests', () => {
  // These two wait out a test window of a minute (the least `expiry`), side by side.
  it.concurrent('runs the whole story: validate, schedule, send both arms, clicks on B only, winner B sent to the remainder', { timeout: 180_000 }, async () => {
    const { account, segment, small, messageA, messageB } = await audience();
    const created = await newTest(account, { description: 'A or B?', filterId: small.id, expiry: 1 });
    expect(created).toMatchObject({ state: 'NEW', companyId: account.accountId, expiry: 1, testPercent: 20, templateIdA: null, playTime: null });

    // A segment of 5 fails validation, with every failed check listed.
    ok(await update(account, { id: created.id, templateIdA: messageA, templateIdB: messageA, playTime: playTimeIn(-60), testPercent: 1 }));
    const refused = expectError(await action(account, 'validate', created.id), 422, 'abtest_not_valid');
    expect(refused.details!.map((detail: { path: string }) => detail.path).sort()).toEqual(['filterId', 'playTime', 'templateIdB', 'testPercent']);

    const playTime = playTimeIn(4);
    const updated = ok(await update(account, { id: created.id, filterId: segment.id, templateIdB: messageB, playTime, testPercent: 50, state: 'NEW', appId: account.appId, companyId: account.accountId }));
    expect(updated.playTime).toBe(playTime);
    const validated = ok(await action(account, 'validate', created.id, 'PUT'));
    expect(validated).toMatchObject({ state: 'VALIDATED', audience: { devices: 12 }, warnings: [expect.stringMatching(/too few/)] });
    expect(ok(await action(account, 'schedule', created.id))).toMatchObject({ state: 'SCHEDULED' });

    const running = await waitForTest(account, created.id, (test) => test.state === 'RUNNING' && test.results?.arms.B.sent === 3);
    expect(running.results).toMatchObject({ provisional: true, arms: { A: { devices: 3, sent: 3 }, B: { devices: 3, sent: 3 } }, remainder: { devices: 6, sent: 0 } });
    const [sendsA, sendsB] = [await sendsOf(account, created.id, 'A'), await sendsOf(account, created.id, 'B')];
    expect(sendsA.every((send: any) => send.notificationId === messageA && send.status === 'sent')).toBe(true);
    expect(sendsB.every((send: any) => send.notificationId === messageB && send.status === 'sent')).toBe(true);

    // Clicks on B only: two through the API (one twice: counted once), one reported as an ingested event.
    ok(await call('POST', '/push/click', { ...as(account), body: { sendId: sendsB[0].sendId } }));
    const again = ok(await call('POST', '/push/click', { ...as(account), body: { sendId: sendsB[0].sendId, clickedAt: new Date(Date.now() + 5000).toISOString() } }));
    expect(again.clickedAt).toBe(sendsB[0].clickedAt ?? again.clickedAt);
    ok(await call('POST', '/push/click', { ...as(account), body: { sendId: sendsB[1].sendId } }));
    const connection = await newConnection(account);
    const clicked = directEvent({ eventType: 'push.clicked', attributes: { sendId: sendsB[2].sendId } });
    await postSigned(connection, clicked);
    await waitForEvent(account, clicked.messageId, 'PROCESSED');
    expect((await get(account, created.id)).results.arms.B.clicks).toBe(3);

    const done = await waitForTest(account, created.id, (test) => test.state === 'COMPLETED');
    expect(done).toMatchObject({ winner: 'B', results: { provisional: false, winner: 'B', arms: { A: { clicks: 0, ctr: 0 }, B: { clicks: 3, ctr: 1 } }, remainder: { devices: 6, sent: 6 } } });
    expect(done.results.significance).toMatchObject({ test: 'fisher-exact', pValue: expect.any(Number) });
    const remainder = await sendsOf(account, created.id, 'remainder');
    expect(remainder).toHaveLength(6);
    expect(remainder.every((send: any) => send.notificationId === messageB && send.status === 'sent')).toBe(true);

    // A click after the decision is stored, but the decision stands.
    ok(await call('POST', '/push/click', { ...as(account), body: { sendId: sendsA[0].sendId } }));
    expect((await get(account, created.id)).results.arms.A.clicks).toBe(0);
    expectError(await action(account, 'cancel', created.id), 409, 'invalid_state');
    expectError(await update(account, { id: created.id, abTestName: 'late' }), 409, 'invalid_state');
  });

  it.concurrent('decides by conversions when asked, sending to FCM: the arm with the purchases wins, though the other has the clicks', { timeout: 180_000 }, async ({ onTestFinished }) => {
    const path = await startFcmSendPath({ fake: { keepBodies: true } });
    onTestFinished(() => path.stop());
    /** The ids of the messages the fake got for each of `tokens`, by token. */
    const receivedBy = (tokens: string[]) =>
      new Map(tokens.map((token) => [token, path.fake.bodies().filter((send) => send.token === token).map((send) => send.message.data?.notificationId)]));
    const account = path.via(await newAccount());
    const ids = await registerDevices(
      account,
      Array.from({ length: 12 }, (_, index) => ({ token: `conv-${index}`, platform: 'ios', clientUserId: `buyer-${index}`, attributes: { group: 'conv' } })),
    );
    const personOf = new Map([...ids].map(([token, id]) => [id, token.replace('conv-', 'buyer-')]));
    const segment = await newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: 'conv' }] });
    const conversion = { eventType: 'purchase', withinHours: 72 };
    const [messageA, messageB] = [await createMessage(account, { type: 'PUSH', conversion }), await createMessage(account, { type: 'PUSH', conversion })];
    expect(messageA.conversion).toEqual(conversion);
    const created = await newTest(account, { filterId: segment.id, expiry: 1, winnerMetric: 'conversion' });
    expect(created.winnerMetric).toBe('conversion');
    ok(await update(account, { id: created.id, templateIdA: messageA.id, templateIdB: messageB.id, playTime: playTimeIn(4), testPercent: 50 }));
    // The warning about small arms speaks of the metric that decides the test.
    const { warnings } = ok(await action(account, 'validate', created.id));
    expect(warnings).toEqual([expect.stringContaining('detecting a conversion rate change from 5% to 6%')]);
    expect(warnings[0]).not.toContain('CTR');
    ok(await action(account, 'schedule', created.id));
    await waitForTest(account, created.id, (test) => test.state === 'RUNNING' && test.results?.arms.A.sent === 3 && test.results?.arms.B.sent === 3);
    const [sendsA, sendsB] = [await sendsOf(account, created.id, 'A'), await sendsOf(account, created.id, 'B')];

    // Two clicks on A: A leads on click-through. Purchases by two of B's people (one of them twice: one conversion)
    // and by someone outside the test: B leads on conversions.
    for (const send of sendsA.slice(0, 2)) ok(await call('POST', '/push/click', { ...as(account), body: { sendId: send.sendId } }));
    const connection = await newConnection(account);
    const buyers = [personOf.get(sendsB[0].deviceId), personOf.get(sendsB[1].deviceId), personOf.get(sendsB[0].deviceId), 'not-in-the-test'];
    for (const clientUserId of buyers) {
      const purchase = directEvent({ eventType: 'purchase', clientUserId });
      expect((await postSigned(connection, purchase, { baseUrl: path.apiUrl })).status).toBe(202);
      await waitForEvent(account, purchase.messageId, 'PROCESSED');
    }
    expect((await get(account, created.id)).results).toMatchObject({ arms: { A: { clicks: 2, conversions: 0 }, B: { clicks: 0, conversions: 2 } } });

    const done = await waitForTest(account, created.id, (test) => test.state === 'COMPLETED');
    expect(done).toMatchObject({
      winner: 'B',
      results: {
        winner: 'B',
        metric: 'conversion',
        arms: { A: { clicks: 2, conversions: 0, conversionRate: 0 }, B: { clicks: 0, ctr: 0, conversions: 2 } },
        remainder: { devices: 6, sent: 6 },
      },
    });
    expect(done.results.arms.A.ctr).toBeCloseTo(2 / 3);
    expect(done.results.arms.B.conversionRate).toBeCloseTo(2 / 3);
    // The run's details in the Temporal UI say what decided it, and each arm's clicks and conversions.
    const temporal = await temporalClient();
    try {
      // The test reads COMPLETED once the run's last step has written it, a moment before the run shows it and ends.
      const run = temporal.client.workflow.getHandle(`abtest:${created.id}`);
      await run.result();
      const { currentDetails } = await run.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      expect(currentDetails).toContain('**COMPLETED** · winner B by conversion rate');
      expect(currentDetails).toContain('decided by conversion rate · A: 2 of 3 sent clicked, 0 converted · B: 0 of 3 sent clicked, 2 converted');
    } finally {
      await temporal.close();
    }
    const converted = (await sendsOf(account, created.id, 'B')).filter((send: any) => send.convertedAt !== null);
    expect(converted.map((send: any) => send.deviceId).sort()).toEqual([sendsB[0].deviceId, sendsB[1].deviceId].sort());
    const remainder = await sendsOf(account, created.id, 'remainder');
    expect(remainder.every((send: any) => send.notificationId === messageB.id)).toBe(true);

    // At FCM: each device of the segment got one push, its arm's message, or the winner's for the remainder.
    const tokenOf = new Map([...ids].map(([token, id]) => [id, token]));
    const expected = new Map<string, string[]>();
    for (const send of sendsA) expected.set(tokenOf.get(send.deviceId)!, [messageA.id]);
    for (const send of [...sendsB, ...remainder]) expected.set(tokenOf.get(send.deviceId)!, [messageB.id]);
    expect(expected.size).toBe(12);
    expect(receivedBy([...ids.keys()])).toEqual(expected);
  });

  it('returns a validated or scheduled test to NEW on any change, and reschedules it', { timeout: 60_000 }, async () => {
    const { account, segment, messageA, messageB } = await audience();
    const test = await newTest(account, { filterId: segment.id });
    ok(await update(account, { id: test.id, templateIdA: messageA, templateIdB: messageB, playTime: playTimeIn(3600) }));
    ok(await action(account, 'validate', test.id));
    expect(ok(await update(account, { id: test.id, description: 'changed' })).state).toBe('NEW');
    expectError(await action(account, 'schedule', test.id), 409, 'invalid_state');
    ok(await action(account, 'validate', test.id));
    expect(ok(await action(account, 'schedule', test.id, 'PUT')).state).toBe('SCHEDULED');
    // A change before playTime withdraws the schedule; validate and schedule again move it.
    expect(ok(await update(account, { id: test.id, playTime: playTimeIn(7200) })).state).toBe('NEW');
    ok(await action(account, 'validate', test.id));
    expect(ok(await action(account, 'schedule', test.id))).toMatchObject({ state: 'SCHEDULED', playTime: expect.any(String) });
    expect(ok(await action(account, 'cancel', test.id))).toMatchObject({ state: 'CANCELLED', winner: null });
    expectError(await action(account, 'cancel', test.id), 409, 'invalid_state');
  });

  it('cancels a running test: it stops and declares no winner', { timeout: 90_000 }, async () => {
    const { account, segment, messageA, messageB } = await audience();
    const test = await newTest(account, { filterId: segment.id, expiry: 60 });
    ok(await update(account, { id: test.id, templateIdA: messageA, templateIdB: messageB, playTime: playTimeIn(3), testPercent: 100 }));
    ok(await action(account, 'validate', test.id));
    ok(await action(account, 'schedule', test.id));
    await waitForTest(account, test.id, (found) => found.state === 'RUNNING' && found.results?.arms.B.sent === 6);
    const cancelled = ok(await action(account, 'cancel', test.id));
    expect(cancelled).toMatchObject({ state: 'CANCELLED', winner: null });
    expect((await get(account, test.id)).results).toMatchObject({ provisional: true, winner: null, remainder: { devices: 0, sent: 0 } });
  });

  it('answers 400 for a bad body, 404 for another account’s test, and lists by state', async () => {
    const { account, segment } = await audience();
    expectError(await call('POST', '/abtest/create', { ...as(account), body: { appId: account.appId } }), 400, 'validation_failed');
    // Out of the business range is for validate to report; out of what can be stored is a 400 at once.
    expectError(await call('POST', '/abtest/create', { ...as(account), body: { appId: account.appId, abTestName: 'x', expiry: 1e12 } }), 400, 'validation_failed');
    expect((await call('POST', '/abtest/create', { ...as(account), body: { appId: account.appId, abTestName: 'x', expiry: 50_000 } })).status).toBe(201);
    const test = await newTest(account, { filterId: segment.id });
    const bad = expectError(await update(account, { id: test.id, playTime: '2026-02-30T10:00:00.000+0100', state: 'RUNNING' }), 400, 'validation_failed');
    expect(bad.details!.map((detail: { path: string }) => detail.path).sort()).toEqual(['body.playTime', 'body.state']);
    expectError(await update(account, { id: test.id, companyId: '00000000-0000-4000-8000-000000000000' }), 400, 'validation_failed');
    const stranger = await newAccount();
    expectError(await call('GET', `/abtest/get?id=${test.id}`, as(stranger)), 404, 'not_found');
    expectError(await action(stranger, 'validate', test.id), 404, 'not_found');
    const listed = ok(await call('GET', `/abtest/list?appId=${account.appId}&state=NEW`, as(account)));
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(test.id);
    expect(listed.items.every((item: { state: string }) => item.state === 'NEW')).toBe(true);
    const cancelled = ok(await call('GET', `/abtest/list?appId=${account.appId}&state=CANCELLED`, as(account)));
    expect(cancelled.items).toEqual([]);
  });

  it('refuses expiry 0 (or less) at create with 400 body.expiry, and makes no test', async () => {
    const account = await newAccount();
    for (const expiry of [0, -5]) {
      const refused = expectError(await call('POST', '/abtest/create', { ...as(account), body: { appId: account.appId, abTestName: 'No time', expiry } }), 400, 'validation_failed');
      expect(refused.details).toEqual([{ path: 'body.expiry', message: expect.stringMatching(/at least 1/) }]);
    }
    expect(ok(await call('GET', `/abtest/list?appId=${account.appId}`, as(account))).items).toEqual([]);
    expect(await newTest(account, { expiry: 1 })).toMatchObject({ expiry: 1 });
  });

  it('takes playTime in the spec’s form or as epoch milliseconds, answers the spec’s form, and says the form when refusing', async () => {
    const account = await newAccount();
    const test = await newTest(account, {});
    expect(ok(await update(account, { id: test.id, playTime: '2026-11-20T10:00:00.000+0100' })).playTime).toBe('2026-11-20T10:00:00.000+0100');
    // Epoch milliseconds, as on messages: answered in the spec's form, in UTC.
    const epoch = Date.parse('2026-11-20T09:00:00.000Z');
    expect(ok(await update(account, { id: test.id, playTime: epoch })).playTime).toBe('2026-11-20T09:00:00.000+0000');
    expect((await get(account, test.id)).playTime).toBe('2026-11-20T09:00:00.000+0000');

    for (const wrong of ['20.11.2026 10:00', '2026-11-20 10:00:00', '2026-11-20T10:00:00.000+01', 'tomorrow', '', 1.5, -1, 1e20, true, {}]) {
      const refused = expectError(await update(account, { id: test.id, playTime: wrong }), 400, 'validation_failed');
      expect(refused.details, JSON.stringify(wrong)).toHaveLength(1);
      const [detail] = refused.details!;
      expect(detail!.path).toBe('body.playTime');
      expect(detail!.message).toContain('e.g. 2026-11-20T10:00:00.000+0100');
      expect(detail!.message).toContain('epoch milliseconds');
      // No raw regular expression.
      expect(detail!.message).not.toMatch(/pattern|\\d|\/\^/);
    }
    expect((await get(account, test.id)).playTime).toBe('2026-11-20T09:00:00.000+0000');
  });
});

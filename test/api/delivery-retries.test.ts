import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { temporalClient } from '../support/temporal.ts';
import { startReceiver, type Responder, type TestReceiver } from '../support/receiver.ts';
import { newEndpoint, waitForDeliveries, type EndpointFixture } from '../support/webhooks.ts';
import {
  expectNoMoreRequests,
  getEndpoint,
  sendTest,
  verifyWith,
  waitForEventsSettled,
  waitForFinishedDelivery,
  webhookHeaders,
} from '../support/deliveries.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { publishEvent, type PublishDeps } from '../../src/domain/events/publish-event.ts';

// The tests run concurrently, each on its own account and receivers; every test closes its receivers when it ends.
type TestCleanup = Pick<TestContext, 'onTestFinished'>;
const closeWhenDone = (t: TestCleanup, receiver: Pick<TestReceiver, 'close'>) => t.onTestFinished(async () => {
    await receiver.close();
  });

/** An endpoint of the account whose receiver answers as the responder says. */
async function scriptedEndpoint(t: TestCleanup, account: TestAccount, responder: Responder, eventTypes = ['webhook.test']): Promise<EndpointFixture> {
  const fixture = await newEndpoint(account, eventTypes, responder);
  closeWhenDone(t, fixture.receiver);
  return fixture;
}
/** Answers each request in turn from `replies`, then 200 "ok". */
const inTurn =
  (...replies: ReturnType<Responder>[]): Responder =>
  (_request, index) =>
    replies[index] ?? { status: 200, body: 'ok' };

const delivery = inject('delivery');

describe.concurrent('envelope and signature on every attempt', () => {
  it('sends the same webhook-id with a fresh timestamp and a valid signature on each attempt', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 500 }));
    const before = Math.floor(Date.now() / 1000);
    const eventId = await sendTest(account, endpoint.endpointId);
    expect(eventId).toMatch(/^evt_/);

    const requests = await endpoint.receiver.waitForRequests(2);
    const after = Math.ceil(Date.now() / 1000);
    const envelopes = requests.map((request) => verifyWith(endpoint.secret, request));
    const headers = requests.map(webhookHeaders);

    for (const [index, request] of requests.entries()) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(headers[index]!['webhook-id']).toBe(eventId);
      expect(headers[index]!['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      expect(headers[index]!['webhook-timestamp']).toMatch(/^\d+$/);
      const timestamp = Number(headers[index]!['webhook-timestamp']);
      expect(timestamp).toBeGreaterThanOrEqual(before);
      expect(timestamp).toBeLessThanOrEqual(after);
      // Signed when the attempt was made, not when the event was published.
      expect(Math.abs(timestamp - Math.floor(request.receivedAt / 1000))).toBeLessThanOrEqual(1);
    }
    expect(Number(headers[1]!['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(headers[0]!['webhook-timestamp']));
    // The bytes are the same on every attempt; only the timestamp and so the signature are new.
    expect(requests[1]!.body).toBe(requests[0]!.body);

    expect(envelopes[0]).toEqual({
      id: eventId,
      type: 'webhook.test',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      accountId: account.accountId,
      data: { result: expect.objectContaining({ endpointId: endpoint.endpointId }) },
    });
    expect(Math.abs(Date.parse(envelopes[0].timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('signs each attempt for its own timestamp: a later attempt’s signature does not match an earlier timestamp', async (t) => {
    const account = await newAccount();
    // Long enough between the attempts that the Unix second changes.
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 503, headers: { 'retry-after': '1' } }));
    await sendTest(account, endpoint.endpointId);
    const [first, second] = await endpoint.receiver.waitForRequests(2);
    const [h1, h2] = [webhookHeaders(first!), webhookHeaders(second!)];
    expect(Number(h2['webhook-timestamp'])).toBeGreaterThan(Number(h1['webhook-timestamp']));
    expect(h2['webhook-signature']).not.toBe(h1['webhook-signature']);
    verifyWith(endpoint.secret, first!);
    verifyWith(endpoint.secret, second!);
  });
});

describe.concurrent('retry classes', () => {
  it('retries a 500 and succeeds on the second attempt', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 500, body: 'boom' }));
    const eventId = await sendTest(account, endpoint.endpointId);

    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2, lastStatusCode: 200, failureReason: null, completedAt: expect.any(String) });
    expect(done.attempts).toEqual([
      expect.objectContaining({ attemptNumber: 1, statusCode: 500, error: null, responseBody: 'boom', outcome: 'retry' }),
      expect.objectContaining({ attemptNumber: 2, statusCode: 200, error: null, responseBody: 'ok', outcome: 'delivered' }),
    ]);
    for (const attempt of done.attempts) {
      expect(attempt.startedAt).toMatch(/Z$/);
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(Date.parse(done.attempts[1].startedAt)).toBeGreaterThan(Date.parse(done.attempts[0].startedAt));
    const ids = endpoint.receiver.requests.map((request) => request.headers['webhook-id']);
    expect(ids).toEqual([eventId, eventId]);
    await expectNoMoreRequests(endpoint.receiver, 2, account);
  });

  it('retries a 408 Request Timeout', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 408 }));
    const eventId = await sendTest(account, endpoint.endpointId);
    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(done.attempts.map((attempt: any) => [attempt.statusCode, attempt.outcome])).toEqual([
      [408, 'retry'],
      [200, 'delivered'],
    ]);
  });

  it('records a reply slower than the timeout as a timed-out attempt, then retries', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 200, body: 'too late', delayMs: 2_500 }));
    const eventId = await sendTest(account, endpoint.endpointId);

    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    const [timedOut, delivered] = done.attempts;
    expect(timedOut).toMatchObject({ attemptNumber: 1, statusCode: null, responseBody: null, outcome: 'error' });
    expect(timedOut.error).toMatch(/time(d)? ?out/i);
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(delivery.timeoutMs - 100);
    expect(timedOut.durationMs).toBeLessThan(2_500);
    expect(delivered).toMatchObject({ attemptNumber: 2, statusCode: 200, outcome: 'delivered' });
  });

  it('counts an answer whose body is still arriving at the timeout as timed out, not delivered', async (t) => {
    const account = await newAccount();
    // Headers at once, then the body stalls past the timeout on the first request; later requests are answered at once.
    let served = 0;
    const stalling = createServer({ cert: inject('receiverCert'), key: inject('receiverKey') }, (req, res) => {
      req.resume();
      req.on('end', () => {
        served++;
        res.writeHead(200, { 'content-type': 'text/plain' });
        if (served > 1) return void res.end('ok');
        res.write('partial ');
        setTimeout(() => res.end('rest'), 2_500).unref();
      });
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    closeWhenDone(t, { close: () => new Promise<void>((resolve) => (stalling.closeAllConnections(), stalling.close(() => resolve()))) });
    const url = `https://localhost:${(stalling.address() as { port: number }).port}/hooks`;
    const created = await call('POST', `/accounts/${account.accountId}/endpoints`, { token: account.apiKey, body: { url, eventTypes: ['webhook.test'] } });
    expect(created.status).toBe(201);

    const eventId = await sendTest(account, created.body.endpointId);
    const done = await waitForFinishedDelivery(account, created.body.endpointId, eventId);
    expect(done.attempts[0]).toMatchObject({ attemptNumber: 1, statusCode: null, outcome: 'error', error: expect.stringMatching(/timed out/) });
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });

  it('records connection errors and fails after the last attempt', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn());
    // Nothing listens on the endpoint's port any more.
    await endpoint.receiver.close();
    const eventId = await sendTest(account, endpoint.endpointId);

    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'failed', attemptCount: delivery.maxAttempts, lastStatusCode: null, failureReason: expect.any(String) });
    expect(done.attempts).toHaveLength(delivery.maxAttempts);
    done.attempts.forEach((attempt: any, index: number) => {
      expect(attempt).toMatchObject({ attemptNumber: index + 1, statusCode: null, responseBody: null, outcome: 'error' });
      expect(attempt.error).toMatch(/ECONNREFUSED/);
    });
    expect(done.failureReason).toMatch(/ECONNREFUSED/);
    // Still enabled: a few failures are not a reason to disable.
    expect((await getEndpoint(account, endpoint.endpointId)).body.status).toBe('enabled');
  });

  it('fails after the last attempt when the receiver keeps answering 500', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, () => ({ status: 500 }));
    const eventId = await sendTest(account, endpoint.endpointId);
    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'failed', attemptCount: delivery.maxAttempts, lastStatusCode: 500, failureReason: expect.stringContaining('500') });
    expect(done.attempts.map((attempt: any) => attempt.attemptNumber)).toEqual([1, 2, 3, 4]);
    expect(endpoint.receiver.requests).toHaveLength(delivery.maxAttempts);
    // The normal schedule: initial interval, then growing by the backoff coefficient.
    const times = endpoint.receiver.requests.map((request) => request.receivedAt);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(delivery.retryInitialMs * 0.8);
    expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(delivery.retryInitialMs * delivery.retryBackoff ** 2 * 0.8);
    await expectNoMoreRequests(endpoint.receiver, delivery.maxAttempts, account);
  });

  it.for([429, 503])('waits for Retry-After on a %i before the next attempt', async (status, t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status, headers: { 'retry-after': '2' } }));
    const eventId = await sendTest(account, endpoint.endpointId);

    const [first, second] = await endpoint.receiver.waitForRequests(2);
    // The normal schedule would retry after 200 ms.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1_800);
    expect(second!.receivedAt - first!.receivedAt).toBeLessThan(10_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(done.attempts[0]).toMatchObject({ statusCode: status, outcome: 'retry' });
  });

  it('retries a 429 without Retry-After on the normal schedule', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 429 }));
    await sendTest(account, endpoint.endpointId);
    const [first, second] = await endpoint.receiver.waitForRequests(2);
    expect(second!.receivedAt - first!.receivedAt).toBeLessThan(1_500);
  });

  it.for([404, 400])('does not retry a %i: failed after exactly one attempt', async (status, t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, () => ({ status, body: 'no such hook' }));
    const eventId = await sendTest(account, endpoint.endpointId);

    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: status, failureReason: expect.stringContaining(String(status)) });
    expect(done.attempts).toEqual([expect.objectContaining({ attemptNumber: 1, statusCode: status, outcome: 'rejected', responseBody: 'no such hook' })]);
    await expectNoMoreRequests(endpoint.receiver, 1, account);
    // A rejection is not the receiver asking us to stop.
    expect((await getEndpoint(account, endpoint.endpointId)).body.status).toBe('enabled');
  });

  it('does not follow a 301 redirect: the Location target receives nothing and the delivery fails after one attempt', async (t) => {
    const account = await newAccount();
    const elsewhere = await startReceiver();
    closeWhenDone(t, elsewhere);
    const endpoint = await scriptedEndpoint(t, account, () => ({ status: 301, headers: { location: elsewhere.url } }));
    const eventId = await sendTest(account, endpoint.endpointId);

    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: 301 });
    expect(done.attempts).toEqual([expect.objectContaining({ statusCode: 301, outcome: 'rejected' })]);
    await expectNoMoreRequests(endpoint.receiver, 1, account);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('disables the endpoint on a 410 Gone, fails the delivery, and sends nothing more', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, () => ({ status: 410 }));
    const eventId = await sendTest(account, endpoint.endpointId);

    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: 410, failureReason: expect.stringContaining('410') });
    expect(done.attempts).toEqual([expect.objectContaining({ statusCode: 410, outcome: 'gone' })]);

    const shown = await getEndpoint(account, endpoint.endpointId);
    expect(shown.body).toMatchObject({ status: 'disabled', disabledReason: expect.stringContaining('410') });
    await expectNoMoreRequests(endpoint.receiver, 1, account);

    const refused = await call('POST', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/test`, { token: account.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');
  });

  it('tells another subscribed endpoint of the account that a 410 disabled an endpoint', async (t) => {
    const account = await newAccount();
    const gone = await scriptedEndpoint(t, account, () => ({ status: 410 }));
    const watcher = await scriptedEndpoint(t, account, inTurn(), ['endpoint.disabled']);
    const bystander = await scriptedEndpoint(t, account, inTurn(), ['webhook.test']);
    // Another account's subscriber hears nothing.
    const otherAccount = await newAccount();
    const stranger = await scriptedEndpoint(t, otherAccount, inTurn(), ['endpoint.disabled']);

    await sendTest(account, gone.endpointId);
    const [notice] = await watcher.receiver.waitForRequests(1);
    const envelope = verifyWith(watcher.secret, notice!);
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'endpoint.disabled',
      timestamp: expect.any(String),
      accountId: account.accountId,
      data: { result: expect.objectContaining({ endpointId: gone.endpointId, url: gone.receiver.url, reason: expect.stringContaining('410') }) },
    });
    expect(notice!.headers['webhook-id']).toBe(envelope.id);

    // The test event, the endpoint.disabled it caused, and their deliveries: all over, so the counts are final.
    await waitForEventsSettled([account.accountId, otherAccount.accountId]);
    expect(watcher.receiver.requests).toHaveLength(1);
    expect(bystander.receiver.requests).toHaveLength(0);
    expect(stranger.receiver.requests).toHaveLength(0);
    expect(gone.receiver.requests).toHaveLength(1);
  });
});

describe.concurrent('delivery log', () => {
  it.for([201, 202, 204])('counts a %i as delivered', async (status, t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, () => ({ status }));
    const eventId = await sendTest(account, endpoint.endpointId);
    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 1, lastStatusCode: status });
    expect(done.attempts).toEqual([expect.objectContaining({ statusCode: status, outcome: 'delivered', responseBody: '' })]);
  });

  // Postgres text cannot hold U+0000: the stored body replaces it, and the 200 still counts as delivered.
  it('records an answer whose body holds a NUL byte, and counts its 200 as delivered', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, () => ({ status: 200, body: 'ok\u0000binary' }));
    const eventId = await sendTest(account, endpoint.endpointId);
    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 1, lastStatusCode: 200 });
    expect(done.attempts).toEqual([expect.objectContaining({ attemptNumber: 1, statusCode: 200, outcome: 'delivered' })]);
    expect(done.attempts[0].responseBody).toBe('ok\uFFFDbinary');
    expect(endpoint.receiver.requests).toHaveLength(1);
  });

  it('keeps only the first 4 KB of a response body', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, () => ({ status: 200, body: 'x'.repeat(10 * 1024) }));
    const eventId = await sendTest(account, endpoint.endpointId);
    const done = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(done.status).toBe('succeeded');
    expect(done.attempts[0].responseBody).toHaveLength(4096);
    expect(done.attempts[0].responseBody).toBe('x'.repeat(4096));
  });

  it('filters by status and walks every delivery with limit=1 and the cursor', async (t) => {
    const account = await newAccount();
    // The second event is rejected, the others delivered; events are sent one after another.
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 200 }, { status: 404 }, { status: 200 }));
    const eventIds: string[] = [];
    for (let index = 0; index < 3; index++) {
      const eventId = await sendTest(account, endpoint.endpointId);
      await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
      eventIds.push(eventId);
    }
    const base = `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/deliveries`;

    const succeeded = await call('GET', `${base}?status=succeeded`, { token: account.apiKey });
    expect(succeeded.status).toBe(200);
    expect(succeeded.body.items.map((item: any) => item.eventId)).toEqual([eventIds[2], eventIds[0]]);
    expect(succeeded.body.nextCursor).toBeNull();
    const failed = await call('GET', `${base}?status=failed`, { token: account.apiKey });
    expect(failed.body.items.map((item: any) => item.eventId)).toEqual([eventIds[1]]);
    expect(failed.body.items[0].attempts).toEqual([expect.objectContaining({ statusCode: 404, outcome: 'rejected' })]);
    const pending = await call('GET', `${base}?status=pending`, { token: account.apiKey });
    expect(pending.body).toEqual({ items: [], nextCursor: null });

    const walked: any[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const response: any = await call('GET', `${base}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: account.apiKey });
      expect(response.status).toBe(200);
      expect(response.body.items.length).toBeLessThanOrEqual(1);
      walked.push(...response.body.items);
      cursor = response.body.nextCursor;
      if (!cursor) break;
    }
    expect(walked.map((item) => item.eventId)).toEqual([...eventIds].reverse());
    expect(new Set(walked.map((item) => item.deliveryId)).size).toBe(3);
    for (const item of walked) {
      expect(item).toMatchObject({ endpointId: endpoint.endpointId, eventType: 'webhook.test', attempts: [expect.any(Object)] });
    }

    const filteredPage = await call('GET', `${base}?status=succeeded&limit=1`, { token: account.apiKey });
    expect(filteredPage.body.items.map((item: any) => item.eventId)).toEqual([eventIds[2]]);
    const filteredNext = await call('GET', `${base}?status=succeeded&limit=1&cursor=${encodeURIComponent(filteredPage.body.nextCursor)}`, {
      token: account.apiKey,
    });
    expect(filteredNext.body.items.map((item: any) => item.eventId)).toEqual([eventIds[0]]);
    expect(filteredNext.body.nextCursor).toBeNull();
  });

  it('rejects a bad status filter, limit or cursor with 400', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn());
    const base = `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/deliveries`;
    for (const suffix of ['?status=lost', '?limit=0', '?limit=101', '?cursor=not-a-cursor']) {
      const response = await call('GET', `${base}${suffix}`, { token: account.apiKey });
      expect(response.status, suffix).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
    }
  });
});

describe.concurrent('redelivery', () => {
  it('sends a delivered event again under the same id, as a new delivery pointing at the original', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn());
    const eventId = await sendTest(account, endpoint.endpointId);
    const original = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(original.status).toBe('succeeded');

    const redelivered = await call('POST', `/accounts/${account.accountId}/deliveries/${original.deliveryId}/redeliver`, { token: account.apiKey });
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({
      deliveryId: expect.stringMatching(/^dlv_/),
      eventId,
      endpointId: endpoint.endpointId,
      redeliveryOf: original.deliveryId,
      status: 'pending',
    });
    expect(redelivered.body.deliveryId).not.toBe(original.deliveryId);

    const [first, second] = await endpoint.receiver.waitForRequests(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verifyWith(endpoint.secret, second!).id).toBe(eventId);
    expect(second!.body).toBe(first!.body);

    const items = await waitForDeliveries(account, endpoint.endpointId, (all) =>
      all.some((item) => item.deliveryId === redelivered.body.deliveryId && item.status === 'succeeded'),
    );
    expect(items).toHaveLength(2);
    expect(items.find((item) => item.deliveryId === redelivered.body.deliveryId)).toMatchObject({
      redeliveryOf: original.deliveryId,
      attemptCount: 1,
      attempts: [expect.objectContaining({ attemptNumber: 1, statusCode: 200 })],
    });
    // The original is untouched.
    expect(items.find((item) => item.deliveryId === original.deliveryId)).toMatchObject({ status: 'succeeded', attemptCount: 1, redeliveryOf: null });
  });

  it('redelivers a failed delivery through the endpoint-scoped alias', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn({ status: 400 }));
    const eventId = await sendTest(account, endpoint.endpointId);
    const original = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);
    expect(original.status).toBe('failed');

    const base = `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/deliveries`;
    const redelivered = await call('POST', `${base}/${original.deliveryId}/redeliver`, { token: account.apiKey });
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ eventId, redeliveryOf: original.deliveryId });

    const [first, second] = await endpoint.receiver.waitForRequests(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    await waitForDeliveries(account, endpoint.endpointId, (all) =>
      all.some((item) => item.deliveryId === redelivered.body.deliveryId && item.status === 'succeeded'),
    );
  });

  it('answers 404 for a delivery of another endpoint on the alias, and 409 when the endpoint is disabled', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn());
    const other = await scriptedEndpoint(t, account, inTurn());
    const eventId = await sendTest(account, endpoint.endpointId);
    const original = await waitForFinishedDelivery(account, endpoint.endpointId, eventId);

    const wrongEndpoint = await call('POST', `/accounts/${account.accountId}/endpoints/${other.endpointId}/deliveries/${original.deliveryId}/redeliver`, {
      token: account.apiKey,
    });
    expect(wrongEndpoint.status).toBe(404);

    const disabled = await call('PATCH', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}`, {
      token: account.apiKey,
      body: { status: 'disabled' },
    });
    expect(disabled.status).toBe(200);
    const refused = await call('POST', `/accounts/${account.accountId}/deliveries/${original.deliveryId}/redeliver`, { token: account.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');
    await expectNoMoreRequests(endpoint.receiver, 1, account);
  });
});

describe.concurrent('publishing', () => {
  let orm: Orm;
  let closeClient: () => Promise<void>;
  let deps: () => PublishDeps;

  beforeAll(async () => {
    orm = await connectOrm(inject('databaseUrl'), 2);
    const temporal = await temporalClient();
    closeClient = temporal.close;
    deps = () => ({ em: orm.em.fork(), temporal: { client: temporal.client, taskQueue: inject('taskQueue') }, delivery: inject('delivery') });
  });
  afterAll(async () => {
    await closeClient?.();
    await orm?.close();
  });

  const uniqueEventId = () => `evt_dup_${randomBytes(12).toString('base64url')}`;

  it('delivers an event published twice under the same id once', async (t) => {
    const account = await newAccount();
    const endpoint = await scriptedEndpoint(t, account, inTurn(), ['job.assigned']);
    const eventId = uniqueEventId();
    const input = { eventId, accountId: account.accountId, type: 'job.assigned' as const, data: { result: { jobId: 'job-1' } } };

    expect(await publishEvent(deps(), input)).toEqual({ eventId });
    expect(await publishEvent(deps(), { ...input, data: { result: { jobId: 'job-1-again' } } })).toEqual({ eventId });

    const [request] = await endpoint.receiver.waitForRequests(1);
    const envelope = verifyWith(endpoint.secret, request!);
    expect(envelope).toMatchObject({ id: eventId, type: 'job.assigned', data: { result: { jobId: 'job-1' } } });
    await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.status === 'succeeded');

    // Once more after the first delivery has finished.
    expect(await publishEvent(deps(), input)).toEqual({ eventId });
    await expectNoMoreRequests(endpoint.receiver, 1, account);
    expect(await query('select id from deliveries where event_id = $1', [eventId])).toHaveLength(1);
    expect(await query('select id from outbound_events where id = $1', [eventId])).toHaveLength(1);
  });

  it('delivers an event only to enabled, live endpoints subscribed to its type', async (t) => {
    const account = await newAccount();
    const subscribed = await scriptedEndpoint(t, account, inTurn(), ['job.accepted', 'job.cancelled']);
    const otherType = await scriptedEndpoint(t, account, inTurn(), ['job.cancelled']);
    const deleted = await scriptedEndpoint(t, account, inTurn(), ['job.accepted']);
    const disabled = await scriptedEndpoint(t, account, inTurn(), ['job.accepted']);
    expect((await call('DELETE', `/accounts/${account.accountId}/endpoints/${deleted.endpointId}`, { token: account.apiKey })).status).toBe(204);
    const patched = await call('PATCH', `/accounts/${account.accountId}/endpoints/${disabled.endpointId}`, {
      token: account.apiKey,
      body: { status: 'disabled' },
    });
    expect(patched.status).toBe(200);

    const { eventId } = await publishEvent(deps(), { accountId: account.accountId, type: 'job.accepted', data: { result: { jobId: 'job-2' } } });
    await waitForEventsSettled([account.accountId]);
    expect(subscribed.receiver.requests).toHaveLength(1);
    expect(otherType.receiver.requests).toHaveLength(0);
    expect(deleted.receiver.requests).toHaveLength(0);
    expect(disabled.receiver.requests).toHaveLength(0);
    const rows = await query('select endpoint_id from deliveries where event_id = $1', [eventId]);
    expect(rows.map((row) => row.endpoint_id)).toEqual([subscribed.endpointId]);
  });
});

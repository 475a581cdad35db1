import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { startReceiver, type TestReceiver } from '../support/receiver.ts';
import { rejectedUrls } from '../support/samples.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';
import {
  expectNoMoreRequests,
  getEndpoint,
  sendTest,
  sendTestEvent,
  verifyWith,
  waitForEventsSettled,
  waitForFinishedDelivery,
  webhookHeaders,
} from '../support/deliveries.ts';

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
const track = (fixture: EndpointFixture) => (receivers.push(fixture.receiver), fixture);
const receiver = async () => {
  const started = await startReceiver();
  receivers.push(started);
  return started;
};

const endpointsPath = (account: TestAccount) => `/accounts/${account.accountId}/endpoints`;
const createEndpoint = (account: TestAccount, body: unknown) => call('POST', endpointsPath(account), { token: account.apiKey, body });
const patchEndpoint = (account: TestAccount, endpointId: string, body: unknown) =>
  call('PATCH', `${endpointsPath(account)}/${endpointId}`, { token: account.apiKey, body });

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('endpoint registration', () => {
  it('registers an endpoint and returns its whsec_ secret once', async () => {
    const account = await newAccount();
    const target = await receiver();
    const created = await createEndpoint(account, { url: target.url, eventTypes: ['webhook.test', 'job.assigned'], description: 'CRM sync' });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      endpointId: expect.stringMatching(/^ep_/),
      url: target.url,
      eventTypes: ['webhook.test', 'job.assigned'],
      status: 'enabled',
      description: 'CRM sync',
      disabledReason: null,
      createdAt: expect.stringMatching(isoUtc),
      updatedAt: expect.stringMatching(isoUtc),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
    });
    expect(Buffer.from(created.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(Math.abs(Date.parse(created.body.createdAt) - Date.now())).toBeLessThan(60_000);
  });

  it('defaults the description to null and de-duplicates event types', async () => {
    const account = await newAccount();
    const target = await receiver();
    const created = await createEndpoint(account, { url: target.url, eventTypes: ['webhook.test', 'webhook.test'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ description: null, eventTypes: ['webhook.test'] });
  });

  it('issues a different secret for every endpoint', async () => {
    const account = await newAccount();
    const first = track(await newEndpoint(account));
    const second = track(await newEndpoint(account));
    expect(first.secret).not.toBe(second.secret);
    expect(first.endpointId).not.toBe(second.endpointId);
  });

  it('lists and gets endpoints without any secret', async () => {
    const account = await newAccount();
    const older = track(await newEndpoint(account, ['webhook.test']));
    const newer = track(await newEndpoint(account, ['endpoint.disabled']));

    const list = await call('GET', endpointsPath(account), { token: account.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.endpoints.map((endpoint: any) => endpoint.endpointId)).toEqual([newer.endpointId, older.endpointId]);
    expect(list.body.endpoints[0]).toEqual({
      endpointId: newer.endpointId,
      url: newer.receiver.url,
      eventTypes: ['endpoint.disabled'],
      status: 'enabled',
      description: null,
      disabledReason: null,
      createdAt: expect.stringMatching(isoUtc),
      updatedAt: expect.stringMatching(isoUtc),
    });

    const one = await getEndpoint(account, older.endpointId);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ endpointId: older.endpointId, url: older.receiver.url, eventTypes: ['webhook.test'], status: 'enabled' });

    for (const json of [JSON.stringify(list.body), JSON.stringify(one.body)]) {
      expect(json).not.toMatch(/secret/i);
      expect(json).not.toContain('whsec_');
      expect(json).not.toContain(older.secret.slice('whsec_'.length));
      expect(json).not.toContain(newer.secret.slice('whsec_'.length));
    }
  });

  it('stores the secret sealed, never in plain text', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const [row] = await query('select * from endpoints where id = $1', [endpoint.endpointId]);
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice('whsec_'.length));
  });

  it('lists every event type with a description and an example envelope', async () => {
    const account = await newAccount();
    const response = await call('GET', '/event-types', { token: account.apiKey });
    expect(response.status).toBe(200);
    const types = response.body.eventTypes.map((entry: any) => entry.type);
    expect(types).toEqual(expect.arrayContaining(['webhook.test', 'endpoint.disabled']));
    for (const entry of response.body.eventTypes) {
      expect(entry.description).toEqual(expect.any(String));
      expect(entry.description.length).toBeGreaterThan(0);
      expect(entry.example).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        type: entry.type,
        timestamp: expect.stringMatching(isoUtc),
        accountId: expect.any(String),
        data: expect.any(Object),
      });
    }
    // Every listed type is accepted for subscription.
    const target = await receiver();
    const created = await createEndpoint(account, { url: target.url, eventTypes: types });
    expect(created.status).toBe(201);
    expect(created.body.eventTypes).toEqual(types);
  });

  it('requires a key for the event types', async () => {
    const response = await call('GET', '/event-types');
    expect(response.status).toBe(401);
  });

  it('rejects an unknown event type with 400 validation_failed', async () => {
    const account = await newAccount();
    const target = await receiver();
    const created = await createEndpoint(account, { url: target.url, eventTypes: ['webhook.test', 'order.shipped'] });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('validation_failed');
    expect(JSON.stringify(created.body.error)).toContain('eventTypes');

    const empty = await createEndpoint(account, { url: target.url, eventTypes: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_failed');

    const list = await call('GET', endpointsPath(account), { token: account.apiKey });
    expect(list.body.endpoints).toEqual([]);
  });

  it.each(rejectedUrls)('refuses to register %s with 422 invalid_url', async (url, reason) => {
    const account = await newAccount();
    const created = await createEndpoint(account, { url, eventTypes: ['webhook.test'] });
    expect(created.status).toBe(422);
    expect(created.body.error.code).toBe('invalid_url');
    expect(created.body.error.message).toMatch(reason);
    const list = await call('GET', endpointsPath(account), { token: account.apiKey });
    expect(list.body.endpoints).toEqual([]);
  });
});

describe('endpoint changes', () => {
  it('changes url, event types and description, and delivers to the new url', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const moved = await receiver();

    const patched = await patchEndpoint(account, endpoint.endpointId, {
      url: moved.url,
      eventTypes: ['webhook.test', 'job.accepted'],
      description: 'moved',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: moved.url, eventTypes: ['webhook.test', 'job.accepted'], description: 'moved', status: 'enabled' });
    expect(JSON.stringify(patched.body)).not.toMatch(/secret/i);
    expect((await getEndpoint(account, endpoint.endpointId)).body).toEqual(patched.body);

    const cleared = await patchEndpoint(account, endpoint.endpointId, { description: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeNull();

    await sendTest(account, endpoint.endpointId);
    const [request] = await moved.waitForRequests(1);
    // The secret did not change with the url.
    verifyWith(endpoint.secret, request!);
    await expectNoMoreRequests(endpoint.receiver, 0, account);
    expect(moved.requests).toHaveLength(1);
  });

  it('rejects an empty change and an unknown event type with 400', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const empty = await patchEndpoint(account, endpoint.endpointId, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_failed');
    const unknown = await patchEndpoint(account, endpoint.endpointId, { eventTypes: ['nope.never'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('validation_failed');
    const badStatus = await patchEndpoint(account, endpoint.endpointId, { status: 'paused' });
    expect(badStatus.status).toBe(400);
    expect((await getEndpoint(account, endpoint.endpointId)).body.eventTypes).toEqual(['webhook.test']);
  });

  it.each(rejectedUrls)('refuses to change the url to %s with 422 invalid_url', async (url, reason) => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const patched = await patchEndpoint(account, endpoint.endpointId, { url });
    expect(patched.status).toBe(422);
    expect(patched.body.error.code).toBe('invalid_url');
    expect(patched.body.error.message).toMatch(reason);
    expect((await getEndpoint(account, endpoint.endpointId)).body.url).toBe(endpoint.receiver.url);
  });

  it('disables and re-enables an endpoint; a disabled endpoint cannot be tested', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));

    const disabled = await patchEndpoint(account, endpoint.endpointId, { status: 'disabled' });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: expect.any(String) });

    const refused = await sendTestEvent(account, endpoint.endpointId);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');

    const enabled = await patchEndpoint(account, endpoint.endpointId, { status: 'enabled' });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null });
    await sendTest(account, endpoint.endpointId);
    // The refused test sent nothing; the one after re-enabling, exactly one request.
    await expectNoMoreRequests(endpoint.receiver, 1, account);
  });
});

describe('endpoint deletion', () => {
  it('deletes an endpoint: 204, then 404 everywhere and out of the list', async () => {
    const account = await newAccount();
    const kept = track(await newEndpoint(account));
    const endpoint = track(await newEndpoint(account));

    const deleted = await call('DELETE', `${endpointsPath(account)}/${endpoint.endpointId}`, { token: account.apiKey });
    expect(deleted.status).toBe(204);

    expect((await getEndpoint(account, endpoint.endpointId)).status).toBe(404);
    const list = await call('GET', endpointsPath(account), { token: account.apiKey });
    expect(list.body.endpoints.map((item: any) => item.endpointId)).toEqual([kept.endpointId]);
    const test = await sendTestEvent(account, endpoint.endpointId);
    expect(test.status).toBe(404);
    expect(test.body.error.code).toBe('not_found');
    expect((await patchEndpoint(account, endpoint.endpointId, { description: 'back' })).status).toBe(404);
    expect((await call('POST', `${endpointsPath(account)}/${endpoint.endpointId}/secret/rotate`, { token: account.apiKey })).status).toBe(404);
    expect((await call('DELETE', `${endpointsPath(account)}/${endpoint.endpointId}`, { token: account.apiKey })).status).toBe(404);
    // The refused test emitted no event: nothing was stored that could ever be delivered.
    expect(await query('select id from outbound_events where account_id = $1', [account.accountId])).toEqual([]);
    await expectNoMoreRequests(endpoint.receiver, 0, account);
  });

  it('stops a delivery that is still retrying when its endpoint is deleted', async () => {
    const account = await newAccount();
    // Always 500: the delivery keeps retrying until the endpoint goes away.
    const endpoint = track(await newEndpoint(account, ['webhook.test'], () => ({ status: 500 })));
    const eventId = await sendTest(account, endpoint.endpointId);
    await endpoint.receiver.waitForRequests(1);

    const deleted = await call('DELETE', `${endpointsPath(account)}/${endpoint.endpointId}`, { token: account.apiKey });
    expect(deleted.status).toBe(204);
    const requestsAtDeletion = endpoint.receiver.requests.length;

    // Once the delivery's run has closed, the count is final: at most an attempt already in flight at the deletion.
    await waitForEventsSettled([account.accountId]);
    expect(endpoint.receiver.requests.length).toBeLessThanOrEqual(requestsAtDeletion + 1);
    expect(endpoint.receiver.requests.length).toBeLessThan(4);
    // The deliveries list of a deleted endpoint is gone too, so read the row.
    const [delivery] = await query('select * from deliveries where event_id = $1', [eventId]);
    expect(delivery.status).toBe('failed');
    expect(delivery.failure_reason).toMatch(/deleted/);
  });
});

describe('secret rotation', () => {
  it('returns the new secret once and signs with both secrets afterwards', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));

    const rotated = await call('POST', `${endpointsPath(account)}/${endpoint.endpointId}/secret/rotate`, { token: account.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      endpointId: endpoint.endpointId,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
      previousSecretExpiresAt: expect.stringMatching(isoUtc),
    });
    const newSecret: string = rotated.body.secret;
    expect(newSecret).not.toBe(endpoint.secret);
    expect(Buffer.from(newSecret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const overlapMs = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
    expect(overlapMs).toBeGreaterThan(23 * 3_600_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3_600_000);

    // Shown only there: not on GET, not in the list.
    const one = await getEndpoint(account, endpoint.endpointId);
    const list = await call('GET', endpointsPath(account), { token: account.apiKey });
    for (const json of [JSON.stringify(one.body), JSON.stringify(list.body)]) {
      expect(json).not.toContain(newSecret.slice('whsec_'.length));
      expect(json).not.toContain('whsec_');
    }

    await sendTest(account, endpoint.endpointId);
    const [request] = await endpoint.receiver.waitForRequests(1);
    const signatures = webhookHeaders(request!)['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);

    // Each secret verifies the delivery; each signature is by exactly one of them.
    expect(verifyWith(endpoint.secret, request!)).toMatchObject({ type: 'webhook.test' });
    expect(verifyWith(newSecret, request!)).toMatchObject({ type: 'webhook.test' });
    for (const secret of [endpoint.secret, newSecret]) {
      const matching = signatures.filter((signature) => {
        try {
          new Webhook(secret).verify(request!.body, { ...webhookHeaders(request!), 'webhook-signature': signature });
          return true;
        } catch {
          return false;
        }
      });
      expect(matching).toHaveLength(1);
    }
    const stranger = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => verifyWith(stranger, request!)).toThrow();
  });

  it('drops the oldest secret on a second rotation within the overlap', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const rotate = () => call('POST', `${endpointsPath(account)}/${endpoint.endpointId}/secret/rotate`, { token: account.apiKey });
    const second = (await rotate()).body.secret as string;
    const third = (await rotate()).body.secret as string;
    expect(new Set([endpoint.secret, second, third]).size).toBe(3);

    await sendTest(account, endpoint.endpointId);
    const [request] = await endpoint.receiver.waitForRequests(1);
    expect(webhookHeaders(request!)['webhook-signature'].split(' ')).toHaveLength(2);
    verifyWith(second, request!);
    verifyWith(third, request!);
    expect(() => verifyWith(endpoint.secret, request!)).toThrow();
  });

  it('signs with one secret before any rotation', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    await sendTest(account, endpoint.endpointId);
    const [request] = await endpoint.receiver.waitForRequests(1);
    expect(webhookHeaders(request!)['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
  });
});

describe('endpoint access', () => {
  it('answers 404 to another account’s key on every endpoint path', async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const endpoint = track(await newEndpoint(owner));
    const eventId = await sendTest(owner, endpoint.endpointId);
    const delivery = await waitForFinishedDelivery(owner, endpoint.endpointId, eventId);

    const base = `/accounts/${owner.accountId}/endpoints`;
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', base],
      ['POST', base, { url: endpoint.receiver.url, eventTypes: ['webhook.test'] }],
      ['GET', `${base}/${endpoint.endpointId}`],
      ['PATCH', `${base}/${endpoint.endpointId}`, { description: 'taken over' }],
      ['POST', `${base}/${endpoint.endpointId}/secret/rotate`],
      ['POST', `${base}/${endpoint.endpointId}/test`],
      ['GET', `${base}/${endpoint.endpointId}/deliveries`],
      ['POST', `/accounts/${owner.accountId}/deliveries/${delivery.deliveryId}/redeliver`],
      ['POST', `${base}/${endpoint.endpointId}/deliveries/${delivery.deliveryId}/redeliver`],
      ['DELETE', `${base}/${endpoint.endpointId}`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await call(method, path, { token: other.apiKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }

    // The other account's own paths do not reach the endpoint either.
    const ownBase = `/accounts/${other.accountId}/endpoints`;
    for (const [method, path, body] of [
      ['GET', `${ownBase}/${endpoint.endpointId}`],
      ['PATCH', `${ownBase}/${endpoint.endpointId}`, { description: 'taken over' }],
      ['POST', `${ownBase}/${endpoint.endpointId}/secret/rotate`],
      ['POST', `${ownBase}/${endpoint.endpointId}/test`],
      ['GET', `${ownBase}/${endpoint.endpointId}/deliveries`],
      ['POST', `/accounts/${other.accountId}/deliveries/${delivery.deliveryId}/redeliver`],
      ['POST', `${ownBase}/${endpoint.endpointId}/deliveries/${delivery.deliveryId}/redeliver`],
      ['DELETE', `${ownBase}/${endpoint.endpointId}`],
    ] as Array<[string, string, unknown?]>) {
      const response = await call(method, path, { token: other.apiKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const otherList = await call('GET', ownBase, { token: other.apiKey });
    expect(otherList.body.endpoints).toEqual([]);

    // Nothing changed for the owner.
    const still = await getEndpoint(owner, endpoint.endpointId);
    expect(still.body).toMatchObject({ status: 'enabled', description: null });
    await expectNoMoreRequests(endpoint.receiver, 1, owner, other);
  });

  it('answers 404 for an unknown endpoint id', async () => {
    const account = await newAccount();
    const base = endpointsPath(account);
    const unknown = 'ep_doesNotExist000000000000';
    for (const [method, path, body] of [
      ['GET', `${base}/${unknown}`],
      ['PATCH', `${base}/${unknown}`, { description: 'x' }],
      ['DELETE', `${base}/${unknown}`],
      ['POST', `${base}/${unknown}/secret/rotate`],
      ['POST', `${base}/${unknown}/test`],
      ['GET', `${base}/${unknown}/deliveries`],
      ['POST', `/accounts/${account.accountId}/deliveries/dlv_doesNotExist/redeliver`],
    ] as Array<[string, string, unknown?]>) {
      const response = await call(method, path, { token: account.apiKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
  });

  it('answers 401 without a key, or with a wrong one', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const base = endpointsPath(account);
    for (const token of [undefined, 'rpk_not_a_real_key']) {
      for (const [method, path, body] of [
        ['GET', base],
        ['POST', base, { url: endpoint.receiver.url, eventTypes: ['webhook.test'] }],
        ['GET', `${base}/${endpoint.endpointId}`],
        ['PATCH', `${base}/${endpoint.endpointId}`, { description: 'x' }],
        ['DELETE', `${base}/${endpoint.endpointId}`],
        ['POST', `${base}/${endpoint.endpointId}/secret/rotate`],
        ['POST', `${base}/${endpoint.endpointId}/test`],
        ['GET', `${base}/${endpoint.endpointId}/deliveries`],
      ] as Array<[string, string, unknown?]>) {
        const response = await call(method, path, { token, body });
        expect(response.status, `${method} ${path} with ${token ?? 'no key'}`).toBe(401);
        expect(response.body.error.code).toBe('unauthorized');
      }
    }
    expect((await getEndpoint(account, endpoint.endpointId)).status).toBe(200);
  });
});

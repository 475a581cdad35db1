import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import type { Responder, TestReceiver } from '../support/receiver.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';
import { expectNoMoreRequests, getEndpoint, sendTest, verifyWith, waitForFinishedDelivery } from '../support/deliveries.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { Endpoint } from '../../src/persistence/entities/endpoint.ts';
import { OutboundEvent } from '../../src/persistence/entities/outbound-event.ts';

// The global worker disables an endpoint whose deliveries have all failed for ENDPOINT_DISABLE_AFTER_HOURS (120 h in
// the tests). Nobody waits 120 hours: the failure streak's start is moved back in the database instead.

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
const endpointOf = async (account: TestAccount, eventTypes: string[], responder?: Responder) => {
  const fixture: EndpointFixture = await newEndpoint(account, eventTypes, responder);
  receivers.push(fixture.receiver);
  return fixture;
};

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
const setFailingSince = (endpointId: string, at: Date | null) => query('update endpoints set failing_since = $2 where id = $1', [endpointId, at]);

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(async () => {
  await orm?.close();
});
const loadEndpoint = (endpointId: string) => orm.em.fork().findOneOrFail(Endpoint, { id: endpointId });

describe('disabling an endpoint that keeps failing', () => {
  const { disableAfterHours } = inject('delivery');

  it(`disables an endpoint failing for more than ${disableAfterHours} hours and emits endpoint.disabled`, async () => {
    const account = await newAccount();
    const failing = await endpointOf(account, ['webhook.test'], () => ({ status: 500 }));
    const watcher = await endpointOf(account, ['endpoint.disabled']);
    const streakStart = hoursAgo(disableAfterHours + 1);
    await setFailingSince(failing.endpointId, streakStart);

    const eventId = await sendTest(account, failing.endpointId);
    const delivery = await waitForFinishedDelivery(account, failing.endpointId, eventId);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts[0]).toMatchObject({ attemptNumber: 1, statusCode: 500 });

    const endpoint = await loadEndpoint(failing.endpointId);
    expect(endpoint.status).toBe('disabled');
    expect(endpoint.disabledReason).toMatch(new RegExp(`${disableAfterHours} hours`));
    // The streak is still the one that started 121 hours ago.
    expect(endpoint.failingSince?.getTime()).toBe(streakStart.getTime());
    const shown = await getEndpoint(account, failing.endpointId);
    expect(shown.body).toMatchObject({ status: 'disabled', disabledReason: expect.stringContaining(`${disableAfterHours} hours`) });

    // The first failed attempt disabled it; the retries stop there. Settled means every delivery run of the account's
    // events has closed, the endpoint.disabled one's included, so the counts here and below are final.
    await expectNoMoreRequests(failing.receiver, 1, account);

    const events = await orm.em.fork().find(OutboundEvent, { accountId: account.accountId, type: 'endpoint.disabled' });
    expect(events).toHaveLength(1);
    const stored = JSON.parse(events[0]!.body);
    expect(stored).toMatchObject({
      id: events[0]!.id,
      type: 'endpoint.disabled',
      accountId: account.accountId,
      data: { result: { endpointId: failing.endpointId, url: failing.receiver.url, reason: expect.stringContaining(`${disableAfterHours} hours`) } },
    });

    const [notice] = await watcher.receiver.waitForRequests(1);
    const envelope = verifyWith(watcher.secret, notice!);
    expect(envelope).toEqual(stored);
    expect(notice!.headers['webhook-id']).toBe(events[0]!.id);
    expect(watcher.receiver.requests).toHaveLength(1);
  });

  it(`keeps an endpoint failing for less than ${disableAfterHours} hours enabled`, async () => {
    const account = await newAccount();
    const failing = await endpointOf(account, ['webhook.test'], () => ({ status: 500 }));
    const watcher = await endpointOf(account, ['endpoint.disabled']);
    const streakStart = hoursAgo(disableAfterHours - 1);
    await setFailingSince(failing.endpointId, streakStart);

    const eventId = await sendTest(account, failing.endpointId);
    const delivery = await waitForFinishedDelivery(account, failing.endpointId, eventId);
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: inject('delivery').maxAttempts });

    const endpoint = await loadEndpoint(failing.endpointId);
    expect(endpoint).toMatchObject({ status: 'enabled', disabledReason: null });
    expect(endpoint.failingSince?.getTime()).toBe(streakStart.getTime());
    expect(await query(`select id from outbound_events where account_id = $1 and type = 'endpoint.disabled'`, [account.accountId])).toEqual([]);
    expect(watcher.receiver.requests).toHaveLength(0);
  });

  it('starts a failure streak on the first failed attempt', async () => {
    const account = await newAccount();
    const failing = await endpointOf(account, ['webhook.test'], () => ({ status: 404 }));
    expect((await loadEndpoint(failing.endpointId)).failingSince).toBeNull();

    const before = Date.now();
    const eventId = await sendTest(account, failing.endpointId);
    const delivery = await waitForFinishedDelivery(account, failing.endpointId, eventId);
    expect(delivery.status).toBe('failed');

    const endpoint = await loadEndpoint(failing.endpointId);
    expect(endpoint.status).toBe('enabled');
    expect(endpoint.failingSince).not.toBeNull();
    expect(endpoint.failingSince!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(endpoint.failingSince!.getTime()).toBe(Date.parse(delivery.attempts[0].startedAt));
  });

  it('ends the failure streak on a success', async () => {
    const account = await newAccount();
    const recovering = await endpointOf(account, ['webhook.test']);
    await setFailingSince(recovering.endpointId, hoursAgo(disableAfterHours - 2));

    const eventId = await sendTest(account, recovering.endpointId);
    const delivery = await waitForFinishedDelivery(account, recovering.endpointId, eventId);
    expect(delivery.status).toBe('succeeded');
    const endpoint = await loadEndpoint(recovering.endpointId);
    expect(endpoint).toMatchObject({ status: 'enabled', failingSince: null });
    const [row] = await query('select failing_since from endpoints where id = $1', [recovering.endpointId]);
    expect(row.failing_since).toBeNull();
  });

  it('ends the failure streak on a success after retries, even one that started long ago', async () => {
    const account = await newAccount();
    // Fails once (inside the streak, which is not yet long enough), then succeeds.
    const recovering = await endpointOf(account, ['webhook.test'], (_request, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    await setFailingSince(recovering.endpointId, hoursAgo(disableAfterHours - 1));

    const eventId = await sendTest(account, recovering.endpointId);
    const delivery = await waitForFinishedDelivery(account, recovering.endpointId, eventId);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(await loadEndpoint(recovering.endpointId)).toMatchObject({ status: 'enabled', failingSince: null });
  });

  it('clears the streak and the reason when the account enables the endpoint again', async () => {
    const account = await newAccount();
    const failing = await endpointOf(account, ['webhook.test'], (_request, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    await setFailingSince(failing.endpointId, hoursAgo(disableAfterHours + 5));

    const eventId = await sendTest(account, failing.endpointId);
    await waitForFinishedDelivery(account, failing.endpointId, eventId);
    expect((await loadEndpoint(failing.endpointId)).status).toBe('disabled');

    const enabled = await call('PATCH', `/accounts/${account.accountId}/endpoints/${failing.endpointId}`, {
      token: account.apiKey,
      body: { status: 'enabled' },
    });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null });
    expect((await loadEndpoint(failing.endpointId)).failingSince).toBeNull();

    // Delivered again: the receiver now answers 200.
    const next = await sendTest(account, failing.endpointId);
    expect((await waitForFinishedDelivery(account, failing.endpointId, next)).status).toBe('succeeded');
  });
});

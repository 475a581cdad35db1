import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { newConnection, waitForEvent, type ConnectionFixture } from '../support/ingest.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { eventsOf, post } from '../support/signed-ingest.ts';

/** A provider payload as the provider sends it (test/fixtures/providers), read afresh so a test may change it. */
const fixture = (name: string): Record<string, any> =>
  JSON.parse(readFileSync(new URL(`../fixtures/providers/${name}.json`, import.meta.url), 'utf8'));

const visitorOf = async (account: TestAccount, visitorId: string) =>
  ok(await call('GET', `/accounts/${account.accountId}/visitors/${visitorId}`, { token: account.apiKey }));

async function rawOf(connection: ConnectionFixture, messageId: string): Promise<unknown> {
  const rows = await query('select raw from inbound_events where connection_id = $1 and message_id = $2', [connection.connectionId, messageId]);
  expect(rows).toHaveLength(1);
  return rows[0].raw;
}

const storedCount = async (connection: ConnectionFixture) =>
  (await query('select count(*)::int as n from inbound_events where connection_id = $1', [connection.connectionId]))[0].n;

describe('webhook provider', () => {
  const mapping = { messageId: 'id', eventType: 'kind', occurredAt: 'at', clientUserId: 'customer.id', email: 'customer.email', plan: 'customer.plan' };

  it('reads the envelope through the connection’s mapping, stores the event and updates the visitor', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'webhook', label: 'Billing', mapping });
    const body = {
      id: 'inv-20260402-0042',
      kind: 'invoice.paid',
      at: '2026-04-02T16:45:12+02:00',
      customer: { id: 7290348191811, email: 'jonas@example.de', plan: 'gold', name: 'Jonas' },
      total: '54.90',
    };
    const accepted = ok(await post(connection, body), 202);
    expect(accepted).toEqual({ messageId: 'inv-20260402-0042', eventId: expect.stringMatching(/^iev_/) });

    const stored = await waitForEvent(account, 'inv-20260402-0042', 'PROCESSED');
    expect(stored).toMatchObject({
      eventId: accepted.eventId,
      connectionId: connection.connectionId,
      messageId: 'inv-20260402-0042',
      eventType: 'invoice.paid',
      occurredAt: '2026-04-02T14:45:12.000Z',
      clientUserId: '7290348191811',
      attributes: { plan: 'gold' },
      status: 'PROCESSED',
      visitorId: expect.any(String),
      workflowId: expect.stringMatching(/^ingest-batch:ibt_/),
    });
    // Mapping keys that name envelope fields are not attributes.
    expect(Object.keys(stored.attributes)).toEqual(['plan']);

    const visitor = await visitorOf(account, stored.visitorId);
    expect(visitor).toMatchObject({ clientUserId: '7290348191811', attributes: { plan: 'gold' }, endpoints: { email: 'jonas@example.de', phone: null } });
    expect(await rawOf(connection, 'inv-20260402-0042')).toEqual(body);
  });

  it('takes the arrival time when occurredAt is not mapped, and reads epoch seconds when it is', async () => {
    const account = await newAccount();
    const unmapped = await newConnection(account, { provider: 'webhook', mapping: { messageId: 'id', eventType: 'kind' } });
    const before = Date.now();
    ok(await post(unmapped, { id: 'w-1', kind: 'ping' }), 202);
    const first = await waitForEvent(account, 'w-1', 'PROCESSED');
    expect(Date.parse(first.occurredAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(first.clientUserId).toBeNull();
    expect(first.visitorId).toBeNull();

    const epoch = await newConnection(account, { provider: 'webhook', mapping: { messageId: 'id', eventType: 'kind', occurredAt: 'ts' } });
    ok(await post(epoch, { id: 'w-2', kind: 'ping', ts: 1_775_000_000 }), 202);
    expect((await waitForEvent(account, 'w-2')).occurredAt).toBe(new Date(1_775_000_000_000).toISOString());
  });

  it('refuses a payload without the mapped fields with 400 naming where they should be', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'webhook', mapping });
    const error = expectError(await post(connection, { kind: 'invoice.paid', at: 'yesterday', customer: { email: 'not-an-email' } }), 400, 'validation_failed');
    expect(error.details!.map((detail) => detail.path).sort()).toEqual(['body.at', 'body.customer.email', 'body.id']);
    expect(await storedCount(connection)).toBe(0);
  });

  it('refuses every post while the connection’s mapping lacks messageId or eventType', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'webhook' });
    const error = expectError(await post(connection, { id: 'x', kind: 'y' }), 400, 'validation_failed');
    expect(error.details!.map((detail) => detail.path).sort()).toEqual(['mapping.eventType', 'mapping.messageId']);
  });
});

describe('segment provider', () => {
  it('stores a track call under its event name, with its properties and context traits', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment', label: 'Segment' });
    const body = fixture('segment-track');
    ok(await post(connection, body), 202);

    const stored = await waitForEvent(account, body.messageId, 'PROCESSED');
    expect(stored).toMatchObject({
      messageId: body.messageId,
      eventType: 'Order Completed',
      occurredAt: '2026-01-01T10:00:00.123Z',
      clientUserId: 'u_1042',
      attributes: { orderId: 'ord_5531', revenue: 19.99, currency: 'EUR', email: 'sanne@example.com', plan: 'pro', anonymousId: body.anonymousId },
    });
    const visitor = await visitorOf(account, stored.visitorId);
    expect(visitor).toMatchObject({ clientUserId: 'u_1042', endpoints: { email: 'sanne@example.com' } });
    expect(await rawOf(connection, body.messageId)).toEqual(body);
  });

  it('creates the visitor from an identify call, with its traits and e-mail', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment' });
    const body = fixture('segment-identify');
    ok(await post(connection, body), 202);

    const stored = await waitForEvent(account, body.messageId, 'PROCESSED');
    expect(stored).toMatchObject({ eventType: 'identify', clientUserId: 'u_1042', occurredAt: '2026-01-01T09:58:20.004Z' });
    const visitor = await visitorOf(account, stored.visitorId);
    expect(visitor).toMatchObject({
      clientUserId: 'u_1042',
      attributes: { email: 'sanne@example.com', phone: '+31 6 1234 5678', firstName: 'Sanne', plan: 'pro', createdAt: '2025-06-14T08:00:00.000Z' },
      endpoints: { email: 'sanne@example.com', phone: '+31 6 1234 5678' },
    });
  });

  it('stores a page call as eventType "page" with the page’s name and properties', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment' });
    const body = fixture('segment-page');
    ok(await post(connection, body), 202);
    const stored = await waitForEvent(account, body.messageId, 'PROCESSED');
    expect(stored).toMatchObject({ eventType: 'page', clientUserId: 'u_1042', attributes: { name: 'Pricing', path: '/pricing', title: 'Pricing | Example Shop' } });
  });

  it('applies the connection’s mapping over the attributes', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment', mapping: { locale: 'context.locale', firstProduct: 'properties.products[0].sku' } });
    const body = fixture('segment-track');
    ok(await post(connection, body), 202);
    const stored = await waitForEvent(account, body.messageId, 'PROCESSED');
    expect(stored.attributes).toMatchObject({ locale: 'nl-NL', firstProduct: 'TSHIRT-M-NAVY' });
  });

  it('accepts a batch of 3 (202 with one result per item) and stores 3 events', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment' });
    const body = fixture('segment-batch');
    body.batch = body.batch.slice(0, 3);
    const ids = body.batch.map((item: any) => item.messageId);

    const accepted = ok(await post(connection, body), 202);
    expect(accepted).toEqual({ events: ids.map((messageId: string) => ({ messageId, eventId: expect.stringMatching(/^iev_/), duplicate: false })) });
    expect(new Set(accepted.events.map((event: any) => event.eventId)).size).toBe(3);

    for (const id of ids) await waitForEvent(account, id, 'PROCESSED');
    const stored = await eventsOf(account);
    expect(stored.map((event) => event.messageId).sort()).toEqual([...ids].sort());
    expect(stored.map((event) => event.eventType).sort()).toEqual(['Trial Started', 'identify', 'page']);
    expect(stored.every((event) => event.clientUserId === 'u_2001')).toBe(true);
    expect(await storedCount(connection)).toBe(3);
    // Each item keeps its own raw payload.
    expect(await rawOf(connection, ids[1])).toEqual(body.batch[1]);

    // The same batch again: each item is a duplicate, nothing new is stored.
    const again = ok(await post(connection, body), 202);
    expect(again.events).toEqual(accepted.events.map((event: any) => ({ ...event, duplicate: true })));
    expect(await storedCount(connection)).toBe(3);
  });

  it('refuses a whole batch with one bad item (400 naming body.batch.N…) and stores none of it', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment' });
    const body = fixture('segment-batch');
    delete body.batch[2].messageId;
    body.batch[3].type = 'alias';
    const error = expectError(await post(connection, body), 400, 'validation_failed');
    expect(error.details).toEqual([
      { path: 'body.batch.2.messageId', message: expect.any(String) },
      { path: 'body.batch.3.type', message: expect.any(String) },
    ]);
    expect(await storedCount(connection)).toBe(0);
  });

  it('refuses an empty batch and a call without a type with 400', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment' });
    expect(expectError(await post(connection, { batch: [] }), 400, 'validation_failed').details).toEqual([{ path: 'body.batch', message: expect.any(String) }]);
    const { type: _type, ...untyped } = fixture('segment-track');
    expect(expectError(await post(connection, untyped), 400, 'validation_failed').details).toEqual([{ path: 'body.type', message: 'is required' }]);
  });
});

describe('rudderstack provider', () => {
  it('stores a track call, links the visitor with its context traits and keeps the raw payload', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'rudderstack', label: 'RudderStack' });
    const body = fixture('rudderstack-track');
    ok(await post(connection, body), 202);

    const stored = await waitForEvent(account, body.messageId, 'PROCESSED');
    expect(stored).toMatchObject({
      eventType: 'Product Added',
      clientUserId: 'cust_7781',
      occurredAt: '2026-03-29T08:15:27.452Z',
      attributes: { product_id: 'P-3391', sku: 'MUG-BLK', price: 12.5, quantity: 2, email: 'lena@example.net', company: 'Fabrikam' },
    });
    const visitor = await visitorOf(account, stored.visitorId);
    expect(visitor.endpoints).toEqual({ email: 'lena@example.net', phone: '+44 20 7946 0018' });
    const raw = await rawOf(connection, body.messageId);
    expect(raw).toEqual(body);
    expect(raw).toMatchObject({ rudderId: body.rudderId, request_ip: '198.51.100.7' });
  });

  it('accepts a RudderStack batch with an anonymous page call', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'rudderstack' });
    const body = fixture('rudderstack-batch');
    const accepted = ok(await post(connection, body), 202);
    expect(accepted.events).toHaveLength(3);
    const page = await waitForEvent(account, body.batch[0].messageId, 'PROCESSED');
    expect(page).toMatchObject({ eventType: 'page', clientUserId: null, visitorId: null });
  });
});

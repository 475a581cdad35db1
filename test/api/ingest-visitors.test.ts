import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { directEvent, newConnection, waitForEvent } from '../support/ingest.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { eventsOf, post } from '../support/signed-ingest.ts';
import { temporalClient, waitForRunClosed } from '../support/temporal.ts';
import { ingestState, ingestWorkflowId } from '../../workflows/ingest-event.contract.ts';

let client: Client;
let closeClient: () => Promise<void>;
beforeAll(async () => {
  ({ client, close: closeClient } = await temporalClient());
});
afterAll(() => closeClient?.());

const link = (account: TestAccount, body: Record<string, unknown>) => call('POST', `/accounts/${account.accountId}/visitors`, { token: account.apiKey, body });
const visitorOf = async (account: TestAccount, visitorId: string) =>
  ok(await call('GET', `/accounts/${account.accountId}/visitors/${visitorId}`, { token: account.apiKey }));

describe('held events', () => {
  it('holds an event for an unknown person on a connection that does not create visitors, then releases it on link', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const event = directEvent({ clientUserId: 'held-1', attributes: { plan: 'gold' }, endpoints: { email: 'held@example.com' } });
    ok(await post(connection, event), 202);
    const held = await waitForEvent(account, event.messageId, 'HELD');
    expect(held).toMatchObject({ visitorId: null, processedAt: null, statusReason: expect.stringContaining('held-1') });

    const linked = ok(await link(account, { clientUserId: 'held-1', attributes: { tier: 'a' } }), 201);
    expect(linked).toEqual({
      visitorId: expect.any(String),
      accountId: account.accountId,
      clientUserId: 'held-1',
      attributes: { tier: 'a' },
      endpoints: { email: null, phone: null },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      releasedEvents: 1,
    });
    const processed = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(processed).toMatchObject({ visitorId: linked.visitorId, statusReason: null, processedAt: expect.any(String) });
    // The released event brings its attributes and contacts to the visitor.
    const visitor = await visitorOf(account, linked.visitorId);
    expect(visitor).toMatchObject({ attributes: { tier: 'a', plan: 'gold' }, endpoints: { email: 'held@example.com' } });
  });

  it('answers a second link of the same clientUserId with 200, merging attributes', async () => {
    const account = await newAccount();
    const first = ok(await link(account, { clientUserId: 'twice', attributes: { a: 1, b: 1 }, endpoints: { email: 'one@example.com' } }), 201);
    expect(first.releasedEvents).toBe(0);
    const second = ok(await link(account, { clientUserId: 'twice', attributes: { b: 2, c: 3 }, endpoints: { phone: '+44 20 7946 0000' } }), 200);
    expect(second).toMatchObject({
      visitorId: first.visitorId,
      attributes: { a: 1, b: 2, c: 3 },
      endpoints: { email: 'one@example.com', phone: '+44 20 7946 0000' },
      releasedEvents: 0,
    });
    expect(await visitorOf(account, first.visitorId)).toMatchObject({ attributes: { a: 1, b: 2, c: 3 } });
  });

  it('refuses a link without clientUserId, with an unknown field or a bad e-mail (400), and for another account (404)', async () => {
    const [account, other] = await Promise.all([newAccount(), newAccount()]);
    for (const body of [{}, { clientUserId: 'x', colour: 'red' }, { clientUserId: 'x', endpoints: { email: 'nope' } }]) {
      expectError(await link(account, body), 400, 'validation_failed');
    }
    expectError(await call('POST', `/accounts/${other.accountId}/visitors`, { token: account.apiKey, body: { clientUserId: 'x' } }), 404, 'not_found');
    expectError(await call('POST', `/accounts/${account.accountId}/visitors`, { body: { clientUserId: 'x' } }), 401, 'unauthorized');
  });

  it('releases every event held for one person, all to the same visitor', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const events = [1, 2, 3, 4].map((n) => directEvent({ clientUserId: 'many', eventType: `step.${n}` }));
    for (const event of events) ok(await post(connection, event), 202);
    for (const event of events) await waitForEvent(account, event.messageId, 'HELD');
    const linked = ok(await link(account, { clientUserId: 'many' }), 201);
    expect(linked.releasedEvents).toBe(4);

    for (const event of events) {
      expect(await waitForEvent(account, event.messageId, 'PROCESSED')).toMatchObject({ visitorId: linked.visitorId, statusReason: null });
    }
    // Linking again releases nothing more.
    expect(ok(await link(account, { clientUserId: 'many' }), 200).releasedEvents).toBe(0);
  });

  it('processes released events in the order they were received (processedAt follows receivedAt)', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const events = Array.from({ length: 10 }, (_, n) => directEvent({ clientUserId: 'ordered', eventType: `step.${n}` }));
    for (const event of events) ok(await post(connection, event), 202);
    for (const event of events) await waitForEvent(account, event.messageId, 'HELD');
    expect(ok(await link(account, { clientUserId: 'ordered' }), 201).releasedEvents).toBe(10);

    const processed = [];
    for (const event of events) processed.push(await waitForEvent(account, event.messageId, 'PROCESSED'));
    const received = processed.map((event) => Date.parse(event.receivedAt));
    expect(received).toEqual([...received].sort((a, b) => a - b));
    const processedAt = processed.map((event) => Date.parse(event.processedAt));
    expect(processedAt, JSON.stringify(processed.map((event) => [event.eventType, event.receivedAt, event.processedAt]))).toEqual(
      [...processedAt].sort((a, b) => a - b),
    );
  });

  it('releases held events when another connection of the account creates the visitor (identify)', async () => {
    const account = await newAccount();
    const holding = await newConnection(account, { label: 'App events', eventConfig: { createVisitors: false } });
    const identifying = await newConnection(account, { provider: 'segment', label: 'Segment' });
    const held = [directEvent({ clientUserId: 'cross-1' }), directEvent({ clientUserId: 'cross-1', eventType: 'cart.updated' })];
    for (const event of held) {
      ok(await post(holding, event), 202);
      await waitForEvent(account, event.messageId, 'HELD');
    }
    // Another person's held event stays held.
    const bystander = directEvent({ clientUserId: 'cross-2' });
    ok(await post(holding, bystander), 202);
    await waitForEvent(account, bystander.messageId, 'HELD');

    const identify = { type: 'identify', userId: 'cross-1', messageId: `identify-${randomUUID()}`, traits: { email: 'cross@example.com', plan: 'team' } };
    ok(await post(identifying, identify), 202);
    const identified = await waitForEvent(account, identify.messageId, 'PROCESSED');
    expect(identified.visitorId).toEqual(expect.any(String));

    for (const event of held) {
      const released = await waitForEvent(account, event.messageId, 'PROCESSED');
      expect(released).toMatchObject({ visitorId: identified.visitorId, connectionId: holding.connectionId });
    }
    expect(await visitorOf(account, identified.visitorId)).toMatchObject({ clientUserId: 'cross-1', endpoints: { email: 'cross@example.com' } });
    // The identify's run has linked cross-1 and signalled that person's held runs (they are PROCESSED): the bystander's
    // run would have its signal by now. It has none, and is still held.
    const bystanderRun = client.workflow.getHandle(ingestWorkflowId(holding.connectionId, bystander.messageId));
    const signals = (await bystanderRun.fetchHistory()).events?.filter((event) => event.workflowExecutionSignaledEventAttributes != null);
    expect(signals).toEqual([]);
    // The row says HELD once the run's step has written it; the run hears of it a moment later.
    await expect.poll(() => bystanderRun.query(ingestState), { timeout: 10_000 }).toMatchObject({ status: 'HELD' });
    expect((await eventsOf(account)).find((event) => event.messageId === bystander.messageId).status).toBe('HELD');
  });

  it('links at once an event for a person who is already a visitor, even on a connection that does not create visitors', async () => {
    const account = await newAccount();
    const visitor = ok(await link(account, { clientUserId: 'known' }), 201);
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const event = directEvent({ clientUserId: 'known' });
    ok(await post(connection, event), 202);
    expect(await waitForEvent(account, event.messageId)).toMatchObject({ status: 'PROCESSED', visitorId: visitor.visitorId });
  });

  it('expires a held event after holdTtlHours, with a reason', { timeout: 20_000 }, async () => {
    const account = await newAccount();
    // 0.0005 h = 1.8 s
    const connection = await newConnection(account, { eventConfig: { createVisitors: false, holdTtlHours: 0.0005 } });
    const event = directEvent({ clientUserId: 'never-linked' });
    ok(await post(connection, event), 202);
    await waitForEvent(account, event.messageId, 'HELD');
    const expired = await waitForEvent(account, event.messageId, 'EXPIRED', 15_000);
    expect(expired).toMatchObject({ visitorId: null, statusReason: expect.stringContaining('never-linked'), processedAt: expect.any(String) });
    expect(Date.parse(expired.processedAt) - Date.parse(expired.receivedAt)).toBeGreaterThanOrEqual(1500);

    // A link after expiry releases nothing and the event stays EXPIRED: its run has closed, so only the link itself
    // could still change it, and the link has answered.
    await waitForRunClosed(client, ingestWorkflowId(connection.connectionId, event.messageId));
    expect(ok(await link(account, { clientUserId: 'never-linked' }), 201).releasedEvents).toBe(0);
    expect((await eventsOf(account)).find((item) => item.messageId === event.messageId).status).toBe('EXPIRED');
  });
});

describe('linking races', () => {
  it('creates one visitor when the same person is linked by several concurrent calls', async () => {
    const account = await newAccount();
    const responses = await Promise.all(Array.from({ length: 6 }, (_, n) => link(account, { clientUserId: 'concurrent', attributes: { [`k${n}`]: n } })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.visitorId)).size).toBe(1);
    const visitor = await visitorOf(account, responses[0]!.body.visitorId);
    expect(Object.keys(visitor.attributes).sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });

  it('creates one visitor when the first events of a new person arrive together', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const events = Array.from({ length: 6 }, () => directEvent({ clientUserId: 'burst' }));
    for (const response of await Promise.all(events.map((event) => post(connection, event)))) ok(response, 202);
    const processed = await Promise.all(events.map((event) => waitForEvent(account, event.messageId, 'PROCESSED')));
    expect(new Set(processed.map((event) => event.visitorId)).size).toBe(1);
  });

  it('never leaves an event held when it arrives while its person is being linked', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const people = Array.from({ length: 6 }, (_, n) => `race-${n}`);
    const events = people.map((clientUserId) => directEvent({ clientUserId }));
    await Promise.all(people.map(async (clientUserId, n) => {
      const [posted, linked] = await Promise.all([post(connection, events[n]), link(account, { clientUserId })]);
      ok(posted, 202);
      ok(linked, 201);
    }));
    for (const event of events) expect((await waitForEvent(account, event.messageId, 'PROCESSED')).visitorId).toEqual(expect.any(String));
  });
});

describe('events that are not held', () => {
  it('processes an event without clientUserId anonymously', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const event = directEvent({ attributes: { page: '/home' } });
    ok(await post(connection, event), 202);
    const processed = await waitForEvent(account, event.messageId);
    expect(processed).toMatchObject({ status: 'PROCESSED', clientUserId: null, visitorId: null, attributes: { page: '/home' }, routingOutcome: expect.any(Object) });
  });

  it('ignores an eventType outside the connection’s eventTypes, and processes one inside', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { eventTypes: ['a'] } });
    const outside = directEvent({ eventType: 'b', clientUserId: 'typed' });
    const inside = directEvent({ eventType: 'a', clientUserId: 'typed' });
    ok(await post(connection, outside), 202);
    ok(await post(connection, inside), 202);
    const ignored = await waitForEvent(account, outside.messageId);
    expect(ignored).toMatchObject({ status: 'IGNORED', statusReason: expect.stringContaining('b'), visitorId: null, routingOutcome: null });
    expect(await waitForEvent(account, inside.messageId)).toMatchObject({ status: 'PROCESSED', visitorId: expect.any(String) });
  });

  it('creates the visitor from the first event of an unknown person, and merges later events onto it', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const first = directEvent({ clientUserId: 'grow', attributes: { a: 1, b: 1 }, endpoints: { email: 'first@example.com' } });
    ok(await post(connection, first), 202);
    const one = await waitForEvent(account, first.messageId, 'PROCESSED');
    const second = directEvent({ clientUserId: 'grow', attributes: { b: 2 }, endpoints: { email: 'second@example.com' } });
    ok(await post(connection, second), 202);
    const two = await waitForEvent(account, second.messageId, 'PROCESSED');
    expect(two.visitorId).toBe(one.visitorId);
    expect(await visitorOf(account, one.visitorId)).toMatchObject({ attributes: { a: 1, b: 2 }, endpoints: { email: 'second@example.com' } });
  });
});

describe('GET /accounts/{accountId}/events', () => {
  it('filters by status, eventType and clientUserId, and walks pages with the cursor', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { eventTypes: ['kept.a', 'kept.b'] } });
    const sent = [
      directEvent({ eventType: 'kept.a', clientUserId: 'u-1' }),
      directEvent({ eventType: 'kept.b', clientUserId: 'u-2' }),
      directEvent({ eventType: 'dropped', clientUserId: 'u-1' }),
      directEvent({ eventType: 'kept.a' }),
    ];
    for (const event of sent) {
      ok(await post(connection, event), 202);
      await waitForEvent(account, event.messageId);
    }
    const ids = (items: any[]) => items.map((item) => item.messageId);
    const newestFirst = ids([...sent].reverse());

    expect(ids(await eventsOf(account))).toEqual(newestFirst);
    expect(ids(await eventsOf(account, 'status=IGNORED'))).toEqual([sent[2]!.messageId]);
    expect(ids(await eventsOf(account, 'status=PROCESSED'))).toEqual(newestFirst.filter((id) => id !== sent[2]!.messageId));
    expect(ids(await eventsOf(account, 'status=HELD'))).toEqual([]);
    expect(ids(await eventsOf(account, 'eventType=kept.a'))).toEqual([sent[3]!.messageId, sent[0]!.messageId]);
    expect(ids(await eventsOf(account, 'clientUserId=u-1'))).toEqual([sent[2]!.messageId, sent[0]!.messageId]);
    expect(ids(await eventsOf(account, 'clientUserId=u-1&status=PROCESSED&eventType=kept.a'))).toEqual([sent[0]!.messageId]);

    // One at a time: every event once, newest first, and the last page has no cursor.
    const walked: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: any = ok(await call('GET', `/accounts/${account.accountId}/events?limit=1${suffix}`, { token: account.apiKey }));
      expect(page.items.length).toBeLessThanOrEqual(1);
      walked.push(...ids(page.items));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(walked).toEqual(newestFirst);
    expect(cursor).toBeNull();

    // A filtered walk keeps its filter across pages.
    const first = ok(await call('GET', `/accounts/${account.accountId}/events?limit=1&eventType=kept.a`, { token: account.apiKey }));
    const next = ok(await call('GET', `/accounts/${account.accountId}/events?limit=1&eventType=kept.a&cursor=${encodeURIComponent(first.nextCursor)}`, { token: account.apiKey }));
    expect([...ids(first.items), ...ids(next.items)]).toEqual([sent[3]!.messageId, sent[0]!.messageId]);
    expect(next.nextCursor).toBeNull();
  });

  it('lists each item with the documented fields', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const event = directEvent({ clientUserId: 'shape', attributes: { x: 1 } });
    const accepted = ok(await post(connection, event), 202);
    const item = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(item).toEqual({
      eventId: accepted.eventId,
      connectionId: connection.connectionId,
      messageId: event.messageId,
      eventType: event.eventType,
      occurredAt: new Date(event.occurredAt).toISOString(),
      clientUserId: 'shape',
      visitorId: expect.any(String),
      attributes: { x: 1 },
      status: 'PROCESSED',
      statusReason: null,
      workflowId: expect.stringMatching(/^ingest-batch:ibt_/),
      routingOutcome: expect.objectContaining({ matchedExperiences: [] }),
      receivedAt: expect.any(String),
      processedAt: expect.any(String),
    });
  });

  it('refuses a bad status, limit or cursor with 400; another account’s events are 404', async () => {
    const [account, other] = await Promise.all([newAccount(), newAccount()]);
    for (const suffix of ['status=DONE', 'limit=0', 'limit=101', 'cursor=%25%25not-a-cursor']) {
      expectError(await call('GET', `/accounts/${account.accountId}/events?${suffix}`, { token: account.apiKey }), 400, 'validation_failed');
    }
    expectError(await call('GET', `/accounts/${other.accountId}/events`, { token: account.apiKey }), 404, 'not_found');
    expectError(await call('GET', `/accounts/${account.accountId}/events`), 401, 'unauthorized');
  });

  it('never lists another account’s events', async () => {
    const [account, other] = await Promise.all([newAccount(), newAccount()]);
    const connection = await newConnection(other);
    const event = directEvent();
    ok(await post(connection, event), 202);
    await waitForEvent(other, event.messageId);
    expect(await eventsOf(account)).toEqual([]);
  });
});

describe('GET /accounts/{accountId}/visitors/{visitorId}', () => {
  it('answers 404 for another account’s visitor and for an unknown one, 400 for a malformed id', async () => {
    const [account, other] = await Promise.all([newAccount(), newAccount()]);
    const theirs = ok(await link(other, { clientUserId: 'private', attributes: { secret: true } }), 201);
    const response = await call('GET', `/accounts/${account.accountId}/visitors/${theirs.visitorId}`, { token: account.apiKey });
    expectError(response, 404, 'not_found');
    expect(JSON.stringify(response.body)).not.toContain('private');
    expectError(await call('GET', `/accounts/${account.accountId}/visitors/${randomUUID()}`, { token: account.apiKey }), 404, 'not_found');
    expectError(await call('GET', `/accounts/${account.accountId}/visitors/not-a-uuid`, { token: account.apiKey }), 400, 'validation_failed');
    // The owner sees it.
    expect(await visitorOf(other, theirs.visitorId)).toMatchObject({ clientUserId: 'private' });
  });
});

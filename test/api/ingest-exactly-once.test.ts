import type { Client } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccountId, ClientUserId, EntityId, EntityType, EventType } from '../../src/sandbox-safe/search-attributes.ts';
import { ingestBatchEventState } from '../../workflows/ingest-batch.contract.ts';
import { ingestState } from '../../workflows/ingest-event.contract.ts';
import { call, newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { directEvent, newConnection, waitForEvent, type ConnectionFixture } from '../support/ingest.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { post, postSignedTo } from '../support/signed-ingest.ts';
import { startApiInstance, unreachable, type ApiInstance } from '../support/instances.ts';
import { until } from '../support/wait.ts';
import { temporalClient, waitForRunClosed } from '../support/temporal.ts';

let client: Client;
let closeClient: () => Promise<void>;
beforeAll(async () => {
  ({ client, close: closeClient } = await temporalClient());
});
afterAll(() => closeClient?.());

let otherApis: ApiInstance[] = [];
afterEach(async () => {
  await Promise.all(otherApis.map((api) => api.stop()));
  otherApis = [];
});

const rowsOf = (connection: ConnectionFixture, messageId: string) =>
  query('select id, workflow_id, workflow_started_at from inbound_events where connection_id = $1 and message_id = $2', [connection.connectionId, messageId]);

/**
 * Every execution the visibility store knows for this workflow id. Call it once every request that might have started a
 * run has been answered: the latest run is then the last one. Only one run of an id is open at a time, so any other run
 * started and closed before it; once visibility shows the latest run closed, it has taken in the others too.
 */
async function executionsOf(workflowId: string): Promise<Array<{ workflowId: string; runId: string }>> {
  await waitForRunClosed(client, workflowId);
  const latest = await client.workflow.getHandle(workflowId).describe();
  return until(`${workflowId} closed in visibility`, async () => {
    const found: Array<{ workflowId: string; runId: string; status: string }> = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
      found.push({ workflowId: execution.workflowId, runId: execution.runId, status: execution.status.name });
    }
    const latestClosed = found.some((execution) => execution.runId === latest.runId && execution.status !== 'RUNNING');
    return latestClosed ? found.map(({ workflowId: id, runId }) => ({ workflowId: id, runId })) : undefined;
  }, 10_000);
}

describe('exactly once per messageId', () => {
  it('accepts one of 10 concurrent posts of the same messageId; the others get 409; one row, one run', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const event = directEvent({ clientUserId: 'racer' });
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(connection, event)));

    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, ...Array(9).fill(409)]);
    const accepted = responses.find((response) => response.status === 202)!.body;
    for (const refused of responses.filter((response) => response.status === 409)) {
      expect(expectError(refused, 409, 'duplicate_message').message).toContain(accepted.eventId);
    }

    const processed = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(processed.eventId).toBe(accepted.eventId);
    const rows = await rowsOf(connection, event.messageId);
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(accepted.eventId);
    expect(rows[0].workflow_started_at).not.toBeNull();

    // One batch run processed it, and only that one.
    const workflowId = rows[0].workflow_id;
    expect(workflowId).toMatch(/^ingest-batch:ibt_/);
    const description = await client.workflow.getHandle(workflowId).describe();
    expect(description.type).toBe('ingestBatch');
    const executions = await executionsOf(workflowId);
    expect(executions).toEqual([{ workflowId, runId: description.runId }]);
    expect(await client.workflow.getHandle(workflowId).query(ingestBatchEventState, accepted.eventId)).toMatchObject({ status: 'PROCESSED', visitorId: processed.visitorId });
  });

  it('answers a retried post after a 202 with 409, with a new signature or the very same request', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const event = directEvent();
    const raw = JSON.stringify(event);
    const id = `wh-retry-${Date.now()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const first = ok(await post(connection, undefined, { raw, id, timestamp }), 202);

    // The sender's retry of the same delivery (same webhook-id, same signature).
    expect(expectError(await post(connection, undefined, { raw, id, timestamp }), 409, 'duplicate_message').message).toContain(first.eventId);
    // A new delivery of the same message, signed again later.
    const processed = await waitForEvent(account, event.messageId, 'PROCESSED');
    expectError(await post(connection, event), 409, 'duplicate_message');
    expect(await rowsOf(connection, event.messageId)).toHaveLength(1);
    expect(await executionsOf(processed.workflowId)).toHaveLength(1);
  });

  it('accepts (202) through an API that cannot reach Temporal; the relay processes it; a retry is then 409', { timeout: 40_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const down = await startApiInstance({ temporalAddress: unreachable });
    otherApis.push(down);
    const event = directEvent({ clientUserId: 'patient' });

    const accepted = ok(await postSignedTo(down.url, connection, event), 202);
    expect(accepted.messageId).toBe(event.messageId);
    const processed = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(processed).toMatchObject({ eventId: accepted.eventId, clientUserId: 'patient', visitorId: expect.any(String) });
    // The same message, signed again, through the API that reaches Temporal.
    expect(expectError(await post(connection, event), 409, 'duplicate_message').message).toContain(accepted.eventId);
    expect(await rowsOf(connection, event.messageId)).toHaveLength(1);
  });

  it('accepts a batch through an API that cannot reach Temporal, each item once', { timeout: 40_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'segment' });
    const down = await startApiInstance({ temporalAddress: unreachable });
    otherApis.push(down);
    const batch = { batch: [1, 2].map((n) => ({ type: 'track', event: 'Tapped', userId: 'b', messageId: `batch-down-${Date.now()}-${n}` })) };
    const accepted = ok(await postSignedTo(down.url, connection, batch), 202);
    expect(accepted.events.map((event: any) => event.duplicate)).toEqual([false, false]);
    const again = ok(await post(connection, batch), 202);
    expect(again.events.map((event: any) => [event.eventId, event.duplicate])).toEqual(accepted.events.map((event: any) => [event.eventId, true]));
    for (const item of batch.batch) await waitForEvent(account, item.messageId, 'PROCESSED');
    const [row] = await query('select count(*)::int as n from inbound_events where connection_id = $1', [connection.connectionId]);
    expect(row.n).toBe(2);
  });

  it('answers 503 with Retry-After (not 404 or 500) while Postgres is out of reach', { timeout: 40_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const down = await startApiInstance({ databaseUrl: `postgres://postgres@${unreachable}/none` });
    otherApis.push(down);
    const event = directEvent();
    const refused = await postSignedTo(down.url, connection, event);
    expectError(refused, 503, 'service_unavailable');
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);

    // Nothing was kept, so the retry is accepted.
    ok(await post(connection, event), 202);
  });
});

describe('an ingest run seen from Temporal', () => {
  it('names the batch run on the event; the run carries its attributes and a summary, and answers the event\'s state', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { label: 'Checkout service' });
    const event = directEvent({ eventType: 'basket.abandoned', clientUserId: 'seen-1' });
    const accepted = ok(await post(connection, event), 202);
    const processed = await waitForEvent(account, event.messageId, 'PROCESSED');

    const handle = client.workflow.getHandle(processed.workflowId);
    const description = await handle.describe();
    const batchId = processed.workflowId.replace(/^ingest-batch:/, '');
    expect({ EntityType: description.typedSearchAttributes.get(EntityType), EntityId: description.typedSearchAttributes.get(EntityId) }).toEqual({
      EntityType: 'event-batch',
      EntityId: batchId,
    });
    expect(await description.staticSummary()).toMatch(/^\d+ inbound event\(s\) of \d+ person\(s\)$/);
    // The event is marked PROCESSED by the run's step; the run hears of it a moment later.
    await expect.poll(() => handle.query(ingestBatchEventState, accepted.eventId), { timeout: 10_000 }).toEqual({ status: 'PROCESSED', visitorId: processed.visitorId, reason: expect.any(String) });
    expect(await handle.query(ingestBatchEventState, 'iev_not-in-this-batch')).toBeNull();

    // Operators find the batch by its attributes.
    const visibility = `EntityType = "event-batch" AND EntityId = "${batchId}"`;
    const ids = await until('the run in visibility', async () => {
      const found: string[] = [];
      for await (const execution of client.workflow.list({ query: visibility })) found.push(execution.workflowId);
      return found.length > 0 ? found : undefined;
    }, 10_000);
    expect(ids).toEqual([processed.workflowId]);
  });

  it('gives a held event a run of its own, with the event\'s attributes, HELD from the state query, then PROCESSED', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const event = directEvent({ clientUserId: 'waiting-1' });
    ok(await post(connection, event), 202);
    const held = await waitForEvent(account, event.messageId, 'HELD');
    const handle = client.workflow.getHandle(held.workflowId);
    const state = await until('HELD state', async () => {
      const current = await handle.query(ingestState);
      return current.status === 'HELD' ? current : undefined;
    });
    expect(state).toEqual({ status: 'HELD', visitorId: null, reason: expect.stringContaining('waiting-1') });
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const linked = ok(await call('POST', `/accounts/${account.accountId}/visitors`, { token: account.apiKey, body: { clientUserId: 'waiting-1' } }), 201);
    expect(await handle.result()).toMatchObject({ status: 'PROCESSED', visitorId: linked.visitorId });
    expect(await handle.query(ingestState)).toMatchObject({ status: 'PROCESSED', visitorId: linked.visitorId });

    expect(held.workflowId).toBe(`ingest:${connection.connectionId}:${event.messageId}`);
    const attributes = (await handle.describe()).typedSearchAttributes;
    expect({
      AccountId: attributes.get(AccountId),
      EntityType: attributes.get(EntityType),
      EntityId: attributes.get(EntityId),
      EventType: attributes.get(EventType),
      ClientUserId: attributes.get(ClientUserId),
    }).toEqual({ AccountId: account.accountId, EntityType: 'event', EntityId: held.eventId, EventType: 'order.completed', ClientUserId: 'waiting-1' });
  });
});

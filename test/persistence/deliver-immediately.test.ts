import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import pg from 'pg';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attemptDelivery } from '../../src/domain/deliveries/attempt-delivery.ts';
import { publishEvent } from '../../src/domain/events/publish-event.ts';
import { createWorkerMetrics } from '../../src/metrics/worker-metrics.ts';
import { createOutboundHttpClient } from '../../src/outbound/http-client.ts';
import { immediateDeliveryBudgetMs, deliverImmediately, type ImmediateDeliveryDeps } from '../../src/outbox/deliver-immediately.ts';
import { deliveryOutboxChannel } from '../../src/persistence/outbox-channels.ts';
import { claimDeliveriesById, reclaimStalledBatch } from '../../src/outbox/delivery-batches.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { parseAllowCidrs } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import type { TemporalAccess } from '../../src/temporal/temporal-access.ts';
import { deliverBatchWorkflowType, type DeliverBatchInput } from '../../workflows/deliver-batch.contract.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import type { Responder, TestReceiver } from '../support/receiver.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';
import { newEndpoint } from '../support/webhooks.ts';

let orm: Orm;
let temporal: { client: TemporalAccess['client']; close: () => Promise<void> };
// Longer than the budget, so that the budget, not the client's own timeout, is what ends a slow first attempt.
const http = createOutboundHttpClient({ allow: parseAllowCidrs('127.0.0.0/8,::1/128'), timeoutMs: immediateDeliveryBudgetMs * 5, ca: inject('receiverCert') });
const delivery = { retryInitialMs: 200, retryBackoff: 2, maxAttempts: 4, timeoutMs: immediateDeliveryBudgetMs * 5, disableAfterHours: 120 };

beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 4);
  temporal = await temporalClient();
});
afterAll(async () => {
  http.close();
  await temporal?.close();
  await orm?.close();
});

/**
 * A published `webhook.test` whose deliveries the caller takes, as a routing chunk does, on a task queue that no
 * worker serves: a batch run started for what the first attempt leaves stays there, for the test to read.
 */
async function takenDeliveries(endpoints: number, responder?: Responder, taskQueue = `immediate-${randomUUID()}`) {
  const account = await newAccount();
  const receivers: TestReceiver[] = [];
  for (let index = 0; index < endpoints; index++) receivers.push((await newEndpoint(account, ['webhook.test'], responder)).receiver);
  const access: TemporalAccess = { client: temporal.client, taskQueue };
  const taken: string[] = [];
  await publishEvent({ em: orm.em.fork(), temporal: access, delivery, takeDeliveries: (ids) => taken.push(...ids) }, { accountId: account.accountId, type: 'webhook.test', data: { result: {} } });
  const em = orm.em.fork();
  const deps: ImmediateDeliveryDeps = {
    em,
    http,
    secrets: createSecretBox(inject('secretsKey')),
    publish: { em, temporal: access, delivery },
    metrics: createWorkerMetrics(new Registry()),
    logger: pino({ level: 'silent' }),
  };
  return { taken, deps, access, receivers, close: () => Promise.all(receivers.map((receiver) => receiver.close())) };
}

const rowsOf = (ids: string[]) =>
  query<{ id: string; status: string; attempt_count: number; workflow_id: string | null; batch_id: string | null }>(
    'select id, status, attempt_count, workflow_id, batch_id from deliveries where id = any($1) order by id',
    [ids],
  );

describe('a publish whose caller takes its deliveries', () => {
  it('wakes no relay: only the publish that does not take them NOTIFYs', async () => {
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['webhook.test']);
    // One connection, so its notifications arrive in the order of its statements; a marker ends what is counted.
    const single = await connectOrm(inject('databaseUrl'), 1);
    const listener = new pg.Client({ connectionString: inject('databaseUrl') });
    try {
      const [backend] = await single.em.execute<Array<{ pid: number }>>('select pg_backend_pid() as pid');
      const pid = backend!.pid;
      const heard: string[] = [];
      let markerHeard!: () => void;
      const marker = new Promise<void>((resolve) => (markerHeard = resolve));
      listener.on('notification', (message) => {
        if (message.processId !== pid) return;
        if (message.payload === 'end') markerHeard();
        else heard.push(message.payload ?? '');
      });
      await listener.connect();
      await listener.query(`LISTEN ${pg.escapeIdentifier(deliveryOutboxChannel)}`);
      const access: TemporalAccess = { client: temporal.client, taskQueue: `immediate-${randomUUID()}` };
      const publish = (takeDeliveries?: (ids: string[]) => void) =>
        publishEvent({ em: single.em.fork(), temporal: access, delivery, takeDeliveries }, { accountId: account.accountId, type: 'webhook.test', data: { result: {} } });
      const taken: string[] = [];
      await publish((ids) => taken.push(...ids));
      await publish();
      await single.em.execute('select pg_notify(?, ?)', [deliveryOutboxChannel, 'end']);
      await marker;
      expect(taken).toHaveLength(1);
      expect(heard).toEqual(['']);
    } finally {
      await listener.end();
      await single.close();
      await endpoint.receiver.close();
    }
  });
});

describe('deliverImmediately', () => {
  it('claims what it was handed, sends it, and leaves the relay nothing', async () => {
    const { taken, deps, receivers, close } = await takenDeliveries(2);
    try {
      await deliverImmediately(deps, [...taken, ...taken], 'ingest-batch:ibt_test');
      expect(await rowsOf(taken)).toEqual([...taken].sort().map((id) => expect.objectContaining({ id, status: 'succeeded', attempt_count: 1, workflow_id: 'ingest-batch:ibt_test' })));
      expect(receivers.map((receiver) => receiver.requests.length)).toEqual([1, 1]);
      const [first] = await rowsOf(taken.slice(0, 1));
      expect(await query('select 1 from delivery_batches where id = $1 and started_at is not null', [first!.batch_id])).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('ends a first attempt slower than its budget and starts the batch run for that delivery alone', async () => {
    const { taken, deps, access, receivers, close } = await takenDeliveries(1, () => ({ status: 200, body: 'late', delayMs: immediateDeliveryBudgetMs * 2 }));
    try {
      const began = performance.now();
      await deliverImmediately(deps, taken, 'ingest-batch:ibt_test');
      expect(performance.now() - began).toBeLessThan(immediateDeliveryBudgetMs * 2);
      const [row] = await rowsOf(taken);
      expect(row).toMatchObject({ status: 'pending', attempt_count: 1, workflow_id: `deliveries:${row!.batch_id}` });
      const [attempt] = await query<{ outcome: string; error: string }>('select outcome, error from delivery_attempts where delivery_id = $1', [taken[0]]);
      expect(attempt).toMatchObject({ outcome: 'error', error: expect.stringContaining(`timed out: no answer within the ${immediateDeliveryBudgetMs} ms`) });
      expect(receivers[0]!.requests).toHaveLength(1);

      const run = await temporal.client.workflow.getHandle(row!.workflow_id!).describe();
      expect(run).toMatchObject({ type: deliverBatchWorkflowType, taskQueue: access.taskQueue });
      const history = await temporal.client.workflow.getHandle(row!.workflow_id!).fetchHistory();
      const input = defaultPayloadConverter.fromPayload<DeliverBatchInput>(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!);
      expect(input.deliveries.map((batched) => batched.deliveryId)).toEqual(taken);
      await temporal.client.workflow.getHandle(row!.workflow_id!).terminate('test over');
    } finally {
      await close();
    }
  });

  it('leaves nothing behind when its caller dies before it runs: the relay’s poll finds what was taken', async () => {
    // The test stack's own worker and relay serve this task queue; the publish sent them no NOTIFY.
    const { taken, receivers, close } = await takenDeliveries(1, undefined, inject('taskQueue'));
    try {
      await receivers[0]!.waitForRequests(1, 15_000);
      const row = await until('the relay to send it', async () => (await rowsOf(taken)).find((found) => found.status === 'succeeded'), { timeoutMs: 15_000 });
      expect(row.workflow_id).toMatch(/^deliveries:dbt_/);
    } finally {
      await close();
    }
  });

  it('leaves what a cancelled caller took to the relay, unclaimed and unattempted', async () => {
    const { taken, deps, receivers, close } = await takenDeliveries(1);
    try {
      const cancelled = new AbortController();
      cancelled.abort();
      await deliverImmediately({ ...deps, signal: cancelled.signal }, taken, 'ingest-batch:ibt_test');
      expect(await rowsOf(taken)).toEqual([expect.objectContaining({ status: 'pending', attempt_count: 0, batch_id: null, workflow_id: null })]);
      expect(receivers[0]!.requests).toHaveLength(0);
    } finally {
      await close();
    }
  });

  it('holds its claim through the budget, then a relay’s recovery may start the batch', async () => {
    const { taken, deps, access, close } = await takenDeliveries(1);
    try {
      // The process died after its claim: no attempt was made, nothing settled.
      const batch = await claimDeliveriesById(deps.em, { taskQueue: access.taskQueue, deliveryIds: taken, leaseMs: immediateDeliveryBudgetMs, sentBy: 'ingest-batch:ibt_test' });
      expect(batch?.deliveries.map((claimed) => claimed.deliveryId)).toEqual(taken);
      expect(await rowsOf(taken)).toEqual([expect.objectContaining({ status: 'pending', workflow_id: 'ingest-batch:ibt_test' })]);
      expect(await reclaimStalledBatch(orm.em.fork(), access.taskQueue, 1)).toBeUndefined();
      const reclaimed = await until('the lease to run out', () => reclaimStalledBatch(orm.em.fork(), access.taskQueue, 1), { timeoutMs: immediateDeliveryBudgetMs * 3, intervalMs: 100 });
      expect(reclaimed).toMatchObject({ batchId: batch!.batchId });
      expect(await rowsOf(taken)).toEqual([expect.objectContaining({ status: 'pending', workflow_id: `deliveries:${batch!.batchId}` })]);
    } finally {
      await close();
    }
  });
});

describe('an attempt and what it changes', () => {
  it('commit together: when the delivery cannot be updated, no attempt is left recorded beside it', async () => {
    const { taken, deps, receivers, close } = await takenDeliveries(1);
    const [deliveryId] = taken;
    // As a worker killed between the two writes: the delivery's update fails after the attempt's row is written.
    const trigger = `refuse_${randomUUID().replaceAll('-', '')}`;
    await query(`create function ${trigger}() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`);
    await query(`create trigger ${trigger} before update on deliveries for each row when (old.id = '${deliveryId}') execute function ${trigger}()`);
    try {
      await expect(attemptDelivery(deps, { deliveryId: deliveryId!, attemptNumber: 1 })).rejects.toThrow(/refused/);
      expect(receivers[0]!.requests).toHaveLength(1);
      expect(await query('select count(*)::int as n from delivery_attempts where delivery_id = $1', [deliveryId])).toEqual([{ n: 0 }]);
      expect(await rowsOf([deliveryId!])).toMatchObject([{ status: 'pending' }]);
    } finally {
      await query(`drop trigger ${trigger} on deliveries`);
      await query(`drop function ${trigger}()`);
      await close();
    }
  });
});

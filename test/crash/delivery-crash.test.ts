import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishEvent } from '../../src/domain/events/publish-event.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { newAccount } from '../support/api.ts';
import { killWorker, startWorkerProcess } from '../support/instances.ts';
import { newEndpoint, waitForDeliveries } from '../support/webhooks.ts';
import { claimDeliveryBatch } from '../../src/outbox/delivery-batches.ts';
import { query } from '../support/db.ts';
import { until } from '../support/wait.ts';

let scratch: string;
let orm: Orm;
let connection: Connection;
const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-crash-'));
  orm = await connectOrm(inject('databaseUrl'), 2);
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await connection?.close();
  await orm?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** The run that sends the event's one delivery, once the relay has claimed it. */
async function batchRunOf(eventId: string, timeoutMs = 30_000): Promise<string> {
  const claimedBy = async () => {
    const [row] = await query<{ workflow_id: string | null }>('select workflow_id from deliveries where event_id = $1', [eventId]);
    return row?.workflow_id ?? undefined;
  };
  return until(`the delivery of ${eventId} to be claimed`, claimedBy, { timeoutMs, intervalMs: 25 });
}

/** Waits until a relay has started the batch's run and marked the batch started. */
async function waitForBatchStarted(batchId: string, timeoutMs = 30_000): Promise<void> {
  const started = async () => (await query('select 1 from delivery_batches where id = $1 and started_at is not null', [batchId])).length > 0;
  await until(`batch ${batchId} to be started`, started, { timeoutMs, intervalMs: 25 });
}

describe('a delivery in flight survives a worker crash', () => {
  it('completes exactly once, under the same webhook-id, after the worker is killed mid-retry', { timeout: 120_000 }, async () => {
    const caFile = join(scratch, 'receiver-ca.pem');
    await writeFile(caFile, inject('receiverCert'));
    const taskQueue = `crash-${randomUUID()}`;
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['webhook.test'], (_request, index) => (index === 0 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    try {
      const first = track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile }));
      const client = new Client({ connection, namespace: inject('namespace') });
      const { eventId } = await publishEvent(
        // A 3 s first backoff leaves time to kill the worker between the failed attempt and its retry.
        { em: orm.em.fork(), temporal: { client, taskQueue }, delivery: { retryInitialMs: 3000, retryBackoff: 2, maxAttempts: 5, timeoutMs: 5000, disableAfterHours: 120 } },
        { accountId: account.accountId, type: 'webhook.test', data: { result: { crash: true } } },
      );

      await endpoint.receiver.waitForRequests(1, 30_000);
      // Kill between the attempts: once the failed one is recorded and the retry is waiting out its backoff.
      await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.attempts.length === 1, 30_000);
      await killWorker(first);

      track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile }));
      // Once the delivery's run has ended, no attempt can follow: the count below is final.
      expect(await client.workflow.getHandle(await batchRunOf(eventId)).result()).toEqual({ succeeded: 1, failed: 0 });
      const [delivery] = await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.status === 'succeeded', 60_000);

      expect(endpoint.receiver.requests).toHaveLength(2);
      expect(endpoint.receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);
      expect(delivery.attemptCount).toBe(2);
      expect(delivery.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['retry', 'delivered']);
    } finally {
      await endpoint.receiver.close();
    }
  });

  it('aborts the attempt in flight when its worker shuts down, and the next worker delivers it under the same webhook-id', { timeout: 120_000 }, async () => {
    const caFile = join(scratch, 'receiver-ca-shutdown.pem');
    await writeFile(caFile, inject('receiverCert'));
    const taskQueue = `shutdown-${randomUUID()}`;
    const account = await newAccount();
    // The first request hangs for a minute; the HTTP timeout allows it, so only the shutdown can end it sooner.
    const endpoint = await newEndpoint(account, ['webhook.test'], (_request, index) => (index === 0 ? { status: 200, delayMs: 60_000 } : { status: 200, body: 'ok' }));
    try {
      const first = track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile, DELIVERY_TIMEOUT_MS: '60000' }));
      const client = new Client({ connection, namespace: inject('namespace') });
      const { eventId } = await publishEvent(
        { em: orm.em.fork(), temporal: { client, taskQueue }, delivery: { retryInitialMs: 200, retryBackoff: 2, maxAttempts: 5, timeoutMs: 60_000, disableAfterHours: 120 } },
        { accountId: account.accountId, type: 'webhook.test', data: { result: { shutdown: true } } },
      );
      await endpoint.receiver.waitForRequests(1, 30_000);

      const exited = new Promise((resolve) => first.once('exit', resolve));
      first.kill('SIGTERM');
      await exited;
      // The worker did not wait out the reply: it closed the connection, and recorded the attempt as aborted.
      expect(endpoint.receiver.requests[0]!.abortedAt).toBeDefined();
      const [aborted] = await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.attempts.length === 1, 30_000);
      expect(aborted.attempts[0]).toMatchObject({ attemptNumber: 1, outcome: 'error', error: expect.stringMatching(/^aborted: /) });

      track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile, DELIVERY_TIMEOUT_MS: '60000' }));
      expect(await client.workflow.getHandle(await batchRunOf(eventId)).result()).toEqual({ succeeded: 1, failed: 0 });
      expect(endpoint.receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);
    } finally {
      await endpoint.receiver.close();
    }
  });

  it('loses nothing when a relay dies between committing its claim and starting the batch, and never sends it twice', { timeout: 120_000 }, async () => {
    const caFile = join(scratch, 'receiver-ca-relay.pem');
    await writeFile(caFile, inject('receiverCert'));
    const taskQueue = `relay-crash-${randomUUID()}`;
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['webhook.test']);
    try {
      const client = new Client({ connection, namespace: inject('namespace') });
      const { eventId } = await publishEvent(
        { em: orm.em.fork(), temporal: { client, taskQueue }, delivery: { retryInitialMs: 200, retryBackoff: 2, maxAttempts: 5, timeoutMs: 5000, disableAfterHours: 120 } },
        { accountId: account.accountId, type: 'webhook.test', data: { result: { relayCrash: true } } },
      );
      // What a relay leaves behind when it dies right after its claim committed: the batch and its rows, no run.
      const claimed = await claimDeliveryBatch(orm.em.fork(), taskQueue, 100);
      expect(claimed?.deliveries.map((delivery) => delivery.eventId)).toEqual([eventId]);
      const batchRun = await batchRunOf(eventId);
      await expect(client.workflow.getHandle(batchRun).describe()).rejects.toThrow(/not found/i);

      // The next relay on that queue finds the batch unstarted, and starts it under the id of the claim.
      track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile, DELIVERY_RELAY_RECOVER_AFTER_MS: '500', DELIVERY_RELAY_POLL_MS: '100' }));
      await waitForBatchStarted(claimed!.batchId);
      expect(await client.workflow.getHandle(batchRun).result()).toEqual({ succeeded: 1, failed: 0 });
      expect(endpoint.receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId]);

      // A relay that died after the start but before marking it: starting it again finds the finished run and sends
      // nothing. The batch is marked started once that start has been tried.
      await query(`update delivery_batches set started_at = null, claimed_at = now() - interval '1 hour' where id = $1`, [claimed!.batchId]);
      await waitForBatchStarted(claimed!.batchId);
      const runs = await client.workflow.count(`WorkflowId = '${batchRun}'`);
      expect(runs.count).toBe(1);
      expect(endpoint.receiver.requests).toHaveLength(1);
    } finally {
      await endpoint.receiver.close();
    }
  });
});

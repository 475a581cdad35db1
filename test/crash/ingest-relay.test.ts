import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { defaultPayloadConverter } from '@temporalio/common';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { createConnection } from '../../src/domain/connections/create-connection.ts';
import { acceptInboundEvent } from '../../src/domain/ingest/accept-inbound-event.ts';
import { inboundEventsChannel } from '../../src/persistence/outbox-channels.ts';
import { claimInboundBatch, createIngestRelay } from '../../src/outbox/ingest-batches.ts';
import { createLogger } from '../../src/logger.ts';
import { startRelayLoop, type RunningRelay } from '../../src/outbox/relay-loop.ts';
import type { Connection as ConnectionRow } from '../../src/persistence/entities/connection.ts';
import { connectOrm, migrateUp, type Orm } from '../../src/persistence/orm.ts';
import { systemResolve } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { startServiceWorker } from '../../src/service/worker-process.ts';
import type { IngestBatchInput } from '../../workflows/ingest-batch.contract.ts';
import { killWorker, startApiInstance, startWorkerProcess, unreachable } from '../support/instances.ts';
import { postSignedTo } from '../support/signed-ingest.ts';
import { until } from '../support/wait.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

/**
 * The ingest outbox on a database of its own (the run's shared worker relays only the shared one), with a worker on
 * a task queue of its own that runs no relay: each test decides which relays run, and when.
 */
const silent = createLogger('silent');
const taskQueue = `ingest-relay-${randomUUID()}`;
let database: TestDatabase;
let orm: Orm;
let sql: pg.Client;
let temporal: Connection;
let client: Client;
let worker: { stop(): Promise<void> } | undefined;
let connection: ConnectionRow & { signingSecret: string };
const children: ChildProcess[] = [];
const relays: RunningRelay[] = [];

beforeAll(async () => {
  database = await createTestDatabase(silent);
  orm = await connectOrm(database.url, 4);
  await migrateUp(orm);
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  temporal = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection: temporal, namespace: inject('namespace') });
  worker = await startServiceWorker(
    {
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      namespace: inject('namespace'),
      taskQueue,
      secretsKey: inject('secretsKey'),
      publicUrl: inject('apiUrl'),
      delivery: inject('delivery'),
      push: { provider: 'log' },
      ingestRelay: { batchSize: 10, chunkSize: 5, lanes: 0, pollIntervalMs: 200, lingerMs: 0 },
      logger: silent,
    },
    orm,
    { workflowBundle: { codePath: inject('workflowBundlePath') } },
  );
  const { account } = await createAccount(orm.em.fork(), { name: 'relay tests' });
  const created = await createConnection(
    { em: orm.em.fork(), secrets: createSecretBox(inject('secretsKey')), outbound: { allow: [], resolve: systemResolve } },
    account.id,
    { provider: 'direct', label: 'relay tests' },
  );
  connection = Object.assign(created.connection, { signingSecret: created.signingSecret });
}, 120_000);

afterAll(async () => {
  for (const child of children) await killWorker(child);
  await Promise.all(relays.map((relay) => relay.stop()));
  await worker?.stop();
  await temporal?.close();
  await sql?.end();
  await orm?.close();
  await database?.drop();
});

let sequence = 0;
const envelope = (person: number) => ({
  version: '1' as const,
  messageId: `relay-${Date.now()}-${++sequence}`,
  occurredAt: new Date().toISOString(),
  eventType: 'order.completed',
  clientUserId: `person-${person}`,
});

/** Commits events exactly as POST /v1/in does once the request is verified; returns their ids. */
async function accept(count: number, persons: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push((await acceptInboundEvent({ em: orm.em.fork(), taskQueue }, connection, envelope(n % persons))).eventId);
  return ids;
}

async function waitProcessed(ids: string[], timeoutMs = 60_000): Promise<void> {
  await until(
    `${ids.length} events PROCESSED`,
    async () => {
      const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from inbound_events where id = any($1) and status = 'PROCESSED'`, [ids]);
      return rows[0]!.n === ids.length;
    },
    timeoutMs,
  );
}

/**
 * The proof of "started once": every event sits in exactly one batch, every batch of these events has exactly one
 * execution in Temporal (listed once all have closed), and the batches' inputs, read from their histories, name each
 * event exactly once.
 */
async function expectStartedOnce(ids: string[]): Promise<void> {
  const { rows } = await sql.query<{ id: string; relay_batch_id: string | null; workflow_id: string }>(
    'select id, relay_batch_id, workflow_id from inbound_events where id = any($1)',
    [ids],
  );
  expect(rows.every((row) => row.relay_batch_id && row.workflow_id === `ingest-batch:${row.relay_batch_id}`)).toBe(true);
  const workflowIds = [...new Set(rows.map((row) => row.workflow_id))];
  const executions = await until('every batch closed in visibility', async () => {
    const found: Array<{ workflowId: string; status: string }> = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = "ingestBatch" AND TaskQueue = "${taskQueue}"` })) {
      if (workflowIds.includes(execution.workflowId)) found.push({ workflowId: execution.workflowId, status: execution.status.name });
    }
    const closed = found.filter((execution) => execution.status !== 'RUNNING');
    return new Set(closed.map((execution) => execution.workflowId)).size === workflowIds.length ? found : undefined;
  });
  expect(executions.map((execution) => execution.workflowId).sort()).toEqual([...workflowIds].sort());

  const named: string[] = [];
  for (const workflowId of workflowIds) {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    named.push(...defaultPayloadConverter.fromPayload<IngestBatchInput>(payload).groups.flat());
  }
  expect(named.sort()).toEqual([...ids].sort());
}

function relay(name: string, temporalClient: Client, relayOrm: Orm, logger = silent, batchSize = 5): RunningRelay {
  const running = startRelayLoop({
    name,
    databaseUrl: database.url,
    channel: inboundEventsChannel,
    relayBatch: createIngestRelay({ em: () => relayOrm.em.fork(), temporal: { client: temporalClient, taskQueue } }, { batchSize, chunkSize: 2 }),
    pollIntervalMs: 200,
    lanes: 3,
    logger,
  });
  relays.push(running);
  return running;
}

describe('the ingest relay', () => {
  it('loses nothing when no relay runs at commit, or a relay dies after claiming or mid-way: all PROCESSED, each started once', { timeout: 180_000 }, async () => {
    const ids = await accept(40, 8);
    // A relay claimed a batch and died before starting it.
    const orphan = await claimInboundBatch(orm.em.fork(), taskQueue, 12);
    expect(orphan.rows).toHaveLength(12);

    const env = { DATABASE_URL: database.url, INGEST_RELAY_BATCH_SIZE: '4', INGEST_RELAY_CHUNK_SIZE: '2', INGEST_RELAY_POLL_MS: '200' };
    const first = await startWorkerProcess(taskQueue, env);
    children.push(first);
    // Killed once it has relayed part of the backlog: whatever it claimed, started or left half done is taken over.
    await until('a first batch relayed', async () => {
      const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from inbound_events where id = any($1) and workflow_started_at is not null', [ids]);
      return rows[0]!.n > 0;
    }, 60_000);
    await killWorker(first);
    children.push(await startWorkerProcess(taskQueue, env));

    await waitProcessed(ids, 90_000);
    const { rows } = await sql.query<{ relay_batch_id: string }>('select distinct relay_batch_id from inbound_events where id = any($1)', [ids]);
    expect(rows.map((row) => row.relay_batch_id)).toContain(orphan.batchId);
    await expectStartedOnce(ids);
    for (const child of children.splice(0)) await killWorker(child);
  });

  it('lets two relays run side by side: disjoint batches, each event started once, each person’s events in order', { timeout: 120_000 }, async () => {
    const ids = await accept(120, 12);
    const orms = await Promise.all([connectOrm(database.url, 3), connectOrm(database.url, 3)]);
    try {
      relay('first', client, orms[0]);
      relay('second', client, orms[1]);
      await waitProcessed(ids);
      await Promise.all(relays.splice(0).map((running) => running.stop()));
    } finally {
      await Promise.all(orms.map((each) => each.close()));
    }
    await expectStartedOnce(ids);
    const { rows } = await sql.query<{ client_user_id: string; processed_at: Date }>(
      'select client_user_id, processed_at from inbound_events where id = any($1) order by created_at, id',
      [ids],
    );
    const last = new Map<string, number>();
    for (const row of rows) {
      const at = new Date(row.processed_at).getTime();
      expect(at).toBeGreaterThanOrEqual(last.get(row.client_user_id) ?? 0);
      last.set(row.client_user_id, at);
    }
  });

  it('keeps answering 202 while Temporal is out of reach, and drains the backlog once it is back', { timeout: 120_000 }, async () => {
    const proxy = await startProxy(inject('temporalAddress'));
    const proxied = await Connection.connect({ address: proxy.address });
    const api = await startApiInstance({ databaseUrl: database.url, temporalAddress: unreachable, taskQueue });
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    try {
      proxy.down();
      relay('outage', new Client({ connection: proxied, namespace: inject('namespace') }), orm, logger);
      const post = async () => {
        const response = await postSignedTo(api.url, connection, envelope(Math.floor(Math.random() * 3)));
        expect(response.status).toBe(202);
        return response.body.eventId as string;
      };
      const ids: string[] = [];
      for (let n = 0; n < 10; n++) ids.push(await post());
      await until('the relay failing to reach Temporal', async () => warnings.some((line) => line.includes('relaying a batch failed')), 60_000);
      for (let n = 0; n < 10; n++) ids.push(await post());
      const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from inbound_events where id = any($1) and status = 'RECEIVED' and workflow_started_at is null`, [ids]);
      expect(rows[0]!.n).toBe(20);

      proxy.up();
      await waitProcessed(ids, 90_000);
      await expectStartedOnce(ids);
    } finally {
      await Promise.all(relays.splice(0).map((running) => running.stop()));
      await api.stop();
      await proxied.close();
      await proxy.close();
    }
  });
});

/** A TCP proxy to Temporal that can be cut (every connection dropped, new ones refused) and restored. */
async function startProxy(target: string) {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((socket) => {
    if (cut) return void socket.destroy();
    const upstream = net.connect(port, host);
    sockets.add(socket).add(upstream);
    const drop = () => {
      socket.destroy();
      upstream.destroy();
      sockets.delete(socket);
      sockets.delete(upstream);
    };
    socket.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    down() {
      cut = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    up() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

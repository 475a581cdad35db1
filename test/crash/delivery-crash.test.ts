import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishEvent } from '../../src/domain/events/publish-event.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { newAccount } from '../support/api.ts';
import { newEndpoint, waitForDeliveries } from '../support/webhooks.ts';

let scratch: string;
let orm: Orm;
let connection: Connection;
const children: ChildProcess[] = [];

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

/** `npm run worker` as production runs it, trusting the test receiver's certificate through NODE_EXTRA_CA_CERTS. */
async function startWorkerProcess(taskQueue: string, caFile: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['src/main/worker.ts'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('namespace'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SECRETS_KEY: inject('secretsKey'),
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
      NODE_EXTRA_CA_CERTS: caFile,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      if (output.includes('"msg":"worker running"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return child;
}

describe('a delivery in flight survives a worker crash', () => {
  it('completes exactly once, under the same webhook-id, after the worker is killed mid-retry', { timeout: 120_000 }, async () => {
    const caFile = join(scratch, 'receiver-ca.pem');
    await writeFile(caFile, inject('receiverCert'));
    const taskQueue = `crash-${randomUUID()}`;
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['webhook.test'], (_request, index) => (index === 0 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    try {
      const first = await startWorkerProcess(taskQueue, caFile);
      const client = new Client({ connection, namespace: inject('namespace') });
      const { eventId } = await publishEvent(
        // A 3 s first backoff leaves time to kill the worker between the failed attempt and its retry.
        { em: orm.em.fork(), temporal: { client, taskQueue }, delivery: { retryInitialMs: 3000, retryBackoff: 2, maxAttempts: 5, timeoutMs: 5000, disableAfterHours: 120 } },
        { accountId: account.accountId, type: 'webhook.test', data: { result: { crash: true } } },
      );

      await endpoint.receiver.waitForRequests(1, 30_000);
      // Kill between the attempts: once the failed one is recorded and the retry is waiting out its backoff.
      await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.attempts.length === 1, 30_000);
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));

      await startWorkerProcess(taskQueue, caFile);
      const [delivery] = await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.status === 'succeeded', 60_000);
      // Give a duplicate time to show up, if there were one.
      await new Promise((resolve) => setTimeout(resolve, 2000));

      expect(endpoint.receiver.requests).toHaveLength(2);
      expect(endpoint.receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);
      expect(delivery.attemptCount).toBe(2);
      expect(delivery.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['retry', 'delivered']);
    } finally {
      await endpoint.receiver.close();
    }
  });
});

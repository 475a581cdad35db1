import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { until } from '../support/ingest-extra.ts';
import { killWorker, startApiProcess, startWorkerProcess } from '../support/instances.ts';
import { newMessage, sampleJob } from '../support/jobs.ts';

/**
 * WORKER_ROLE as a deployment splits the worker (docker-compose.yml: worker and worker-interactive): `npm run api` and
 * `npm run worker` as child processes on a task queue of their own. Which queues each process polls is read from the
 * Temporal server's own list of pollers, where a worker's identity starts with its process id.
 */
const taskQueue = `roles-${randomUUID()}`;
const interactiveQueue = `${taskQueue}-interactive`;
const children: ChildProcess[] = [];
let connection: Connection;
let client: Client;
let apiUrl: string;
let account: TestAccount;

/** The process ids of the workers that polled `queue` for workflow tasks lately, as the server lists them. */
async function pollingProcesses(queue: string): Promise<number[]> {
  const answer = await client.workflowService.describeTaskQueue({
    namespace: inject('namespace'),
    taskQueue: { name: queue },
    taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (answer.pollers ?? []).map((poller) => Number(String(poller.identity).split('@')[0]));
}

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('namespace') });
  const api = await startApiProcess(taskQueue);
  children.push(api.child);
  apiUrl = api.url;
  account = await newAccount();
}, 120_000);

afterAll(async () => {
  for (const child of children) await killWorker(child);
  await connection?.close();
});

describe('worker roles', () => {
  let interactive: ChildProcess;

  it('runs recording jobs with only an interactive worker, which never polls the bulk queue', async () => {
    interactive = await startWorkerProcess(taskQueue, { WORKER_ROLE: 'interactive' });
    children.push(interactive);
    const notificationId = await newMessage(account);
    // Created means the job's run took its first update: a worker served the interactive queue.
    const created = await call('POST', '/job/create', { baseUrl: apiUrl, token: account.apiKey, body: sampleJob(account, notificationId) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await pollingProcesses(interactiveQueue)).toContain(interactive.pid);
    expect(await pollingProcesses(taskQueue)).toEqual([]);
  }, 60_000);

  it('polls the bulk queue with a bulk worker, which never polls the interactive queue', async () => {
    const bulk = await startWorkerProcess(taskQueue, { WORKER_ROLE: 'bulk' });
    children.push(bulk);
    await until('the bulk worker to poll its queue', async () => (await pollingProcesses(taskQueue)).includes(bulk.pid!));
    expect(await pollingProcesses(taskQueue)).not.toContain(interactive.pid);
    expect(await pollingProcesses(interactiveQueue)).not.toContain(bulk.pid);
  }, 60_000);

  it('refuses to split one queue: the worker exits with the configuration error', async () => {
    await expect(startWorkerProcess(taskQueue, { WORKER_ROLE: 'bulk', TEMPORAL_INTERACTIVE_TASK_QUEUE: taskQueue })).rejects.toThrow(
      /WORKER_ROLE is invalid: must be all while TEMPORAL_INTERACTIVE_TASK_QUEUE is TEMPORAL_TASK_QUEUE/,
    );
  }, 60_000);
});

import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { killWorker, startApiProcess, startWorkerProcess } from '../support/instances.ts';
import { newMessage, sampleJob } from '../support/jobs.ts';
import { until } from '../support/wait.ts';

/**
 * WORKER_ROLE as a deployment splits the worker (docker-compose.yml: worker and worker-interactive): `npm run api` and
 * `npm run worker` as child processes. Which queues each process polls is read from the Temporal server's own list of
 * pollers, where a worker's identity starts with its process id. The server remembers a poller for minutes after it
 * stops, so each test takes a task queue of its own and starts every process it looks at: none sees another's.
 */
const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);
let connection: Connection;
let client: Client;

/** A bulk task queue no other test uses, and the interactive queue named after it. */
function newQueues(): { taskQueue: string; interactiveQueue: string } {
  const taskQueue = `roles-${randomUUID()}`;
  return { taskQueue, interactiveQueue: `${taskQueue}-interactive` };
}

/** The process ids of the workers that polled `queue` for workflow tasks lately, as the server lists them. */
async function pollingProcesses(queue: string): Promise<number[]> {
  const answer = await client.workflowService.describeTaskQueue({
    namespace: inject('namespace'),
    taskQueue: { name: queue },
    taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (answer.pollers ?? []).map((poller) => Number(String(poller.identity).split('@')[0]));
}

/** Waits until the server lists the worker among the pollers of `queue`. */
const waitUntilPolling = (worker: ChildProcess, queue: string) =>
  until(`worker ${worker.pid} to poll ${queue}`, () => pollingProcesses(queue), (pids) => pids.includes(worker.pid!));

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('namespace') });
});

afterAll(async () => {
  for (const child of children) await killWorker(child);
  await connection?.close();
});

describe('worker roles', () => {
  it('runs recording jobs with only an interactive worker, which never polls the bulk queue', async () => {
    const { taskQueue, interactiveQueue } = newQueues();
    const [api, interactive, account] = await Promise.all([
      startApiProcess(taskQueue).then((started) => (track(started.child), started)),
      startWorkerProcess(taskQueue, { WORKER_ROLE: 'interactive' }).then(track),
      newAccount(),
    ]);
    const notificationId = await newMessage(account);
    // Created means the job's run took its first update: a worker served the interactive queue.
    const created = await call('POST', '/job/create', { baseUrl: api.url, token: account.apiKey, body: sampleJob(account, notificationId) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await pollingProcesses(interactiveQueue)).toContain(interactive.pid);
    expect(await pollingProcesses(taskQueue)).toEqual([]);
  }, 60_000);

  it('polls the bulk queue with a bulk worker, which never polls the interactive queue', async () => {
    const { taskQueue, interactiveQueue } = newQueues();
    const [interactive, bulk] = await Promise.all([
      startWorkerProcess(taskQueue, { WORKER_ROLE: 'interactive' }).then(track),
      startWorkerProcess(taskQueue, { WORKER_ROLE: 'bulk' }).then(track),
    ]);
    // Both are up and polling their own queue, so had either polled the other's, the server would list it there too.
    await waitUntilPolling(bulk, taskQueue);
    await waitUntilPolling(interactive, interactiveQueue);
    expect(await pollingProcesses(taskQueue)).not.toContain(interactive.pid);
    expect(await pollingProcesses(interactiveQueue)).not.toContain(bulk.pid);
  }, 60_000);

  it('refuses to split one queue: the worker exits with the configuration error', async () => {
    const { taskQueue } = newQueues();
    await expect(startWorkerProcess(taskQueue, { WORKER_ROLE: 'bulk', TEMPORAL_INTERACTIVE_TASK_QUEUE: taskQueue })).rejects.toThrow(
      /WORKER_ROLE is invalid: must be all while TEMPORAL_INTERACTIVE_TASK_QUEUE is TEMPORAL_TASK_QUEUE/,
    );
  }, 60_000);
});

import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningApi } from '../../src/service/api-server.ts';
import { newAccount } from '../support/api.ts';
import { fileRow } from '../support/files.ts';
import { holdInTransaction, query } from '../support/db.ts';
import { killWorker, startApiInstance, startWorkerProcess } from '../support/instances.ts';
import { newMessage, sampleJob } from '../support/jobs.ts';
import { until } from '../support/wait.ts';

const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);
const stops: Array<() => Promise<unknown>> = [];
let connection: Connection;
let client: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('namespace') });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const stop of stops.reverse()) await stop();
  await connection?.close();
});

/** A second API instance whose jobs run on `taskQueue`, sharing the run's database and Temporal server. */
async function startApiOn(taskQueue: string): Promise<RunningApi> {
  const api = await startApiInstance({ taskQueue });
  stops.push(api.stop);
  return api;
}

async function callAt(api: RunningApi, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const eventsOf = (accountId: string) => query<{ type: string; body: string }>('select type, body from outbound_events where account_id = $1', [accountId]);

describe('a recording job survives a worker crash', () => {
  it('continues where it was after the worker is killed between two calls, and a call made while no worker runs completes', { timeout: 120_000 }, async () => {
    const taskQueue = `job-crash-${randomUUID()}`;
    const [firstWorker, api] = await Promise.all([startWorkerProcess(taskQueue).then(track), startApiOn(taskQueue)]);
    const account = await newAccount();
    const token = account.apiKey;
    const notificationId = await newMessage(account);

    const created = await callAt(api, token, 'POST', '/job/create', sampleJob(account, notificationId));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const jobId = created.body.id;
    const executed = await callAt(api, token, 'POST', `/job/executeJob?id=${jobId}`);
    expect(executed.status).toBe(200);
    expect(executed.body.status).toBe('ASSIGNED');
    const handle = client.workflow.getHandle(created.body.workflowId);
    const runBefore = (await handle.describe()).runId;

    // Crash between two calls: once the job.assigned event is out, so no activity is left with the dying worker (one
    // that is would wait out its 30 s start-to-close timeout before it runs again).
    await until(
      'no activity pending and the job.assigned event out',
      async () => (await handle.describe()).raw.pendingActivities?.length === 0 && (await eventsOf(account.accountId)).length === 1,
    );
    await killWorker(firstWorker);

    // Sent while no worker runs: the update waits on the server for the next worker.
    const take = await fileRow(account);
    const submitting = callAt(api, token, 'POST', `/job/recording?id=${jobId}`, { fileId: take.fileId });
    track(await startWorkerProcess(taskQueue));
    const submitted = await submitting;
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    expect(submitted.body.job).toMatchObject({ status: 'SUBMITTED', title: created.body.title, artist: created.body.artist });
    expect(submitted.body.job.recordings).toHaveLength(1);

    const selected = await callAt(api, token, 'POST', `/richPush/select?file_id=${submitted.body.fileId}`);
    expect(selected.status).toBe(200);
    expect(selected.body).toMatchObject({ status: 'SELECTED', selectedFileId: submitted.body.fileId });
    const accepted = await callAt(api, token, 'POST', `/job/accept?id=${jobId}`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', selectedFileId: submitted.body.fileId });

    // The same run carried on (nothing was restarted or lost), and finished with the job as stored (the API adds the
    // artist's link, null once accepted, which the run never holds).
    const { artistLink, ...acceptedJob } = accepted.body;
    expect(artistLink).toBeNull();
    expect(await handle.result()).toEqual(acceptedJob);
    const description = await handle.describe();
    expect(description.runId).toBe(runBefore);
    expect(description.status.name).toBe('COMPLETED');

    // Every event of the job was published exactly once.
    const events = await eventsOf(account.accountId);
    expect(events.map((event) => event.type).sort()).toEqual(['job.accepted', 'job.assigned', 'job.recording_submitted']);
    expect(events.every((event) => JSON.parse(event.body).data.result.jobId === jobId)).toBe(true);

    const stored = await callAt(api, token, 'GET', `/job/get?id=${jobId}`);
    expect(stored.body).toEqual(accepted.body);
    expect(stored.body.recordings.map((r: any) => r.url)).toEqual([take.url]);
    const message = await callAt(api, token, 'GET', `/notification/get?id=${notificationId}`);
    expect(message.body).toMatchObject({ status: 'READY', recording: { url: take.url, fileId: take.fileId, stockId: null } });
  });
  it('completes a step on the next worker when its worker is killed in the middle of the step\'s write', { timeout: 120_000 }, async () => {
    const taskQueue = `job-crash-${randomUUID()}`;
    const [firstWorker, api] = await Promise.all([startWorkerProcess(taskQueue).then(track), startApiOn(taskQueue)]);
    const account = await newAccount();
    const token = account.apiKey;
    const created = await callAt(api, token, 'POST', '/job/create', sampleJob(account, await newMessage(account)));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const jobId = created.body.id;
    expect((await callAt(api, token, 'POST', `/job/executeJob?id=${jobId}`)).status).toBe(200);
    const handle = client.workflow.getHandle(created.body.workflowId);
    const runBefore = (await handle.describe()).runId;

    // The step's write (an activity) waits for the job's row lock, which the test holds: the worker is killed with the
    // write in flight, before anything of it is stored or its completion recorded in the history.
    const lock = await holdInTransaction('select id from jobs where id = $1 for update', [jobId]);
    const take = await fileRow(account);
    const submitting = callAt(api, token, 'POST', `/job/recording?id=${jobId}`, { fileId: take.fileId });
    try {
      const waitingOnLock = `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%"jobs"%' and query like '%for update%' and datname = current_database()`;
      await until("the step's write to wait for the job's row lock", async () => (await query(waitingOnLock)).length > 0);
      await killWorker(firstWorker);
      track(await startWorkerProcess(taskQueue));
    } finally {
      await lock.release();
    }

    // The activity is retried on the next worker once its start-to-close timeout (30 s) has passed, under the
    // transition id the run fixed: one recording, one event. (A write that committed before its worker died is
    // answered the same way: test/persistence/job-writes.test.ts.)
    const submitted = await submitting;
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    expect(submitted.body.job).toMatchObject({ status: 'SUBMITTED' });
    expect(submitted.body.job.recordings.map((r: any) => r.fileId)).toEqual([take.fileId]);
    expect(await query('select 1 from files where job_id = $1 and submission_id is not null', [jobId])).toHaveLength(1);
    expect((await handle.describe()).runId).toBe(runBefore);
    await until('the job.recording_submitted event', async () => (await eventsOf(account.accountId)).some((event) => event.type === 'job.recording_submitted'));
    const cancelled = await callAt(api, token, 'POST', `/job/cancel?id=${jobId}`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await handle.result();
    expect((await eventsOf(account.accountId)).map((event) => event.type).sort()).toEqual(['job.assigned', 'job.cancelled', 'job.recording_submitted']);
  });
});

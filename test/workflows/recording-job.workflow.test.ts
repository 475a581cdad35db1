import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createJobActivities } from '../../activities/jobs.ts';
import type { ActivityDeps } from '../../activities/deps.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { AccountId, AppId, EntityId, EntityType, JobStatus } from '../../src/sandbox-safe/search-attributes.ts';
import { acceptJob, cancelJob, createJob, executeJob, jobState, selectRecording, submitRecording, updateJob, type CreateJobArgs } from '../../workflows/recording-job.contract.ts';
import { createRecordingJobRun, recordingJobHandle } from '../../src/temporal/starters/recording-job.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { fileRow } from '../support/files.ts';
import { newMessage } from '../support/jobs.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, createTestWorker } from '../support/temporal-worker.ts';
import { until } from '../support/wait.ts';

let env: TestWorkflowEnvironment;
let orm: Orm;
let worker: Worker;
let taskQueue: string;
let running: Promise<void>;

beforeAll(async () => {
  env = await connectTestEnvironment();
  orm = await connectOrm(inject('databaseUrl'), 4);
  // The real job activities on the test database. Their events fan out on the service's own task queue, whose
  // worker (started by the global setup) delivers them.
  const activities = createJobActivities({
    orm,
    temporal: { client: env.client, taskQueue: inject('taskQueue') },
    delivery: inject('delivery'),
    secrets: createSecretBox(inject('secretsKey')),
    publicUrl: inject('apiUrl'),
    artistLinkGraceHours: 72,
  } as ActivityDeps);
  ({ worker, taskQueue } = await createTestWorker(env, activities));
  running = worker.run();
});
afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await orm?.close();
  await env?.teardown();
});

const jobArgs = (notificationId: string, overrides: Partial<CreateJobArgs> = {}): CreateJobArgs => ({
  notificationId,
  title: 'Workflow-level job',
  description: null,
  richPushLevel: 'TORSO',
  artist: 'artist@example.com',
  favourite: 0,
  script: 'Say it with a smile.',
  jobType: 'RICHPUSH',
  isStock: 0,
  filterId: null,
  // Days away: the due-date timers are set (and show in the history) but never fire during the test.
  dueDate: Date.now() + 7 * 24 * 3600 * 1000,
  artistDueDate: Date.now() + 5 * 24 * 3600 * 1000,
  ...overrides,
});

/** Starts a job run the way the API does: through the contract's update-with-start helper. */
async function startJob(account: TestAccount, args: CreateJobArgs, historyLimit?: number) {
  const jobId = randomUUID();
  const created = await createRecordingJobRun({ client: env.client, taskQueue }, {
    jobId,
    accountId: account.accountId,
    appId: account.appId,
    create: args,
    historyLimit,
  });
  // Not bound to the first run: updates, queries and describe follow the workflow id to its latest run.
  return { jobId, handle: recordingJobHandle(env, jobId), created };
}

/** The job as `GET /job/get` answers it, but for the artist's link, which the API adds and the run never holds. */
const apiJob = async (account: TestAccount, jobId: string) => {
  const { artistLink: _artistLink, ...job } = (await call('GET', `/job/get?id=${jobId}`, { token: account.apiKey })).body;
  return job;
};

/** The id of the run a workflow id currently points at, and of the first run. */
async function runIds(handle: WorkflowHandle): Promise<{ first: string; latest: string }> {
  const latest = await handle.describe();
  return { first: latest.raw.workflowExecutionInfo!.firstRunId!, latest: latest.runId };
}

/** Polls until the workflow id points at a run other than its first (it continued as new); fails when the time is up. */
const waitForNewRun = (handle: WorkflowHandle, timeoutMs = 3000): Promise<{ first: string; latest: string }> =>
  until(`${handle.workflowId} to continue as new`, () => runIds(handle), (ids) => ids.latest !== ids.first, { timeoutMs });

describe('recordingJob workflow', () => {
  it('runs the full lifecycle to completion on the real activities (and records its history when asked)', async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const { jobId, handle, created } = await startJob(account, jobArgs(notificationId));
    expect(created).toMatchObject({ id: jobId, status: 'CREATED', notificationId, workflowId: handle.workflowId });
    expect(await apiJob(account, jobId)).toEqual(created);

    const assigned = await handle.executeUpdate(executeJob);
    expect(assigned.status).toBe('ASSIGNED');
    const take = await fileRow(account);
    const { job: submitted } = await handle.executeUpdate(submitRecording, { args: [{ ...take, fileName: 'wf.m4a' }] });
    const { fileId, url } = take;
    expect(submitted).toMatchObject({ status: 'SUBMITTED', recordings: [expect.objectContaining({ fileId, url, status: 'ready' })] });
    const selected = await handle.executeUpdate(selectRecording, { args: [{ fileId }] });
    expect(selected).toMatchObject({ status: 'SELECTED', selectedFileId: fileId });
    const accepted = await handle.executeUpdate(acceptJob);
    expect(accepted.status).toBe('ACCEPTED');

    // The run finishes once its events are out, returning the job as stored.
    expect(await handle.result()).toEqual(accepted);
    expect(await apiJob(account, jobId)).toEqual(accepted);
    const message = (await call('GET', `/notification/get?id=${notificationId}`, { token: account.apiKey })).body;
    expect(message).toMatchObject({ status: 'READY', recording: { fileId, url, durationMs: 1500, contentType: 'audio/mp4' } });
    expect((await runIds(handle)).latest).toBe((await runIds(handle)).first);
    await recordHistoryIfAsked(handle, 'recording-job');
  });

  it('continues as new past its history limit under a stream of events, keeping the job and its attributes', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const { jobId, handle } = await startJob(account, jobArgs(notificationId, { title: 'Long-lived' }), 60);
    await handle.executeUpdate(executeJob);

    // A new artist while ASSIGNED emits job.assigned, so the workflow's loop runs after each of these updates.
    let last = await handle.query(jobState);
    for (let i = 1; i <= 40; i++) last = await handle.executeUpdate(updateJob, { args: [{ artist: `artist-${i}@example.com`, title: `Long-lived #${i}` }] });
    expect(last).toMatchObject({ status: 'ASSIGNED', artist: 'artist-40@example.com', title: 'Long-lived #40' });

    // The loop continues as new once the last event is out and no update is running.
    const { first } = await waitForNewRun(handle, 10_000);
    const firstRun = await env.client.workflow.getHandle(handle.workflowId, first).describe();
    expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
    const current = await handle.describe();
    expect(current.status.name).toBe('RUNNING');
    // The new run starts small, with the job carried over rather than replayed.
    expect(current.historyLength).toBeLessThan(120);

    // The state is intact in the new run, and matches the database.
    expect(await handle.query(jobState)).toEqual(last);
    expect(await apiJob(account, jobId)).toEqual(last);
    const attributes = current.typedSearchAttributes;
    expect([attributes.get(AccountId), attributes.get(AppId), attributes.get(EntityType), attributes.get(EntityId), attributes.get(JobStatus)]).toEqual([
      account.accountId,
      account.appId,
      'job',
      jobId,
      'ASSIGNED',
    ]);

    // The static summary belongs to the first run only (continue-as-new cannot carry it, see the report); the
    // workflow's current details, set again by the new run, still name the job.
    expect(await firstRun.staticSummary()).toBe('Recording job “Long-lived” for artist@example.com');
    const metadata: any = await handle.query('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain('**ASSIGNED** · Long-lived #40');
    expect(metadata.currentDetails).toContain('artist: artist-40@example.com');

    // Further transitions still work, through the API too, and are checked against the carried state.
    const refused = await call('POST', `/job/accept?id=${jobId}`, { token: account.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe('The job is ASSIGNED; POST /job/accept requires SELECTED');
    const { fileId } = await fileRow(account);
    await handle.executeUpdate(submitRecording, { args: [{ fileId, url: 'https://push.example.com/long.m4a' }] });
    const selected = await call('POST', `/richPush/select?file_id=${fileId}`, { token: account.apiKey });
    expect(selected.status).toBe(200);
    const accepted = await handle.executeUpdate(acceptJob);
    expect(accepted).toMatchObject({ status: 'ACCEPTED', selectedFileId: fileId, title: 'Long-lived #40' });
    expect(await handle.result()).toEqual(accepted);
  });

  it('continues as new past its history limit under updates that emit no event', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const { handle } = await startJob(account, jobArgs(notificationId, { title: 'Quiet' }), 60);
    // ~9 history events each: 20 of them take the run far past its limit of 60.
    for (let i = 1; i <= 20; i++) await handle.executeUpdate(updateJob, { args: [{ title: `Quiet #${i}` }] });
    try {
      await waitForNewRun(handle);
      expect((await handle.describe()).historyLength).toBeLessThan(120);
    } finally {
      await handle.executeUpdate(cancelJob);
    }
  });

  it('keeps each run near its history limit while updates keep coming', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const { handle } = await startJob(account, jobArgs(notificationId, { title: 'Busy' }), 60);
    await handle.executeUpdate(executeJob);
    for (let i = 1; i <= 15; i++) await handle.executeUpdate(updateJob, { args: [{ artist: `busy-${i}@example.com` }] });
    try {
      const { first } = await waitForNewRun(handle);
      const firstRun = await env.client.workflow.getHandle(handle.workflowId, first).describe();
      expect(firstRun.historyLength).toBeLessThan(120);
    } finally {
      await handle.executeUpdate(cancelJob);
    }
  });

  it('answers a refused update with invalid_state naming both states, and a job it never created with not_found', async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const { handle } = await startJob(account, jobArgs(notificationId));
    await expect(handle.executeUpdate(acceptJob)).rejects.toMatchObject({
      cause: expect.objectContaining({ type: 'invalid_state', message: 'The job is CREATED; POST /job/accept requires SELECTED' }),
    });
    // create again answers the existing job rather than making a second one.
    const again = await handle.executeUpdate(createJob, { args: [jobArgs(notificationId, { title: 'Other' })] });
    expect(again).toMatchObject({ title: 'Workflow-level job', status: 'CREATED' });
    await handle.executeUpdate(cancelJob);
    expect((await handle.result())!.status).toBe('CANCELLED');

    // A run whose create fails (here: the message is another account's) answers not_found and ends with null.
    const stranger = await newAccount();
    const jobId = randomUUID();
    const create = createRecordingJobRun({ client: env.client, taskQueue }, {
      jobId,
      accountId: stranger.accountId,
      appId: stranger.appId,
      create: jobArgs(notificationId),
    });
    await expect(create).rejects.toMatchObject({ cause: expect.objectContaining({ type: 'not_found' }) });
    expect(await recordingJobHandle(env, jobId).result()).toBeNull();
  });
});

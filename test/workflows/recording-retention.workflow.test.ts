import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ActivityDeps } from '../../activities/deps.ts';
import { createFileActivities } from '../../activities/files.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { createStorage, type ObjectStorage } from '../../src/storage/index.ts';
import { ensureRecordingRetentionSchedule } from '../../src/temporal/starters/recording-retention.ts';
import { recordingRetentionScheduleId, recordingRetentionWorkflowType, type RecordingRetentionWorkflow } from '../../workflows/recording-retention.contract.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { fileRow } from '../support/files.ts';
import { ok } from '../support/http-assertions.ts';
import { newJob } from '../support/jobs.ts';
import { recordHistoryIfAsked, temporalClient } from '../support/temporal.ts';
import { startTimeSkippingEnvironment } from '../support/temporal-worker.ts';

const hour = 3600 * 1000;
const day = 24 * hour;

let orm: Orm;
let storage: ObjectStorage;
let storageRoot: string;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
  storageRoot = await mkdtemp(join(tmpdir(), 'rp-retention-'));
  storage = createStorage({ driver: 'local', root: storageRoot });
});
afterAll(async () => {
  await orm?.close();
  if (storageRoot) await rm(storageRoot, { recursive: true, force: true });
});

/** The retention activity on the real database and a storage of the test's own, keeping takes 30 days. */
const activities = () =>
  createFileActivities({
    orm,
    files: {
      storage,
      media: { available: false, reason: 'not needed' },
      limits: { maxBytes: 1024 * 1024, maxSeconds: 120 },
      scratchDir: storageRoot,
      processingSlots: 1,
      retention: { retentionDays: 30, rejectedForHours: 24 },
    },
  } as unknown as ActivityDeps);

/** A file row with both its objects stored. */
async function storedFile(account: TestAccount, fields: Parameters<typeof fileRow>[1] = {}) {
  const file = await fileRow(account, fields);
  const [keys] = await query<{ original_key: string; delivery_key: string | null }>('select original_key, delivery_key from files where id = $1', [file.fileId]);
  for (const key of [keys!.original_key, keys!.delivery_key]) if (key) await storage.write(key, Readable.from([Buffer.from(key)]), { maxBytes: 1024, contentType: 'audio/mp4' });
  return { ...file, keys: [keys!.original_key, keys!.delivery_key].filter((key): key is string => key !== null) };
}

/** Submits the file to the job as a take, through the API. */
const submit = async (account: TestAccount, jobId: string, fileId: string) => ok(await call('POST', `/job/recording?id=${jobId}`, { token: account.apiKey, body: { fileId } }), 201);

describe('the recording retention sweep (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startTimeSkippingEnvironment();
  }, 180_000);
  afterAll(() => env?.teardown());

  it('deletes rejected files after a day, and takes nobody selected and unused uploads 30 days after; never what plays', { timeout: 120_000 }, async () => {
    const account = await newAccount();
    const token = account.apiKey;
    // An accepted job: its selected take plays in its message; the other take is left over.
    const accepted = await newJob(account);
    ok(await call('POST', `/job/executeJob?id=${accepted.id}`, { token }));
    const selected = await storedFile(account);
    const leftOver = await storedFile(account);
    await submit(account, accepted.id, selected.fileId);
    await submit(account, accepted.id, leftOver.fileId);
    ok(await call('POST', `/richPush/select?file_id=${selected.fileId}`, { token }));
    ok(await call('POST', `/job/accept?id=${accepted.id}`, { token }));
    // A job still open: its take stays, however old.
    const open = await newJob(account);
    ok(await call('POST', `/job/executeJob?id=${open.id}`, { token }));
    const pending = await storedFile(account);
    await submit(account, open.id, pending.fileId);
    // Stock plays its file; an upload nobody used; a rejected file; a file still processing.
    const stocked = await storedFile(account);
    ok(await call('POST', '/stock/create', { token, body: { appId: account.appId, title: 'Jingle', fileId: stocked.fileId } }), 201);
    const unused = await storedFile(account);
    const rejected = await storedFile(account, { status: 'rejected' });
    const processing = await storedFile(account, { status: 'processing' });

    const remaining = async () => (await query<{ id: string }>('select id from files where account_id = $1', [account.accountId])).map((row) => row.id).sort();
    const everything = [selected, leftOver, pending, stocked, unused, rejected, processing].map((file) => file.fileId).sort();
    const taskQueue = `retention-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: activities(),
    });
    // A plain client: the environment's own lets time run while it waits for a result, up to the next timer of the
    // server's, years ahead; here time moves only when the test sleeps.
    const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
    let last: WorkflowHandle | undefined;
    const sweep = async () => {
      last = await client.workflow.start<RecordingRetentionWorkflow>(recordingRetentionWorkflowType, { taskQueue, workflowId: `retention-${randomUUID()}`, args: [{ version: 1, accountId: account.accountId }] });
      return last.result();
    };

    await worker.runUntil(async () => {
      // Other tests' files share the database: this sweep is the test account's alone.
      await sweep();
      expect(await remaining()).toEqual(everything);

      await env.sleep(day + hour);
      await sweep();
      expect(await remaining()).toEqual(everything.filter((id) => id !== rejected.fileId));
      for (const key of rejected.keys) expect(await storage.head(key)).toBeUndefined();

      await env.sleep(30 * day);
      await sweep();
      expect(await remaining()).toEqual([selected, pending, stocked, processing].map((file) => file.fileId).sort());
      for (const key of [...leftOver.keys, ...unused.keys]) expect(await storage.head(key)).toBeUndefined();
      for (const key of [...selected.keys, ...pending.keys, ...stocked.keys]) expect(await storage.head(key)).toBeDefined();
      await recordHistoryIfAsked(last!, 'recording-retention');
    });
  });
});

describe('the retention schedule (dev server)', () => {
  it('is created once and brought up to date by each worker start, and the suite’s worker made the service’s own', async () => {
    const { client, close } = await temporalClient();
    const scheduleId = `recording-retention-test-${randomUUID()}`;
    try {
      expect(await ensureRecordingRetentionSchedule(client, 'queue-a', scheduleId)).toBe('created');
      expect(await ensureRecordingRetentionSchedule(client, 'queue-b', scheduleId)).toBe('updated');
      const described = await client.schedule.getHandle(scheduleId).describe();
      expect(described.spec.intervals).toMatchObject([{ every: hour }]);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: recordingRetentionWorkflowType, taskQueue: 'queue-b' });
      expect(described.policies.overlap).toBe('SKIP');
      const schedules: string[] = [];
      for await (const schedule of client.schedule.list()) schedules.push(schedule.scheduleId);
      expect(schedules.filter((id) => id === scheduleId)).toHaveLength(1);

      const own = await client.schedule.getHandle(recordingRetentionScheduleId).describe();
      expect(own.action).toMatchObject({ type: 'startWorkflow', workflowType: recordingRetentionWorkflowType });
    } finally {
      await client.schedule.getHandle(scheduleId).delete().catch(() => undefined);
      await close();
    }
  });
});

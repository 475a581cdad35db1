import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localStorageRoot } from '../../src/storage/local-storage.ts';
import { fileWorkflowId, type FileOutcome } from '../../workflows/process-file.contract.ts';
import { newAccount } from '../support/api.ts';
import { sineWav } from '../support/audio.ts';
import { holdInTransaction, query } from '../support/db.ts';
import { settledFile, uploadFile } from '../support/files.ts';
import { ok } from '../support/http-assertions.ts';
import { killWorker, startApiInstance, startWorkerProcess, type ApiInstance } from '../support/instances.ts';
import { until } from '../support/wait.ts';

// `npm run worker` killed with SIGKILL while it processes a recording: the activity's heartbeats stop, Temporal
// retries it on the next worker once its heartbeat timeout (10 s) has passed, and the file is processed again from its
// stored original. One delivery file at the file's one delivery key, and the file becomes ready once.

const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);
let connection: Connection;
let client: Client;
let api: ApiInstance | undefined;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('namespace') });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await api?.stop();
  await connection?.close();
});

describe('a recording being processed survives a worker crash', () => {
  // The test's time is the sum of its waits' (two worker starts, the lock, the heartbeat, the settle): on a loaded
  // machine a slow step then fails on its own wait, saying which, rather than on the test's.
  it('is processed again on the next worker: one delivery file, ready once', { timeout: 360_000 }, async () => {
    const taskQueue = `file-crash-${randomUUID()}`;
    const [firstWorker, instance] = await Promise.all([startWorkerProcess(taskQueue).then(track), startApiInstance({ taskQueue })]);
    api = instance;
    const account = await newAccount();
    const bytes = sineWav({ seconds: 6, sampleRate: 44_100 });

    // The activity records its outcome under the file's row lock, which the test takes as soon as the row exists: the
    // worker is killed with the file checked and its delivery file stored, and the outcome not yet recorded. A retry
    // that ran from the start makes and stores the same delivery file at the same key again.
    const uploading = uploadFile(account, bytes, { baseUrl: api.url });
    // Once the API has noted the run's start on the row (its last write there), or the lock would hold the upload up.
    const startedFile = 'select id from files where account_id = $1 and run_started_at is not null';
    const fileId = await until('the file row, its run started', async () => (await query<{ id: string }>(startedFile, [account.accountId]))[0]?.id, { intervalMs: 20 });
    const lock = await holdInTransaction('select id from files where id = $1 for update', [fileId]);
    let processingFor: FileProgress | undefined;
    try {
      expect(ok(await uploading, 202)).toMatchObject({ fileId, status: 'processing' });
      const waitingOnLock = `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%"files"%' and query like '%for update%' and datname = current_database()`;
      await until('the outcome’s write to wait for the file’s row lock', async () => (await query(waitingOnLock)).length > 0, { timeoutMs: 60_000 });
      const folder = join(localStorageRoot(inject('dataDir')), 'recordings', account.accountId, fileId);
      expect((await readdir(folder)).sort()).toEqual(['delivery.m4a', 'original']);
      // Heartbeats reach the server at most every 8 s: the last one says how far it got.
      processingFor = await until('the heartbeat of the stored delivery file', () => heartbeatOf(fileId), (progress) => progress?.stage === 'storing', { timeoutMs: 30_000, intervalMs: 500 });
      await killWorker(firstWorker);
      track(await startWorkerProcess(taskQueue));
    } finally {
      await lock.release();
    }
    // What the Temporal UI shows of the pending activity: its stage and how far it got.
    expect(processingFor).toEqual({ stage: 'storing', fraction: 1 });

    const file = await settledFile(account, fileId, { baseUrl: api.url, timeoutMs: 120_000 });
    expect(file.status).toBe('ready');
    expect(Math.abs(file.durationMs - 6000)).toBeLessThanOrEqual(300);

    // One run, whose activity was retried after the kill (its heartbeats stopped) and completed once.
    const handle = client.workflow.getHandle(fileWorkflowId(fileId));
    const outcome: FileOutcome | null = await handle.result();
    expect(outcome).toMatchObject({ status: 'ready', durationMs: file.durationMs });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events.find((event) => event.activityTaskStartedEventAttributes)!.activityTaskStartedEventAttributes!.attempt).toBeGreaterThanOrEqual(2);

    // One delivery file, at the file's delivery key, beside the original; nothing else of it in storage.
    const folder = join(localStorageRoot(inject('dataDir')), 'recordings', account.accountId);
    expect(await readdir(folder)).toEqual([fileId]);
    expect((await readdir(join(folder, fileId))).sort()).toEqual(['delivery.m4a', 'original']);
    const [row] = await query('select status, delivery_key from files where id = $1', [fileId]);
    expect(row).toEqual({ status: 'ready', delivery_key: `recordings/${account.accountId}/${fileId}/delivery.m4a` });
    expect((await fetch(file.url, { headers: { range: 'bytes=0-7' } })).status).toBe(206);
  });
});

type FileProgress = { stage: string; fraction: number };

/** The last heartbeat of the file's pending processing activity. */
async function heartbeatOf(fileId: string): Promise<FileProgress | undefined> {
  const pending = (await client.workflow.getHandle(fileWorkflowId(fileId)).describe()).raw.pendingActivities?.[0];
  const details = pending?.heartbeatDetails?.payloads?.[0];
  return details ? defaultPayloadConverter.fromPayload<FileProgress>(details) : undefined;
}

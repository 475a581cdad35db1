import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { restartFileRuns } from '../../src/domain/files/restart-file-runs.ts';
import { createLogger } from '../../src/logger.ts';
import { connectOrm } from '../../src/persistence/orm.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { settledFile, shortTake, uploadFile } from '../support/files.ts';
import { ok } from '../support/http-assertions.ts';
import { killWorker, startApiInstance, startWorkerProcess, unreachable } from '../support/instances.ts';
import { temporalClient } from '../support/temporal.ts';

// An upload commits its file and then starts its processing run. When that start fails (Temporal out of reach, the
// API killed in between), the file is kept, and the workers' recovery starts its run later. A run cancelled (from the
// Temporal UI, say) leaves its file rejected, not processing for ever.

describe('a file whose processing run could not be started', () => {
  // The sum of its waits (the API's start, the upload, the file's processing), so that a slow one fails on its own wait.
  it('is answered 202 all the same, and processed once the recovery starts its run', { timeout: 180_000 }, async () => {
    const api = await startApiInstance({ temporalAddress: unreachable });
    const account = await newAccount();
    let fileId: string;
    try {
      const uploaded = ok(await uploadFile(account, shortTake(), { baseUrl: api.url }), 202);
      expect(uploaded.status).toBe('processing');
      fileId = uploaded.fileId;
    } finally {
      await api.stop();
    }
    expect(await query('select status, run_started_at from files where id = $1', [fileId])).toEqual([{ status: 'processing', run_started_at: null }]);

    const orm = await connectOrm(inject('databaseUrl'), 2);
    const { client, close } = await temporalClient();
    try {
      const deps = { em: orm.em.fork(), temporal: { client, taskQueue: inject('taskQueue') }, logger: createLogger('silent') };
      // A file younger than the grace period is left to the start its upload is still making.
      expect(await restartFileRuns(deps, 60_000)).toBe(0);
      await query(`update files set created_at = now() - interval '1 minute' where id = $1`, [fileId]);
      expect(await restartFileRuns({ ...deps, em: orm.em.fork() }, 30_000)).toBeGreaterThanOrEqual(1);
      expect((await query('select run_started_at from files where id = $1', [fileId]))[0].run_started_at).not.toBeNull();
      // Started once: a second recovery finds nothing to do for it.
      await restartFileRuns({ ...deps, em: orm.em.fork() }, 30_000);
      expect((await settledFile(account, fileId)).status).toBe('ready');
      // The file is marked ready by the run's last step, just before the run itself completes.
      const handle = client.workflow.getHandle(`file:${fileId}`);
      await handle.result();
      expect((await handle.describe()).status.name).toBe('COMPLETED');
    } finally {
      await close();
      await orm.close();
    }
  });
});

describe('a file whose processing run is cancelled', () => {
  it('is rejected as cancelled, and the run ends cancelled', { timeout: 60_000 }, async () => {
    // A queue no worker polls yet: the run is cancelled before any step of it ran.
    const taskQueue = `file-cancel-${randomUUID()}`;
    const api = await startApiInstance({ taskQueue });
    const { client, close } = await temporalClient();
    let worker: ChildProcess | undefined;
    try {
      const account = await newAccount();
      const uploaded = ok(await uploadFile(account, shortTake(), { baseUrl: api.url }), 202);
      const handle = client.workflow.getHandle(`file:${uploaded.fileId}`);
      await handle.cancel();
      worker = await startWorkerProcess(taskQueue);
      await expect(handle.result()).rejects.toThrow(/cancel/i);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const file = await settledFile(account, uploaded.fileId);
      expect(file).toMatchObject({ status: 'rejected', reason: 'cancelled', detail: 'Its processing was cancelled; upload it again.' });
    } finally {
      if (worker) await killWorker(worker);
      await close();
      await api.stop();
    }
  });
});

import { describe, expect, inject, it } from 'vitest';
import { jobWorkflowId } from '../../workflows/recording-job.contract.ts';
import { call, newAccount } from '../support/api.ts';
import { readyFile, shortTake } from '../support/files.ts';
import { newJob, newMessage, sampleJob } from '../support/jobs.ts';
import { temporalClient, waitForHistoryEvent } from '../support/temporal.ts';

describe('recording job lifecycle', () => {
  it('goes create → execute → submit → select → accept, and the message becomes READY with the recording', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const notificationId = await newMessage(account);

    const created = await call('POST', '/job/create', { token, body: sampleJob(account, notificationId) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'CREATED', notificationId, artist: 'artist@example.com', workflowId: `job:${created.body.id}`, recordings: [] });
    const jobId = created.body.id;
    expect((await call('GET', `/notification/get?id=${notificationId}`, { token })).body.status).toBe('RECORDING');

    const executed = await call('POST', `/job/executeJob?id=${jobId}`, { token });
    expect(executed.status).toBe(200);
    expect(executed.body.status).toBe('ASSIGNED');

    const file = await readyFile(account, shortTake(), { fileName: 'take-1.wav' });
    const submitted = await call('POST', `/job/recording?id=${jobId}`, { token, body: { fileId: file.fileId } });
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({ fileId: file.fileId, jobId, status: 'ready', url: file.url, fileName: 'take-1.wav', job: { status: 'SUBMITTED' } });
    const fileId = submitted.body.fileId;

    const selected = await call('POST', `/richPush/select?file_id=${fileId}`, { token });
    expect(selected.status).toBe(200);
    expect(selected.body).toMatchObject({ status: 'SELECTED', selectedFileId: fileId });

    const accepted = await call('POST', `/job/accept?id=${jobId}`, { token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('ACCEPTED');

    const message = await call('GET', `/notification/get?id=${notificationId}`, { token });
    expect(message.body).toMatchObject({ status: 'READY', recording: { url: file.url, fileId, stockId: null, durationMs: file.durationMs, contentType: 'audio/mp4' } });
    const fetched = await call('GET', `/job/get?id=${jobId}`, { token });
    expect(fetched.body).toEqual(accepted.body);
  });

  it('answers 409 invalid_state naming the current and required states', async () => {
    const account = await newAccount();
    const job = await newJob(account);
    const response = await call('POST', `/job/accept?id=${job.id}`, { token: account.apiKey });
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'invalid_state', message: 'The job is CREATED; POST /job/accept requires SELECTED' });
  });

  it('runs on the interactive task queue, and so do its activities', async () => {
    const account = await newAccount();
    const job = await newJob(account);
    expect((await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey })).status).toBe(200);

    const { client, close } = await temporalClient();
    try {
      const handle = client.workflow.getHandle(jobWorkflowId(job.id));
      expect((await handle.describe()).taskQueue).toBe(`${inject('taskQueue')}-interactive`);
      // execute emits job.assigned: publishJobEvent runs beside the job (its deliveries are the bulk queue's relay's).
      const scheduled = await waitForHistoryEvent(handle, (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'publishJobEvent');
      expect(scheduled.activityTaskScheduledEventAttributes?.taskQueue?.name).toBe(`${inject('taskQueue')}-interactive`);
    } finally {
      await close();
    }
  });
});

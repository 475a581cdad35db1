import { createServer, type Server } from 'node:https';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, sampleMessage, type TestAccount } from '../support/api.ts';
import { sineWav } from '../support/audio.ts';
import { query } from '../support/db.ts';
import { newApp } from '../support/devices.ts';
import { fileRow, readyFile, settledFile, shortTake } from '../support/files.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { newJob } from '../support/jobs.ts';
import { recordHistoryIfAsked, temporalClient } from '../support/temporal.ts';
import { fileWorkflowId } from '../../workflows/process-file.contract.ts';

// Takes of a recording job and stock recordings are files the service holds: uploaded, or fetched from a URL (kept for
// compatibility) under the outbound address policy. Select takes only a ready take of the job.

/** An HTTPS server on loopback (the suite's certificate, which its worker trusts) serving files by path. */
let server: Server;
let origin: string;
const served = new Map<string, { status: number; body: Buffer }>();
beforeAll(async () => {
  server = createServer({ cert: inject('receiverCert'), key: inject('receiverKey') }, (req, res) => {
    const file = served.get(req.url ?? '') ?? { status: 404, body: Buffer.from('no such file') };
    res.writeHead(file.status, { 'content-type': 'application/octet-stream', 'content-length': file.body.length });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://localhost:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const as = (account: TestAccount) => ({ token: account.apiKey });
const assigned = async (account: TestAccount) => {
  const job = await newJob(account);
  ok(await call('POST', `/job/executeJob?id=${job.id}`, as(account)));
  return job;
};
const submit = (account: TestAccount, jobId: string, body: unknown) => call('POST', `/job/recording?id=${jobId}`, { ...as(account), body });

describe('a take submitted as a URL', () => {
  it('is fetched into storage and checked like an upload: processing, then ready, selectable', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const job = await assigned(account);
    const bytes = sineWav({ seconds: 2.5, sampleRate: 44_100 });
    served.set('/takes/take-1.wav', { status: 200, body: bytes });

    const take = ok(await submit(account, job.id, { url: `${origin}/takes/take-1.wav` }), 201);
    expect(take).toMatchObject({ fileId: expect.stringMatching(/^fil_/), jobId: job.id, status: 'processing', fileName: 'take-1.wav', job: { status: 'SUBMITTED' } });
    const selectedEarly = await call('POST', `/richPush/select?file_id=${take.fileId}`, as(account));
    if (selectedEarly.status !== 200) expectError(selectedEarly, 409, 'file_not_ready');

    const file = await settledFile(account, take.fileId);
    expect(file).toMatchObject({ status: 'ready', jobId: job.id, sizeBytes: bytes.length, detectedType: 'wav' });
    expect(Math.abs(file.durationMs - 2500)).toBeLessThanOrEqual(125);
    expect(ok(await call('POST', `/richPush/select?file_id=${take.fileId}`, as(account)))).toMatchObject({ status: 'SELECTED', selectedFileId: take.fileId });
    // Its run fetched, then processed: the history the replay test keeps of processFile.
    const { client, close } = await temporalClient();
    try {
      await recordHistoryIfAsked(client.workflow.getHandle(fileWorkflowId(take.fileId)), 'process-file');
    } finally {
      await close();
    }
  });

  it('is rejected unreachable when the URL answers 404, and refused 422 at once when it may not be fetched', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const job = await assigned(account);
    const take = ok(await submit(account, job.id, { url: `${origin}/takes/missing.wav` }), 201);
    const file = await settledFile(account, take.fileId);
    expect(file).toMatchObject({ status: 'rejected', reason: 'unreachable', detail: 'The URL answered HTTP 404.' });
    expectError(await call('POST', `/richPush/select?file_id=${take.fileId}`, as(account)), 422, 'file_rejected');

    // A metadata address is never fetched, whatever the operator allowed for webhooks.
    expectError(await submit(account, job.id, { url: 'https://169.254.169.254/latest/meta-data' }), 422, 'invalid_url');
    expectError(await submit(account, job.id, { url: 'http://cdn.example.com/take.wav' }), 400, 'validation_failed');
  });
});

describe('select', () => {
  it('takes only a ready take of the job: 409 file_not_ready while it processes, 422 file_rejected once rejected', async () => {
    const account = await newAccount();
    const job = await assigned(account);
    const processing = await fileRow(account, { status: 'processing' });
    ok(await submit(account, job.id, { fileId: processing.fileId }), 201);
    expectError(await call('POST', `/richPush/select?file_id=${processing.fileId}`, as(account)), 409, 'file_not_ready');
    expectError(await call('POST', `/job/select?file_id=${processing.fileId}`, as(account)), 409, 'file_not_ready');

    // A rejected file is refused as a take too; one that becomes rejected after it was submitted cannot be selected.
    const rejected = await fileRow(account, { status: 'rejected' });
    expectError(await submit(account, job.id, { fileId: rejected.fileId }), 422, 'file_rejected');
    await query(`update files set status = 'rejected', reason = 'silent', detail = 'Its peak is digital silence.' where id = $1`, [processing.fileId]);
    const refused = expectError(await call('POST', `/richPush/select?file_id=${processing.fileId}`, as(account)), 422, 'file_rejected');
    expect(refused.message).toContain('silent');
    expect(ok(await call('GET', `/job/get?id=${job.id}`, as(account)))).toMatchObject({ status: 'SUBMITTED', selectedFileId: null });

    // A file that is no take of any job is no recording to select.
    expectError(await call('POST', `/richPush/select?file_id=${(await fileRow(account)).fileId}`, as(account)), 404, 'not_found');
  });

  it('refuses a file that is another job’s take (409 file_in_use), or of another app or account (404)', async () => {
    const account = await newAccount();
    const [first, second] = [await assigned(account), await assigned(account)];
    const file = await fileRow(account);
    ok(await submit(account, first.id, { fileId: file.fileId }), 201);
    expectError(await submit(account, second.id, { fileId: file.fileId }), 409, 'file_in_use');
    expectError(await submit(account, first.id, { fileId: file.fileId }), 409, 'file_in_use');

    const elsewhere = await fileRow({ ...account, appId: await newApp(account) });
    expectError(await submit(account, second.id, { fileId: elsewhere.fileId }), 404, 'not_found');
    const foreign = await fileRow(await newAccount());
    expectError(await submit(account, second.id, { fileId: foreign.fileId }), 404, 'not_found');
    expectError(await submit(account, second.id, { fileId: file.fileId, url: `${origin}/x.wav` }), 400, 'validation_failed');
    expectError(await submit(account, second.id, {}), 400, 'validation_failed');
    expect(ok(await call('GET', `/job/get?id=${second.id}`, as(account))).recordings).toEqual([]);
  });
});

describe('GET /job/files', () => {
  it('lists the job’s takes, oldest first, with their status', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const job = await assigned(account);
    const first = await readyFile(account, shortTake(), { fileName: 'first.wav' });
    ok(await submit(account, job.id, { fileId: first.fileId }), 201);
    const second = await fileRow(account, { status: 'processing' });
    ok(await submit(account, job.id, { fileId: second.fileId }), 201);
    // An upload that was never submitted is no take.
    await fileRow(account);

    const listed = ok(await call('GET', `/job/files?id=${job.id}`, as(account)));
    expect(listed.jobId).toBe(job.id);
    expect(listed.items.map((file: any) => [file.fileId, file.status, file.jobId])).toEqual([
      [first.fileId, 'ready', job.id],
      [second.fileId, 'processing', job.id],
    ]);
    expect(listed.items[0]).toMatchObject({ fileName: 'first.wav', url: first.url, durationMs: first.durationMs, waveform: expect.any(Array) });
    expectError(await call('GET', `/job/files?id=${job.id}`, as(await newAccount())), 404, 'not_found');
  });
});

describe('stock plays a file', () => {
  it('from a URL: fetched and checked; a message is made from it only once it is ready, and plays its file', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    served.set('/stock/jingle.wav', { status: 200, body: sineWav({ seconds: 2, sampleRate: 22_050 }) });
    const stock = ok(await call('POST', '/stock/create', { ...as(account), body: { appId: account.appId, title: 'Jingle', url: `${origin}/stock/jingle.wav` } }), 201);
    expect(stock).toMatchObject({ fileId: expect.stringMatching(/^fil_/), url: expect.stringContaining(`/recordings/${stock.fileId}/`) });
    const { priority: _p, favourite: _f, channel: _c, filterId: _s, ...fromStock } = sampleMessage(account.appId);
    const early = await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { ...as(account), body: fromStock });
    if (early.status !== 201) expectError(early, 409, 'file_not_ready');

    const file = await settledFile(account, stock.fileId);
    expect(file.status).toBe('ready');
    const slot = ok(await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { ...as(account), body: fromStock }), 201);
    expect(slot.notification).toMatchObject({
      status: 'READY',
      recording: { url: file.url, fileId: file.fileId, stockId: stock.stockId, durationMs: file.durationMs, contentType: 'audio/mp4' },
    });
    const played = await fetch(slot.notification.recording.url, { headers: { range: 'bytes=0-15' } });
    expect(played.status).toBe(206);
    expect(played.headers.get('content-type')).toBe('audio/mp4');
  });

  it('refuses a rejected file (422) and a message from stock whose file was rejected', async () => {
    const account = await newAccount();
    const rejected = await fileRow(account, { status: 'rejected' });
    expectError(await call('POST', '/stock/create', { ...as(account), body: { appId: account.appId, title: 'Silent', fileId: rejected.fileId } }), 422, 'file_rejected');
  });
});

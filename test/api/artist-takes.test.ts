import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { localStorageRoot } from '../../src/storage/local-storage.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { assignedJob, deleteTake, listTakes, settledTake, uploadTake } from '../support/artist-takes.ts';
import { query } from '../support/db.ts';
import { fileRow, shortTake, streamUpload } from '../support/files.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { until } from '../support/wait.ts';

// The artist's takes, black box (docs/recordings.md, "The artist's link"): with the link's token and no API key, the
// artist uploads takes (checked as POST /file/upload checks a file, and submitted to the job as POST /job/recording
// submits one), lists them with where to listen, and deletes them until one is selected. At most 20 a job.

const storedFolders = async (account: TestAccount) =>
  readdir(join(localStorageRoot(inject('dataDir')), 'recordings', account.accountId)).catch(() => [] as string[]);
const fileRows = (account: TestAccount) => query('select id, job_id, submission_id, status from files where account_id = $1 order by created_at', [account.accountId]);
const eventsOf = (accountId: string, type: string) =>
  query<{ body: string }>('select body from outbound_events where account_id = $1 and type = $2', [accountId, type]);
/** Within 5 % of what the test wrote. */
const closeTo = (actualMs: number, seconds: number) => expect(Math.abs(actualMs - seconds * 1000)).toBeLessThanOrEqual(seconds * 50);

describe('an artist’s take, through their link', () => {
  it('is uploaded with no key, submitted to the job as a SUBMITTED step, processed, and listed with a URL to listen to', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { job, token } = await assignedJob(account);

    const answer = await uploadTake(token, shortTake(), { fileName: 'take-1.wav' });
    const take = ok(answer, 202);
    expect(take).toMatchObject({ fileId: expect.stringMatching(/^fil_/), fileName: 'take-1.wav', status: 'processing', selected: false });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('ratelimit-limit')).toMatch(/^\d+$/);

    // The account sees it as the job's take, exactly as one it submitted itself.
    expect(ok(await call('GET', `/job/get?id=${job.id}`, { token: account.apiKey }))).toMatchObject({ status: 'SUBMITTED', recordings: [{ fileId: take.fileId }] });
    const [row] = await fileRows(account);
    expect(row).toMatchObject({ id: take.fileId, job_id: job.id, submission_id: expect.any(String) });
    const [submitted] = await until('job.recording_submitted', () => eventsOf(account.accountId, 'job.recording_submitted'), (events) => events.length === 1);
    expect(JSON.parse(submitted!.body).data.result).toMatchObject({ jobId: job.id, url: expect.stringContaining(take.fileId) });

    const ready = await settledTake(token, take.fileId);
    expect(ready).toMatchObject({ status: 'ready', reason: null, sizeBytes: shortTake().length });
    closeTo(ready.durationMs, 1.5);
    expect(ready.waveform).toHaveLength(200);
    const listened = await fetch(ready.url);
    expect(listened.status).toBe(200);
    expect(listened.headers.get('content-type')).toBe('audio/mp4');

    // What the artist sees names nothing of the account.
    const listed = ok(await listTakes(token));
    expect(listed).toEqual({ items: [ready], maxTakes: 20 });
    const text = JSON.stringify(listed);
    for (const id of [account.accountId, account.appId, job.id, job.notificationId]) expect(text).not.toContain(id);
    expect(ok(await call('GET', `/job/files?id=${job.id}`, { token: account.apiKey })).items).toMatchObject([{ fileId: take.fileId, status: 'ready', url: ready.url }]);
  });

  it('is refused as POST /file/upload refuses a file: not audio (no take), the wrong Content-Type, a name too long', async () => {
    const account = await newAccount();
    const { job, token } = await assignedJob(account);

    const empty = ok(await uploadTake(token, Buffer.alloc(0)), 202);
    expect(empty).toMatchObject({ status: 'rejected', reason: 'not_audio', detail: expect.stringContaining('an empty file') });
    const text = Buffer.from('Dear artist,\nplease record the script below.\n'.repeat(50));
    const named = ok(await uploadTake(token, text, { fileName: 'take.mp3', contentType: 'audio/mpeg' }), 202);
    expect(named).toMatchObject({ status: 'rejected', reason: 'not_audio', fileName: 'take.mp3', detail: expect.stringContaining('text') });
    expect(ok(await uploadTake(token, randomBytes(100_000), { contentType: 'application/octet-stream' }), 202)).toMatchObject({ reason: 'not_audio' });
    expect(ok(await uploadTake(token, shortTake(), { contentType: 'audio/mpeg' }), 202)).toMatchObject({ reason: 'type_mismatch' });

    expectError(await uploadTake(token, shortTake(), { contentType: 'text/plain' }), 415, 'unsupported_media_type');
    expectError(await uploadTake(token, shortTake(), { fileName: 'x'.repeat(256) }), 400, 'validation_failed');

    // A refused upload is no take: the job takes none, and storage holds nothing of it.
    expect(ok(await listTakes(token)).items).toEqual([]);
    expect(ok(await call('GET', `/job/get?id=${job.id}`, { token: account.apiKey }))).toMatchObject({ status: 'ASSIGNED', recordings: [] });
    expect((await fileRows(account)).map((row) => [row.status, row.submission_id])).toEqual(Array.from({ length: 4 }, () => ['rejected', null]));
    expect(await storedFolders(account)).toEqual([]);
  });

  it('keeps a fileName with ../ as a name to show, and never as a path', async () => {
    const account = await newAccount();
    const { token } = await assignedJob(account);
    const fileName = '../../../../etc/passwd.wav';
    const take = ok(await uploadTake(token, shortTake(), { fileName }), 202);
    expect(take.fileName).toBe(fileName);
    const [row] = await query('select original_key from files where id = $1', [take.fileId]);
    expect(row).toEqual({ original_key: `recordings/${account.accountId}/${take.fileId}/original` });
    expect(await storedFolders(account)).toEqual([take.fileId]);
    expect(existsSync(join(localStorageRoot(inject('dataDir')), '..', 'etc'))).toBe(false);
  });

  it('answers a body over RECORDING_MAX_BYTES 413 while it streams, and stores nothing', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { token } = await assignedJob(account);
    const cap = inject('recordingMaxBytes');
    const answer = await streamUpload({ path: `/artist/${token}/takes`, headers: {} }, 60 * 1000 * 1000);
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('too_large');
    expect(answer.connection).toBe('close');
    expect(answer.sentBeforeAnswer).toBeLessThan(cap + 8 * 1024 * 1024);
    expect(await fileRows(account)).toEqual([]);
    expect(await storedFolders(account)).toEqual([]);
    expect(ok(await listTakes(token)).items).toEqual([]);
  });
});

describe('at most 20 takes a job', () => {
  it('refuses the 21st, from the artist unread and from the account alike (409 too_many_takes); a deleted take makes room', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const { job, token } = await assignedJob(account);
    const seeded = [];
    for (let index = 0; index < 20; index += 1) seeded.push(await fileRow(account, { jobId: job.id, submitted: true }));

    const refused = await uploadTake(token, shortTake());
    expect(expectError(refused, 409, 'too_many_takes').message).toContain('20');
    expect(await fileRows(account)).toHaveLength(20);
    const spare = await fileRow(account);
    expectError(await call('POST', `/job/recording?id=${job.id}`, { token: account.apiKey, body: { fileId: spare.fileId } }), 409, 'too_many_takes');
    expect(ok(await listTakes(token)).items).toHaveLength(20);

    expect((await deleteTake(token, seeded[0]!.fileId)).status).toBe(204);
    const twentieth = ok(await uploadTake(token, shortTake()), 202);
    const takes = ok(await listTakes(token)).items.map((take: any) => take.fileId);
    expect(takes).toHaveLength(20);
    expect(takes).toContain(twentieth.fileId);
    expect(takes).not.toContain(seeded[0]!.fileId);
    expectError(await uploadTake(token, shortTake()), 409, 'too_many_takes');
  });
});

describe('deleting a take', () => {
  it('deletes its files and row while no take is selected; another job’s take is 404; once one is selected, 409', { timeout: 90_000 }, async () => {
    const account = await newAccount();
    const { job, token } = await assignedJob(account);
    const other = await assignedJob(account, { title: 'Another job' });
    const first = ok(await uploadTake(token, shortTake(), { fileName: 'first.wav' }), 202);
    const second = ok(await uploadTake(token, shortTake(), { fileName: 'second.wav' }), 202);
    const [ready] = await Promise.all([settledTake(token, first.fileId), settledTake(token, second.fileId)]);
    expect((await storedFolders(account)).sort()).toEqual([first.fileId, second.fileId].sort());

    // Another job's link sees none of them and deletes none.
    expect(ok(await listTakes(other.token)).items).toEqual([]);
    expectError(await deleteTake(other.token, second.fileId), 404, 'not_found');
    expectError(await deleteTake(token, 'not-a-file-id'), 400, 'validation_failed');

    const deleted = await deleteTake(token, second.fileId);
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('cache-control')).toBe('no-store');
    expect(await storedFolders(account)).toEqual([first.fileId]);
    expectError(await call('GET', `/file/get?id=${second.fileId}`, { token: account.apiKey }), 404, 'not_found');
    expect(ok(await listTakes(token)).items.map((take: any) => take.fileId)).toEqual([first.fileId]);
    expectError(await deleteTake(token, second.fileId), 404, 'not_found');

    ok(await call('POST', `/richPush/select?file_id=${first.fileId}`, { token: account.apiKey }));
    expect(ok(await listTakes(token)).items).toEqual([{ ...ready, selected: true }]);
    expect(expectError(await deleteTake(token, first.fileId), 409, 'invalid_state').message).toContain('selected');
    expect(expectError(await uploadTake(token, shortTake()), 409, 'invalid_state').message).toContain('selected');
    expect(await storedFolders(account)).toEqual([first.fileId]);
    expect(ok(await call('GET', `/job/get?id=${job.id}`, { token: account.apiKey }))).toMatchObject({ status: 'SELECTED', selectedFileId: first.fileId });
  });
});

describe('a link that does not open the take routes', () => {
  const everyRoute = (token: string) => [
    () => uploadTake(token, shortTake()),
    () => listTakes(token),
    () => deleteTake(token, `fil_${randomBytes(16).toString('base64url')}`),
  ];

  it('is 404 when the token is no link, and 410 once its job is accepted or cancelled or it expired', async () => {
    for (const attempt of everyRoute(`art_${randomBytes(32).toString('base64url')}`)) expectError(await attempt(), 404, 'not_found');

    const account = await newAccount();
    const apiKey = account.apiKey;
    const expired = await assignedJob(account, { artistDueDate: Date.now() - 100 * 3_600_000 });
    const cancelled = await assignedJob(account);
    ok(await call('POST', `/job/cancel?id=${cancelled.job.id}`, { token: apiKey }));
    const accepted = await assignedJob(account);
    const take = await fileRow(account);
    ok(await call('POST', `/job/recording?id=${accepted.job.id}`, { token: apiKey, body: { fileId: take.fileId } }), 201);
    ok(await call('POST', `/richPush/select?file_id=${take.fileId}`, { token: apiKey }));
    ok(await call('POST', `/job/accept?id=${accepted.job.id}`, { token: apiKey }));

    for (const { token } of [expired, cancelled, accepted]) {
      for (const attempt of everyRoute(token)) expectError(await attempt(), 410, 'link_expired');
    }
    expect(await fileRows(account)).toHaveLength(1);
  });

  it('opens no API route: the artist’s token as a bearer token is 401 on the file and job routes', async () => {
    const account = await newAccount();
    const { job, token } = await assignedJob(account);
    const take = ok(await uploadTake(token, shortTake()), 202);
    const sample: Array<[string, string, Buffer?]> = [
      ['POST', `/file/upload?appId=${account.appId}`, shortTake()],
      ['GET', `/file/get?id=${take.fileId}`],
      ['GET', `/job/files?id=${job.id}`],
      ['POST', `/richPush/select?file_id=${take.fileId}`],
      ['GET', '/stock/list'],
    ];
    for (const [method, path, rawBody] of sample) {
      const answer = await call(method, path, { token, ...(rawBody ? { rawBody, headers: { 'content-type': 'audio/wav' } } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.error.code, `${method} ${path}`).toBe('unauthorized');
    }
    expect(await fileRows(account)).toHaveLength(1);
  });
});

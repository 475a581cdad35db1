import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sha256Hex } from '../../src/security/tokens.ts';
import { call, newAccount, type ApiResponse, type TestAccount } from '../support/api.ts';
import { holdInTransaction, query } from '../support/db.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { until } from '../support/wait.ts';
import { startApiInstance, unreachable, type ApiInstance } from '../support/instances.ts';
import { newJob, newMessage, sampleJob } from '../support/jobs.ts';
import { fileRow } from '../support/files.ts';

const extras: ApiInstance[] = [];
afterAll(async () => {
  for (const extra of extras) await extra.stop();
});

const newKey = () => `idem-${randomUUID()}`;
const keyed = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { 'idempotency-key': key });
const replayed = (response: ApiResponse) => response.headers.get('idempotent-replayed');

const createEndpoint = (account: TestAccount, key: string | undefined, path = 'hook') =>
  call('POST', `/accounts/${account.accountId}/endpoints`, {
    token: account.apiKey,
    headers: keyed(key),
    body: { url: `https://127.0.0.1/${path}`, eventTypes: ['webhook.test'] },
  });
const endpointsOf = async (account: TestAccount) =>
  ok(await call('GET', `/accounts/${account.accountId}/endpoints`, { token: account.apiKey })).endpoints as any[];
const jobStep = (account: TestAccount, step: string, jobId: string, key: string | undefined, body?: unknown) =>
  call('POST', `/job/${step}?id=${jobId}`, { token: account.apiKey, headers: keyed(key), body });

const keyRows = (key: string) => query('select * from idempotency_keys where key = $1', [key]);
/** Leaves the key's row as a process that died after the work but before storing the answer would. */
const crashBeforeStoring = (key: string) =>
  query(
    `update idempotency_keys set status = 'in_progress', lease_owner = gen_random_uuid(), locked_until = now() - interval '1 second',
     response_status = null, response_sealed = null where key = $1`,
    [key],
  );
const waitUntilInProgress = (key: string) => until(`${key} in progress`, async () => (await keyRows(key))[0]?.status === 'in_progress');

describe('Idempotency-Key on POST /accounts/{accountId}/endpoints', () => {
  it('replays the first answer (status and body) with Idempotent-Replayed: true, and creates one endpoint', async () => {
    const account = await newAccount();
    const key = newKey();
    const first = await createEndpoint(account, key);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(replayed(first)).toBeNull();

    const again = await createEndpoint(account, key);
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect((await endpointsOf(account)).map((endpoint) => endpoint.endpointId)).toEqual([first.body.endpointId]);
  });

  it('answers 422 idempotency_key_reused when the key comes with another body, path or method', async () => {
    const account = await newAccount();
    const key = newKey();
    ok(await createEndpoint(account, key, 'first'), 201);
    expectError(await createEndpoint(account, key, 'second'), 422, 'idempotency_key_reused');
    const app = await call('POST', `/accounts/${account.accountId}/apps`, { token: account.apiKey, headers: keyed(key), body: { name: 'other' } });
    expectError(app, 422, 'idempotency_key_reused');
    expect(await endpointsOf(account)).toHaveLength(1);
  });

  it('answers 409 idempotency_key_in_use with Retry-After while the first call runs, then replays its answer', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const key = newKey();
    // The endpoint's insert checks its account row (foreign key), so holding that row makes the first call wait.
    const lock = await holdInTransaction('select id from accounts where id = $1 for update', [account.accountId]);
    let first: Promise<ApiResponse>;
    try {
      first = createEndpoint(account, key);
      await waitUntilInProgress(key);
      const second = await createEndpoint(account, key);
      expectError(second, 409, 'idempotency_key_in_use');
      expect(second.headers.get('retry-after')).toMatch(/^[1-5]$/);
    } finally {
      await lock.release();
    }
    const answered = ok(await first, 201);
    const third = await createEndpoint(account, key);
    expect(third.status).toBe(201);
    expect(replayed(third)).toBe('true');
    expect(third.body).toEqual(answered);
    expect(await endpointsOf(account)).toHaveLength(1);
  });

  it('keeps keys per account: the same key in two accounts runs twice, independently', async () => {
    const [one, two] = await Promise.all([newAccount(), newAccount()]);
    const key = newKey();
    const first = ok(await createEndpoint(one, key), 201);
    const second = await createEndpoint(two, key);
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(replayed(second)).toBeNull();
    expect(second.body.endpointId).not.toBe(first.endpointId);
    expect(await endpointsOf(two)).toHaveLength(1);
  });

  it('changes nothing without the header: each call creates, and no key is stored', async () => {
    const account = await newAccount();
    const first = ok(await createEndpoint(account, undefined), 201);
    const second = await createEndpoint(account, undefined);
    expect(second.status).toBe(201);
    expect(replayed(second)).toBeNull();
    expect(second.body.endpointId).not.toBe(first.endpointId);
    expect(await endpointsOf(account)).toHaveLength(2);
    expect(await query('select id from idempotency_keys where scope = $1', [`account:${account.accountId}`])).toEqual([]);
  });

  it('refuses a malformed key with 400 before doing anything', async () => {
    const account = await newAccount();
    for (const bad of ['', 'has space', 'clé', 'k'.repeat(256)]) {
      const response = await createEndpoint(account, bad);
      const error = expectError(response, 400, 'validation_failed');
      expect(error.details?.[0]?.path, bad).toBe('headers.idempotency-key');
    }
    expect(await endpointsOf(account)).toEqual([]);
    ok(await createEndpoint(account, 'k'.repeat(255)), 201);
  });

  it('keeps no answer given before the handler runs: a 400 for the body leaves the key free', async () => {
    const account = await newAccount();
    const key = newKey();
    const invalid = await call('POST', `/accounts/${account.accountId}/endpoints`, { token: account.apiKey, headers: keyed(key), body: { url: 'https://127.0.0.1/x' } });
    expectError(invalid, 400, 'validation_failed');
    expect(await keyRows(key)).toEqual([]);
    ok(await createEndpoint(account, key), 201);
  });

  it('forgets a key after 24 hours: it may be used again, and the API sweeps expired rows', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const [expiring, live] = [newKey(), newKey()];
    const first = ok(await createEndpoint(account, expiring, 'before'), 201);
    await query(`update idempotency_keys set expires_at = now() - interval '1 second' where key = $1`, [expiring]);
    const reused = await createEndpoint(account, expiring, 'after');
    expect(reused.status, JSON.stringify(reused.body)).toBe(201);
    expect(replayed(reused)).toBeNull();
    expect(reused.body.endpointId).not.toBe(first.endpointId);

    ok(await createEndpoint(account, live), 201);
    await query(`update idempotency_keys set expires_at = now() - interval '1 second' where key = $1`, [expiring]);
    // An API instance sweeps when it starts (then every 10 minutes).
    extras.push(await startApiInstance());
    await until('the expired key swept', async () => (await keyRows(expiring)).length === 0);
    expect(await keyRows(live)).toHaveLength(1);
  });
});

describe('Idempotency-Key on admin routes', () => {
  it('keeps admin keys in one admin scope with nothing of the token, and stores the answer sealed', async () => {
    const key = newKey();
    const create = () => call('POST', '/admin/accounts', { token: inject('adminToken'), headers: keyed(key), body: { name: 'idempotent' } });
    const first = ok(await create(), 201);
    const again = await create();
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(first);
    const [row] = await keyRows(key);
    expect(row.scope).toBe('admin');
    expect(JSON.stringify(row)).not.toContain(inject('adminToken'));
    expect(JSON.stringify(row)).not.toContain(sha256Hex(inject('adminToken')));
    expect(JSON.stringify(row)).not.toContain(first.apiKey);
  });
});

describe('Idempotency-Key on recording job steps', () => {
  it('replays POST /job/executeJob, and refuses the key on another step', async () => {
    const account = await newAccount();
    const job = await newJob(account);
    const key = newKey();
    const first = ok(await jobStep(account, 'executeJob', job.id, key));
    expect(first.status).toBe('ASSIGNED');
    const again = await jobStep(account, 'executeJob', job.id, key);
    expect(again.status).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(first);
    expectError(await jobStep(account, 'cancel', job.id, key), 422, 'idempotency_key_reused');
  });

  it('keeps a 4xx the step answered and replays it, although the job could now take the step', async () => {
    const account = await newAccount();
    const job = await newJob(account);
    ok(await jobStep(account, 'executeJob', job.id, undefined));
    const key = newKey();
    const refused = await jobStep(account, 'accept', job.id, key);
    expectError(refused, 409, 'invalid_state');
    const { fileId } = ok(await jobStep(account, 'recording', job.id, undefined, { fileId: (await fileRow(account)).fileId }), 201);
    ok(await call('POST', `/richPush/select?file_id=${fileId}`, { token: account.apiKey }));
    const again = await jobStep(account, 'accept', job.id, key);
    expect(again.status).toBe(409);
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(refused.body);
  });

  it('answers 409 with Retry-After while the step runs, then replays it', { timeout: 40_000 }, async () => {
    const account = await newAccount();
    const job = await newJob(account);
    const key = newKey();
    // The step's activity locks the job row; the test holds it first.
    const lock = await holdInTransaction('select id from jobs where id = $1 for update', [job.id]);
    let first: Promise<ApiResponse>;
    try {
      first = jobStep(account, 'executeJob', job.id, key);
      await waitUntilInProgress(key);
      const second = await jobStep(account, 'executeJob', job.id, key);
      expectError(second, 409, 'idempotency_key_in_use');
      expect(second.headers.get('retry-after')).toMatch(/^[1-5]$/);
    } finally {
      await lock.release();
    }
    const answered = ok(await first);
    expect(answered.status).toBe('ASSIGNED');
    const third = await jobStep(account, 'executeJob', job.id, key);
    expect(replayed(third)).toBe('true');
    expect(third.body).toEqual(answered);
  });

  it('stores one recording when POST /job/recording is retried after the API died before storing its answer', { timeout: 40_000 }, async () => {
    const account = await newAccount();
    const job = await newJob(account);
    ok(await jobStep(account, 'executeJob', job.id, undefined));
    const key = newKey();
    const recording = { fileId: (await fileRow(account)).fileId };
    const first = ok(await jobStep(account, 'recording', job.id, key, recording), 201);

    await crashBeforeStoring(key);
    const retried = await jobStep(account, 'recording', job.id, key, recording);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(replayed(retried)).toBeNull(); // it ran again; Temporal answered the same update id with the first outcome
    expect(retried.body.fileId).toBe(first.fileId);
    const stored = ok(await call('GET', `/job/get?id=${job.id}`, { token: account.apiKey }));
    expect(stored.recordings.map((file: any) => file.fileId)).toEqual([first.fileId]);
  });

  it('creates one job when POST /job/create is retried after the API died before storing its answer', { timeout: 40_000 }, async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const key = newKey();
    const body = sampleJob(account, notificationId);
    const create = () => call('POST', '/job/create', { token: account.apiKey, headers: keyed(key), body });
    const first = ok(await create(), 201);

    await crashBeforeStoring(key);
    const retried = await create();
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(replayed(retried)).toBeNull();
    expect(retried.body.id).toBe(first.id);
    const jobs = ok(await call('GET', '/job/list', { token: account.apiKey }));
    expect(jobs.items.map((item: any) => item.id)).toEqual([first.id]);
  });

  it('does not keep a 5xx: with Temporal out of reach the step answers 503, and the retry runs', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const job = await newJob(account);
    const key = newKey();
    const down = await startApiInstance({ temporalAddress: unreachable });
    extras.push(down);
    const refused = await call('POST', `/job/executeJob?id=${job.id}`, { baseUrl: down.url, token: account.apiKey, headers: keyed(key) });
    expectError(refused, 503, 'service_unavailable');
    expect(await keyRows(key)).toEqual([]);

    const retried = await jobStep(account, 'executeJob', job.id, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(replayed(retried)).toBeNull();
    expect(retried.body.status).toBe('ASSIGNED');
  });
});

import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, sampleMessage, type ApiResponse, type TestAccount } from '../support/api.ts';
import { newApp, newSegment } from '../support/devices.ts';
import { ok } from '../support/http-assertions.ts';
import { newJob, newMessage, sampleJob } from '../support/jobs.ts';
import { fileRow } from '../support/files.ts';

type State = 'CREATED' | 'ASSIGNED' | 'SUBMITTED' | 'SELECTED' | 'ACCEPTED' | 'CANCELLED';
type Operation = 'update' | 'execute' | 'recording' | 'select' | 'accept' | 'cancel';

const states: State[] = ['CREATED', 'ASSIGNED', 'SUBMITTED', 'SELECTED', 'ACCEPTED', 'CANCELLED'];
const operations: Operation[] = ['update', 'execute', 'recording', 'select', 'accept', 'cancel'];

/** The documented lifecycle, written out independently of the code: the state each operation leads to, where allowed. */
const nextState: Record<State, Partial<Record<Operation, State>>> = {
  CREATED: { update: 'CREATED', execute: 'ASSIGNED', cancel: 'CANCELLED' },
  ASSIGNED: { update: 'ASSIGNED', recording: 'SUBMITTED', cancel: 'CANCELLED' },
  SUBMITTED: { update: 'SUBMITTED', recording: 'SUBMITTED', select: 'SELECTED', cancel: 'CANCELLED' },
  SELECTED: { select: 'SELECTED', accept: 'ACCEPTED', cancel: 'CANCELLED' },
  ACCEPTED: {},
  CANCELLED: {},
};

/** How a refusal names the operation (by the route the caller used, not an internal step) and the states it requires. */
const requirement: Record<Operation, string> = {
  update: 'PUT /job/update requires CREATED, ASSIGNED or SUBMITTED',
  execute: 'POST /job/executeJob requires CREATED',
  recording: 'POST /job/recording requires ASSIGNED or SUBMITTED',
  select: 'POST /richPush/select (or /job/select) requires SUBMITTED or SELECTED',
  accept: 'POST /job/accept requires SELECTED',
  cancel: 'POST /job/cancel requires CREATED, ASSIGNED, SUBMITTED or SELECTED',
};

/** A take's body: a ready file of the account's app (a row as processing leaves it; these tests are about the job). */
const recording = async (account: TestAccount) => ({ fileId: (await fileRow(account)).fileId });
/** A file id of the right shape that names no file. */
const unknownFileId = () => `fil_${randomUUID().replaceAll('-', '').slice(0, 22)}`;

let connection: Connection;
let client: Client;
beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('namespace') });
});
afterAll(() => connection?.close());

interface Prepared {
  account: TestAccount;
  token: string;
  job: any;
  /** The job's recordings, oldest first. */
  fileIds: string[];
}

const getJob = (p: { token: string }, id: string) => call('GET', `/job/get?id=${id}`, { token: p.token });
const getMessage = (p: { token: string }, id: string) => call('GET', `/notification/get?id=${id}`, { token: p.token });

/** A fresh account with a job brought to `state` through the API. CANCELLED is reached from SUBMITTED, so it has a recording. */
async function jobIn(state: State): Promise<Prepared> {
  const account = await newAccount();
  const token = account.apiKey;
  const p: Prepared = { account, token, job: await newJob(account), fileIds: [] };
  const id = p.job.id;
  if (state === 'CREATED') return p;
  p.job = ok(await call('POST', `/job/executeJob?id=${id}`, { token }), 200);
  if (state === 'ASSIGNED') return p;
  const submitted = ok(await call('POST', `/job/recording?id=${id}`, { token, body: await recording(account) }), 201);
  p.job = submitted.job;
  p.fileIds.push(submitted.fileId);
  if (state === 'SUBMITTED') return p;
  if (state === 'CANCELLED') {
    p.job = ok(await call('POST', `/job/cancel?id=${id}`, { token }), 200);
    return p;
  }
  p.job = ok(await call('POST', `/richPush/select?file_id=${p.fileIds[0]}`, { token }), 200);
  if (state === 'SELECTED') return p;
  p.job = ok(await call('POST', `/job/accept?id=${id}`, { token }), 200);
  return p;
}

async function send(operation: Operation, p: Prepared, jobId: string = p.job.id): Promise<ApiResponse> {
  const token = p.token;
  switch (operation) {
    case 'update':
      return call('PUT', '/job/update', { token, body: { id: jobId, title: 'Renamed voice-over' } });
    case 'execute':
      return call('POST', `/job/executeJob?id=${jobId}`, { token });
    case 'recording':
      return call('POST', `/job/recording?id=${jobId}`, { token, body: await recording(p.account) });
    case 'select':
      // The job's own first recording; a job that has none yet can only be named by a file that is not its own.
      return call('POST', `/richPush/select?file_id=${p.fileIds[0] ?? unknownFileId()}`, { token });
    case 'accept':
      return call('POST', `/job/accept?id=${jobId}`, { token });
    case 'cancel':
      return call('POST', `/job/cancel?id=${jobId}`, { token });
  }
}

const cases = states.flatMap((state) => operations.map((operation) => ({ state, operation })));
const caseName = (c: { state: State; operation: Operation }) => `${c.operation} on ${c.state}`;

describe('job transitions, every state × every operation', () => {
  // Every case has an account and a job of its own, all prepared at once so the table stays quick.
  const prepared = new Map<string, Promise<Prepared>>();
  beforeAll(() => {
    for (const c of cases) {
      const job = jobIn(c.state).then(async (p) => {
        // A finished job's workflow closes once its events are out; check the steady state, not the moment in between.
        if (c.state === 'ACCEPTED' || c.state === 'CANCELLED') await client.workflow.getHandle(p.job.workflowId).result();
        return p;
      });
      job.catch(() => {}); // reported by the test that awaits it
      prepared.set(caseName(c), job);
    }
  });

  it.for(cases)('$operation on a $state job', async ({ state, operation }) => {
    const p = await prepared.get(caseName({ state, operation }))!;
    const final = state === 'ACCEPTED' || state === 'CANCELLED';
    const before = ok(await getJob(p, p.job.id), 200);
    expect(before).toEqual(p.job);

    const response = await send(operation, p);
    const after = ok(await getJob(p, p.job.id), 200);
    const next = nextState[state][operation];

    if (next) {
      const job = operation === 'recording' ? response.body.job : response.body;
      expect(response.status, JSON.stringify(response.body)).toBe(operation === 'recording' ? 201 : 200);
      expect(job.status).toBe(next);
      // The answer is the job as persisted.
      expect(after).toEqual(job);
      expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
      if (operation === 'update') expect(after.title).toBe('Renamed voice-over');
      if (operation === 'recording') {
        expect(after.recordings).toHaveLength(before.recordings.length + 1);
        expect(response.body).toMatchObject({ jobId: p.job.id, status: 'ready', fileName: 'take.wav', fileId: after.recordings.at(-1).fileId });
      }
      if (operation === 'select') expect(after.selectedFileId).toBe(p.fileIds[0]);
      const message = ok(await getMessage(p, p.job.notificationId), 200);
      expect(message.status).toBe(next === 'ACCEPTED' ? 'READY' : next === 'CANCELLED' ? 'DRAFT' : 'RECORDING');
      return;
    }

    if (operation === 'select' && p.fileIds.length === 0) {
      // CREATED and ASSIGNED jobs have no recording to name: any file id is unknown.
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    } else {
      expect(response.status, JSON.stringify(response.body)).toBe(409);
      expect(response.body.error.code).toBe('invalid_state');
      if (final) {
        // Once the workflow has closed, the API explains the refusal from the stored row (see the report).
        expect([`The job is ${state}; ${requirement[operation]}`, `The job is ${state}; it accepts no more changes`]).toContain(response.body.error.message);
      } else {
        expect(response.body.error.message).toBe(`The job is ${state}; ${requirement[operation]}`);
      }
    }
    // A refusal changes nothing.
    expect(after).toEqual(before);
  });
});

describe('a finished job', () => {
  it('names the required state in its refusal after its workflow has closed', async () => {
    const p = await jobIn('ACCEPTED');
    await client.workflow.getHandle(p.job.workflowId).result();
    const response = await send('accept', p);
    expect(response.status).toBe(409);
    expect(response.body.error.message).toBe('The job is ACCEPTED; POST /job/accept requires SELECTED');
  });
});

describe('job lifecycle details', () => {
  it('accepts several recordings, reselects among them through both select paths, and refuses a file of no job of its own', async () => {
    const p = await jobIn('SUBMITTED');
    const token = p.token;
    const second = ok(await call('POST', `/job/recording?id=${p.job.id}`, { token, body: await recording(p.account) }), 201);
    expect(second.job.status).toBe('SUBMITTED');
    expect(second.job.recordings.map((r: any) => r.fileId)).toEqual([p.fileIds[0], second.fileId]);

    const first = ok(await call('POST', `/richPush/select?file_id=${p.fileIds[0]}`, { token }), 200);
    expect(first).toMatchObject({ status: 'SELECTED', selectedFileId: p.fileIds[0] });
    const again = ok(await call('POST', `/job/select?file_id=${second.fileId}`, { token }), 200);
    expect(again).toMatchObject({ status: 'SELECTED', selectedFileId: second.fileId });
    expect(ok(await getJob(p, p.job.id), 200)).toEqual(again);

    // No more recordings once one is selected.
    const late = await call('POST', `/job/recording?id=${p.job.id}`, { token, body: await recording(p.account) });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toBe('The job is SELECTED; POST /job/recording requires ASSIGNED or SUBMITTED');

    const unknown = await call('POST', `/job/select?file_id=${unknownFileId()}`, { token });
    expect(unknown.status).toBe(404);

    const accepted = ok(await call('POST', `/job/accept?id=${p.job.id}`, { token }), 200);
    expect(accepted).toMatchObject({ status: 'ACCEPTED', selectedFileId: second.fileId });
    const message = ok(await getMessage(p, p.job.notificationId), 200);
    expect(message).toMatchObject({ status: 'READY', recording: { url: second.url, fileId: second.fileId, stockId: null } });
  });

  it('selecting a file of job B moves job B only', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const p = { token };
    const jobA = await newJob(account);
    const jobB = await newJob(account);
    for (const job of [jobA, jobB]) ok(await call('POST', `/job/executeJob?id=${job.id}`, { token }), 200);
    const fileA = ok(await call('POST', `/job/recording?id=${jobA.id}`, { token, body: await recording(account) }), 201);
    const fileB = ok(await call('POST', `/job/recording?id=${jobB.id}`, { token, body: await recording(account) }), 201);
    const aBefore = ok(await getJob(p, jobA.id), 200);

    const selected = ok(await call('POST', `/richPush/select?file_id=${fileB.fileId}`, { token }), 200);
    expect(selected).toMatchObject({ id: jobB.id, status: 'SELECTED', selectedFileId: fileB.fileId });
    expect(ok(await getJob(p, jobA.id), 200)).toEqual(aBefore);
    expect(aBefore).toMatchObject({ status: 'SUBMITTED', selectedFileId: null, recordings: [expect.objectContaining({ fileId: fileA.fileId })] });
  });

  it('cancel returns the message to DRAFT and a new job can be made for it; a message that is not DRAFT gets 409', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const p = { token };
    const notificationId = await newMessage(account);
    const first = ok(await call('POST', '/job/create', { token, body: sampleJob(account, notificationId) }), 201);

    // RECORDING: a second job for the same message is refused, and its message is untouched.
    const duplicate = await call('POST', '/job/create', { token, body: sampleJob(account, notificationId) });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toMatchObject({ code: 'invalid_state', message: 'The message is RECORDING; a recording job needs a DRAFT message' });

    const cancelled = ok(await call('POST', `/job/cancel?id=${first.id}`, { token }), 200);
    expect(cancelled.status).toBe('CANCELLED');
    expect(ok(await getJob(p, first.id), 200)).toEqual(cancelled);
    expect(ok(await getMessage(p, notificationId), 200).status).toBe('DRAFT');

    const second = ok(await call('POST', '/job/create', { token, body: sampleJob(account, notificationId, { title: 'Second take' }) }), 201);
    expect(second).toMatchObject({ status: 'CREATED', notificationId, title: 'Second take' });
    expect(second.id).not.toBe(first.id);
    expect(ok(await getMessage(p, notificationId), 200).status).toBe('RECORDING');

    // READY: after the second job is accepted, no job can be made for the message either.
    ok(await call('POST', `/job/executeJob?id=${second.id}`, { token }), 200);
    const file = ok(await call('POST', `/job/recording?id=${second.id}`, { token, body: await recording(account) }), 201);
    ok(await call('POST', `/job/select?file_id=${file.fileId}`, { token }), 200);
    ok(await call('POST', `/job/accept?id=${second.id}`, { token }), 200);
    expect(ok(await getMessage(p, notificationId), 200).status).toBe('READY');
    const third = await call('POST', '/job/create', { token, body: sampleJob(account, notificationId) });
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({ code: 'invalid_state', message: 'The message is READY; a recording job needs a DRAFT message' });

    const listed = ok(await call('GET', `/job/list?appId=${account.appId}`, { token }), 200);
    expect(listed.items.map((job: any) => [job.id, job.status])).toEqual([
      [second.id, 'ACCEPTED'],
      [first.id, 'CANCELLED'],
    ]);
  });

  it('creates exactly one job, and starts one run, when creates for one message race', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const notificationId = await newMessage(account);
    const responses = await Promise.all([1, 2, 3].map(() => call('POST', '/job/create', { token, body: sampleJob(account, notificationId) })));
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const winner = responses.find((r) => r.status === 201)!.body;
    for (const refused of responses.filter((r) => r.status === 409)) {
      expect(refused.body.error).toMatchObject({ code: 'invalid_state', message: 'The message is RECORDING; a recording job needs a DRAFT message' });
    }
    const listed = ok(await call('GET', '/job/list', { token }), 200);
    expect(listed.items.map((job: any) => job.id)).toEqual([winner.id]);

    // Temporal holds the winner's run alone, no refused run beside it: once visibility lists a run started after the
    // race, it lists the runs started in it too.
    const jobRuns = async () => {
      const ids: string[] = [];
      for await (const run of client.workflow.list({ query: `EntityType = 'job' AND AppId = '${account.appId}'` })) ids.push(run.workflowId);
      return ids.sort();
    };
    const last = ok(await call('POST', '/job/create', { token, body: sampleJob(account, await newMessage(account)) }), 201);
    await expect.poll(jobRuns, { timeout: 15_000 }).toEqual(expect.arrayContaining([winner.workflowId, last.workflowId]));
    expect(await jobRuns()).toEqual([winner.workflowId, last.workflowId].sort());
  });

  it('starts no Temporal run for a create it refuses (a RECORDING or a READY message, with or without an Idempotency-Key)', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    /** The workflow ids of the app's job runs, as Temporal's visibility lists them (search attributes of the start). */
    const jobRuns = async () => {
      const ids: string[] = [];
      for await (const run of client.workflow.list({ query: `EntityType = 'job' AND AppId = '${account.appId}'` })) ids.push(run.workflowId);
      return ids.sort();
    };

    const recordingMessage = await newMessage(account);
    const first = ok(await call('POST', '/job/create', { token, body: sampleJob(account, recordingMessage) }), 201);
    const stock = ok(await call('POST', '/stock/create', { token, body: { appId: account.appId, title: 'Jingle', ...(await recording(account)) } }), 201);
    // A message made from stock is READY at once.
    const readyMessage = ok(await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { token, body: { appId: account.appId, title: 'From stock' } }), 201).notification;
    expect(readyMessage.status).toBe('READY');

    for (const [notificationId, status] of [[recordingMessage, 'RECORDING'], [readyMessage.id, 'READY']] as const) {
      for (const headers of [{}, { 'idempotency-key': randomUUID() }] as Array<Record<string, string>>) {
        const refused = await call('POST', '/job/create', { token, headers, body: sampleJob(account, notificationId) });
        expect(refused.status, JSON.stringify(refused.body)).toBe(409);
        expect(refused.body.error).toMatchObject({ code: 'invalid_state', message: `The message is ${status}; a recording job needs a DRAFT message` });
      }
    }

    // A create after the refusals: once visibility lists its run, it would list runs started before it too.
    const last = ok(await call('POST', '/job/create', { token, body: sampleJob(account, await newMessage(account)) }), 201);
    await expect.poll(jobRuns, { timeout: 15_000 }).toContain(last.workflowId);
    expect(await jobRuns()).toEqual([first.workflowId, last.workflowId].sort());
  });
});

describe('job lookups and ownership', () => {
  it('answers 404 for an unknown job or file id, for every operation', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const p: Prepared = { account, token, job: { id: randomUUID() }, fileIds: [unknownFileId()] };
    for (const operation of operations) {
      const response = await send(operation, p);
      expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    expect((await call('GET', `/job/get?id=${randomUUID()}`, { token })).status).toBe(404);
  });

  it.each(['ASSIGNED', 'SUBMITTED', 'SELECTED'] as const)("answers 404 for another account's %s job and its file, and changes nothing", async (state) => {
    const owner = await jobIn(state);
    const other = await newAccount();
    const intruder: Prepared = { ...owner, account: other, token: other.apiKey };
    const before = ok(await getJob(owner, owner.job.id), 200);
    for (const operation of operations) {
      const response = await send(operation, intruder);
      expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    expect((await getJob(intruder, owner.job.id)).status).toBe(404);
    expect(ok(await getJob(owner, owner.job.id), 200)).toEqual(before);
    expect(ok(await getMessage(owner, owner.job.notificationId), 200).status).toBe('RECORDING');
    // And the other account's job list does not show it.
    expect(ok(await call('GET', '/job/list', { token: other.apiKey }), 200).items).toEqual([]);
  });

  it("answers 404 for a job in another account's app or message", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const otherMessage = await newMessage(other);
    const foreignApp = await call('POST', '/job/create', { token: owner.apiKey, body: sampleJob(owner, await newMessage(owner), { appId: other.appId }) });
    expect(foreignApp.status).toBe(404);
    const foreignMessage = await call('POST', '/job/create', { token: owner.apiKey, body: sampleJob(owner, otherMessage) });
    expect(foreignMessage.status).toBe(404);
    expect(ok(await getMessage({ token: other.apiKey }, otherMessage), 200).status).toBe('DRAFT');
  });
});

describe('job validation', () => {
  const detailPaths = (response: ApiResponse) => response.body.error.details.map((detail: { path: string }) => detail.path);

  it.each([
    ['a missing title', (job: Record<string, unknown>) => ({ ...job, title: undefined }), 'body.title'],
    ['a bad artist email', (job: Record<string, unknown>) => ({ ...job, artist: 'not-an-email' }), 'body.artist'],
    [
      'artistDueDate after dueDate',
      (job: Record<string, unknown>) => ({ ...job, dueDate: Date.now() + 3600_000, artistDueDate: Date.now() + 7200_000 }),
      'body.artistDueDate',
    ],
  ])('refuses to create a job with %s (400) and leaves the message DRAFT', async (_name, change, path) => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const response = await call('POST', '/job/create', { token: account.apiKey, body: change(sampleJob(account, notificationId)) });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(detailPaths(response)).toContain(path);
    expect(ok(await getMessage({ token: account.apiKey }, notificationId), 200).status).toBe('DRAFT');
    expect(ok(await call('GET', '/job/list', { token: account.apiKey }), 200).items).toEqual([]);
  });

  it('refuses a bad update (400 with paths) and changes nothing', async () => {
    const p = await jobIn('ASSIGNED');
    const token = p.token;
    const id = p.job.id;
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ id, title: '' }, 'body.title'],
      [{ id, artist: 'nobody' }, 'body.artist'],
      [{ id, dueDate: Date.now() + 3600_000, artistDueDate: Date.now() + 7200_000 }, 'body.artistDueDate'],
      [{ id, status: 'ACCEPTED' }, 'body'],
    ];
    for (const [body, path] of bad) {
      const response = await call('PUT', '/job/update', { token, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(detailPaths(response), JSON.stringify(body)).toContain(path);
    }
    expect(ok(await getJob(p, id), 200)).toEqual(p.job);
  });

  it('refuses an update that moves artistDueDate after the stored dueDate', async () => {
    const p = await jobIn('CREATED');
    const response = await call('PUT', '/job/update', { token: p.token, body: { id: p.job.id, artistDueDate: p.job.dueDate + 3600_000 } });
    expect(response.status).toBe(400);
    expect(detailPaths(response)).toContain('body.artistDueDate');
    expect(ok(await getJob(p, p.job.id), 200)).toEqual(p.job);
  });

  it('refuses a recording whose url is not https (400 body.url) and stores nothing', async () => {
    const p = await jobIn('ASSIGNED');
    for (const url of ['http://cdn.example.com/take.m4a', 'ftp://cdn.example.com/take.m4a', 'not a url']) {
      const response = await call('POST', `/job/recording?id=${p.job.id}`, { token: p.token, body: { url } });
      expect(response.status).toBe(400);
      expect(detailPaths(response)).toContain('body.url');
    }
    expect(ok(await getJob(p, p.job.id), 200)).toEqual(p.job);
  });

  it('takes a filterId naming a segment of the job’s app, and refuses any other with 422 unknown_segment (create and update)', async () => {
    const p = await jobIn('CREATED');
    const token = p.token;
    const segment = await newSegment(p.account, { all: [] });
    const elsewhere = await newSegment(p.account, { all: [] }, await newApp(p.account));
    const foreign = await newSegment(await newAccount(), { all: [] });
    const notificationId = await newMessage(p.account);
    for (const filterId of ['no-such-segment', randomUUID(), elsewhere.id, foreign.id]) {
      for (const response of [
        await call('PUT', '/job/update', { token, body: { id: p.job.id, filterId } }),
        await call('POST', '/job/create', { token, body: sampleJob(p.account, notificationId, { filterId }) }),
      ]) {
        expect(response.status, JSON.stringify(response.body)).toBe(422);
        expect(response.body.error).toMatchObject({ code: 'unknown_segment', message: expect.stringContaining(`filterId ${JSON.stringify(filterId)}`) });
      }
    }
    expect(ok(await getJob(p, p.job.id), 200)).toEqual(p.job);
    expect(ok(await getMessage(p, notificationId), 200).status).toBe('DRAFT');

    expect(ok(await call('PUT', '/job/update', { token, body: { id: p.job.id, filterId: segment.id } }), 200).filterId).toBe(segment.id);
    expect(ok(await call('PUT', '/job/update', { token, body: { id: p.job.id, filterId: null } }), 200).filterId).toBeNull();
    expect(ok(await call('POST', '/job/create', { token, body: sampleJob(p.account, notificationId, { filterId: segment.id }) }), 201).filterId).toBe(segment.id);
  });

  it('refuses to move a job to another app (400 body.appId), but accepts its own appId', async () => {
    const p = await jobIn('CREATED');
    const token = p.token;
    const otherApp = ok(await call('POST', `/accounts/${p.account.accountId}/apps`, { token, body: { name: 'second app' } }), 201);
    const moved = await call('PUT', '/job/update', { token, body: { id: p.job.id, appId: otherApp.appId, title: 'Moved' } });
    expect(moved.status).toBe(400);
    expect(moved.body.error.code).toBe('validation_failed');
    expect(detailPaths(moved)).toEqual(['body.appId']);
    expect(ok(await getJob(p, p.job.id), 200)).toEqual(p.job);

    const same = ok(await call('PUT', '/job/update', { token, body: { id: p.job.id, appId: p.account.appId, title: 'Kept' } }), 200);
    expect(same).toMatchObject({ appId: p.account.appId, title: 'Kept' });
    expect(ok(await getJob(p, p.job.id), 200)).toEqual(same);
  });
});

describe('job list', () => {
  it('filters by app and status and walks pages newest first', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const secondApp = ok(await call('POST', `/accounts/${account.accountId}/apps`, { token, body: { name: 'second app' } }), 201).appId;
    const first = await newJob(account, { title: 'one' });
    const second = await newJob(account, { title: 'two' });
    const third = await newJob(account, { title: 'three' });
    ok(await call('POST', `/job/executeJob?id=${second.id}`, { token }), 200);
    const messageInSecondApp = ok(await call('POST', '/notification/create', { token, body: sampleMessage(secondApp) }), 201).id;
    const elsewhere = ok(
      await call('POST', '/job/create', { token, body: sampleJob(account, messageInSecondApp, { appId: secondApp, title: 'elsewhere' }) }),
      201,
    );

    const ids = async (query: string) => ok(await call('GET', `/job/list?${query}`, { token }), 200).items.map((job: any) => job.id);
    expect(await ids('')).toEqual([elsewhere.id, third.id, second.id, first.id]);
    expect(await ids(`appId=${account.appId}`)).toEqual([third.id, second.id, first.id]);
    expect(await ids(`appId=${secondApp}`)).toEqual([elsewhere.id]);
    expect(await ids('status=ASSIGNED')).toEqual([second.id]);
    expect(await ids(`appId=${account.appId}&status=CREATED`)).toEqual([third.id, first.id]);
    expect(await ids(`appId=${secondApp}&status=ASSIGNED`)).toEqual([]);

    // The listed jobs are the jobs as GET /job/get returns them.
    const listed = ok(await call('GET', `/job/list?appId=${account.appId}`, { token }), 200);
    for (const job of listed.items) expect(job).toEqual(ok(await getJob({ token }, job.id), 200));

    const walked: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const response: any = ok(
        await call('GET', `/job/list?appId=${account.appId}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token }),
        200,
      );
      expect(response.items).toHaveLength(1);
      walked.push(response.items[0].id);
      cursor = response.nextCursor;
      if (!cursor) break;
    }
    expect(walked).toEqual([third.id, second.id, first.id]);

    expect((await call('GET', '/job/list?status=DONE', { token })).status).toBe(400);
    expect((await call('GET', '/job/list?cursor=garbage', { token })).status).toBe(400);
  });
});

describe('concurrent changes to one job', () => {
  it('of accept and cancel racing on a SELECTED job, exactly one wins and the stored job is its answer', { timeout: 60_000 }, async () => {
    const prepared = await Promise.all([1, 2, 3, 4, 5].map(() => jobIn('SELECTED')));
    const winners: string[] = [];
    await Promise.all(
      prepared.map(async (p) => {
        const [accept, cancel] = await Promise.all([send('accept', p), send('cancel', p)]);
        const statuses = [accept.status, cancel.status];
        expect(statuses.sort(), JSON.stringify([accept.body, cancel.body])).toEqual([200, 409]);
        const [winner, loser] = accept.status === 200 ? [accept, cancel] : [cancel, accept];
        expect(loser.body.error.code).toBe('invalid_state');
        expect(loser.body.error.message).toMatch(new RegExp(`^The job is ${winner.body.status}; `));
        expect(ok(await getJob(p, p.job.id), 200)).toEqual(winner.body);
        const message = ok(await getMessage(p, p.job.notificationId), 200);
        expect(message.status).toBe(winner.body.status === 'ACCEPTED' ? 'READY' : 'DRAFT');
        winners.push(winner.body.status);
      }),
    );
    expect(winners).toHaveLength(5);
    expect(winners.every((status) => status === 'ACCEPTED' || status === 'CANCELLED')).toBe(true);
  });

  it('of execute and cancel racing on a CREATED job, exactly one wins', async () => {
    const prepared = await Promise.all([1, 2, 3].map(() => jobIn('CREATED')));
    await Promise.all(
      prepared.map(async (p) => {
        const responses = await Promise.all([send('execute', p), send('cancel', p)]);
        const won = responses.filter((r) => r.status === 200);
        const refused = responses.filter((r) => r.status === 409);
        // Execute then cancel can both succeed (ASSIGNED may be cancelled); cancel then execute cannot.
        if (won.length === 2) {
          expect(ok(await getJob(p, p.job.id), 200).status).toBe('CANCELLED');
        } else {
          expect(won).toHaveLength(1);
          expect(refused).toHaveLength(1);
          expect(won[0]!.body.status).toBe('CANCELLED');
          expect(ok(await getJob(p, p.job.id), 200)).toEqual(won[0]!.body);
        }
      }),
    );
  });

  it('runs two concurrent updates one after the other: both succeed and the last one stays', async () => {
    const p = await jobIn('ASSIGNED');
    const [a, b] = await Promise.all(
      ['Title A', 'Title B'].map((title) => call('PUT', '/job/update', { token: p.token, body: { id: p.job.id, title } })),
    );
    expect(a!.status).toBe(200);
    expect(b!.status).toBe(200);
    expect(a!.body.title).toBe('Title A');
    expect(b!.body.title).toBe('Title B');
    const stored = ok(await getJob(p, p.job.id), 200);
    expect(['Title A', 'Title B']).toContain(stored.title);
    const last = stored.title === 'Title A' ? a!.body : b!.body;
    const firstApplied = stored.title === 'Title A' ? b!.body : a!.body;
    expect(stored).toEqual(last);
    // Serialised: the later one was applied on top of the earlier one.
    expect(Date.parse(last.updatedAt)).toBeGreaterThanOrEqual(Date.parse(firstApplied.updatedAt));
    expect(Date.parse(firstApplied.updatedAt)).toBeGreaterThan(Date.parse(p.job.updatedAt));
    expect(stored.status).toBe('ASSIGNED');
  });
});

import type { Client } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccountId, AppId, EntityId, EntityType, JobStatus } from '../../src/sandbox-safe/search-attributes.ts';
import { jobState } from '../../workflows/recording-job.contract.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { ok } from '../support/http-assertions.ts';
import { newJob } from '../support/jobs.ts';
import type { ReceivedRequest } from '../support/receiver.ts';
import { waitForEventsSettled } from '../support/deliveries.ts';
import { temporalClient, waitForRunClosed } from '../support/temporal.ts';
import { until } from '../support/wait.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';
import { fileRow } from '../support/files.ts';

const jobEventTypes = ['job.assigned', 'job.recording_submitted', 'job.accepted', 'job.cancelled', 'job.artist_overdue', 'job.overdue'];
/** A ready file of the account's app to submit as a take (a row as processing leaves it: these tests are about events). */
const take = (account: TestAccount) => fileRow(account);

const fixtures: EndpointFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.receiver.close()));
});

let client: Client;
let closeClient: () => Promise<void>;
beforeAll(async () => {
  ({ client, close: closeClient } = await temporalClient());
});
afterAll(() => closeClient?.());

/** Drives a job through the API to ACCEPTED, as fast as it can. Returns the job and its recording. */
async function runToAccepted(account: TestAccount, job: any) {
  const token = account.apiKey;
  ok(await call('POST', `/job/executeJob?id=${job.id}`, { token }));
  const file = ok(await call('POST', `/job/recording?id=${job.id}`, { token, body: { fileId: (await take(account)).fileId } }), 201);
  ok(await call('POST', `/richPush/select?file_id=${file.fileId}`, { token }));
  const accepted = ok(await call('POST', `/job/accept?id=${job.id}`, { token }));
  return { accepted, file };
}

interface Received {
  request: ReceivedRequest;
  envelope: any;
}

/** Every request the receiver got, each verified with the Standard Webhooks reference library. */
function verified(endpoint: EndpointFixture): Received[] {
  return endpoint.receiver.requests.map((request) => {
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const envelope = new Webhook(endpoint.secret).verify(request.body, headers) as any;
    expect(envelope.id).toBe(headers['webhook-id']);
    return { request, envelope };
  });
}

/** Waits until the events the endpoint received (verified) satisfy the predicate; a timeout shows each one's type and result. */
const waitFor = (endpoint: EndpointFixture, what: string, predicate: (events: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> =>
  until(what, () => verified(endpoint), predicate, {
    timeoutMs,
    intervalMs: 50,
    show: (events) => events.map((event) => [event.envelope.type, event.envelope.data.result]),
  });

/** Waits until each job's run has ended (a job ends once accepted or cancelled and its events are published). */
const waitForJobsDone = (...jobs: Array<{ workflowId: string }>) => Promise.all(jobs.map((job) => waitForRunClosed(client, job.workflowId)));

const ofJob = (events: Received[], jobId: string, type?: string) =>
  events.filter((event) => event.envelope.data.result.jobId === jobId && (type === undefined || event.envelope.type === type));

describe('job events to a subscribed endpoint', () => {
  it('delivers job.assigned (again on a new artist), job.recording_submitted, job.accepted and job.cancelled, signed', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const endpoint = await newEndpoint(account, jobEventTypes);
    fixtures.push(endpoint);

    const job = await newJob(account);
    const assigned = ok(await call('POST', `/job/executeJob?id=${job.id}`, { token }));
    const reassigned = ok(await call('PUT', '/job/update', { token, body: { id: job.id, artist: 'second@example.com' } }));
    expect(reassigned).toMatchObject({ status: 'ASSIGNED', artist: 'second@example.com' });
    // A change that keeps the artist announces nothing.
    ok(await call('PUT', '/job/update', { token, body: { id: job.id, title: 'Weekend sale voice-over, v2' } }));
    const stored = await take(account);
    const file = ok(await call('POST', `/job/recording?id=${job.id}`, { token, body: { fileId: stored.fileId } }), 201);
    ok(await call('POST', `/job/select?file_id=${file.fileId}`, { token }));
    ok(await call('POST', `/job/accept?id=${job.id}`, { token }));

    const other = await newJob(account, { title: 'Dropped' });
    ok(await call('POST', `/job/cancel?id=${other.id}`, { token }));

    // Both runs have ended (accepted, cancelled), so every event they will ever emit is out; once those have settled,
    // nothing more can arrive: no duplicate, no event for the title change, no overdue.
    await waitForJobsDone(job, other);
    await waitForEventsSettled([account.accountId]);
    const events = verified(endpoint);
    expect(events).toHaveLength(5);

    for (const { envelope, request } of events) {
      expect(envelope).toEqual({ id: expect.stringMatching(/^evt_/), type: expect.any(String), timestamp: expect.any(String), accountId: account.accountId, data: { result: expect.any(Object) } });
      expect(request.headers['content-type']).toBe('application/json');
    }
    const ids = events.map((event) => event.envelope.id);
    expect(new Set(ids).size).toBe(5);

    const assignedEvents = ofJob(events, job.id, 'job.assigned').map((event) => event.envelope.data.result);
    expect(assignedEvents).toHaveLength(2);
    // Each carries its artist's link if it was still live when the event went out (the steps here follow each other
    // at once: the first artist was replaced, and the job accepted, maybe before); test/api/artist-link.test.ts
    // waits for each event and checks the link in it.
    expect(assignedEvents).toContainEqual({
      jobId: job.id,
      notificationId: job.notificationId,
      title: assigned.title,
      artist: 'artist@example.com',
      script: job.script,
      dueDate: job.dueDate,
      artistDueDate: job.artistDueDate,
      artistLink: expect.toBeOneOf([null, assigned.artistLink]),
    });
    expect(assignedEvents).toContainEqual({
      jobId: job.id,
      notificationId: job.notificationId,
      title: assigned.title,
      artist: 'second@example.com',
      previousArtist: 'artist@example.com',
      script: job.script,
      dueDate: job.dueDate,
      artistDueDate: job.artistDueDate,
      artistLink: expect.toBeOneOf([null, reassigned.artistLink]),
    });
    expect(ofJob(events, job.id, 'job.recording_submitted').map((event) => event.envelope.data.result)).toEqual([
      // The file's id (fil_…), which GET /file/get and select take, and its playback URL.
      { jobId: job.id, fileId: stored.fileId, url: stored.url, fileName: 'take.wav' },
    ]);
    expect(ofJob(events, job.id, 'job.accepted').map((event) => event.envelope.data.result)).toEqual([
      { jobId: job.id, notificationId: job.notificationId, fileId: stored.fileId, url: stored.url },
    ]);
    expect(ofJob(events, other.id).map((event) => [event.envelope.type, event.envelope.data.result])).toEqual([
      ['job.cancelled', { jobId: other.id, notificationId: other.notificationId, previousStatus: 'CREATED' }],
    ]);
  });

  it('sends nothing to an endpoint of another account or one not subscribed to job events', async () => {
    const account = await newAccount();
    const stranger = await newAccount();
    const strangerEndpoint = await newEndpoint(stranger, jobEventTypes);
    const unsubscribed = await newEndpoint(account, ['webhook.test']);
    const subscribed = await newEndpoint(account, ['job.accepted']);
    fixtures.push(strangerEndpoint, unsubscribed, subscribed);

    const job = await newJob(account);
    await runToAccepted(account, job);
    await waitForJobsDone(job);
    await waitForEventsSettled([account.accountId, stranger.accountId]);
    const [only, ...more] = verified(subscribed);
    expect(more).toEqual([]);
    expect(only!.envelope).toMatchObject({ type: 'job.accepted', accountId: account.accountId, data: { result: { jobId: job.id } } });
    expect(unsubscribed.receiver.requests).toHaveLength(0);
    expect(strangerEndpoint.receiver.requests).toHaveLength(0);
  });

  it('emits job.artist_overdue then job.overdue at their dates, and nothing overdue for a job accepted in time', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const endpoint = await newEndpoint(account, jobEventTypes);
    fixtures.push(endpoint);

    const now = Date.now();
    const late = await newJob(account, { title: 'Late', artistDueDate: now + 2000, dueDate: now + 4000 });
    ok(await call('POST', `/job/executeJob?id=${late.id}`, { token }));
    const onTime = await newJob(account, { title: 'On time', artistDueDate: now + 4000, dueDate: now + 4000 });
    const { file, accepted } = await runToAccepted(account, onTime);
    expect(Date.parse(accepted.updatedAt)).toBeLessThan(now + 4000); // it really was accepted before its dates

    const events = await waitFor(endpoint, 'job.overdue for the late job', (all) => ofJob(all, late.id, 'job.overdue').length === 1, 15_000);
    const lateEvents = ofJob(events, late.id);
    expect(lateEvents.map((event) => event.envelope.type).sort()).toEqual(['job.artist_overdue', 'job.assigned', 'job.overdue']);
    const [artistOverdue] = ofJob(events, late.id, 'job.artist_overdue');
    const [overdue] = ofJob(events, late.id, 'job.overdue');
    expect(artistOverdue!.request.receivedAt).toBeLessThan(overdue!.request.receivedAt);
    expect(artistOverdue!.envelope.data.result).toEqual({ jobId: late.id, artist: 'artist@example.com', artistDueDate: now + 2000, status: 'ASSIGNED' });
    expect(overdue!.envelope.data.result).toEqual({ jobId: late.id, status: 'ASSIGNED', dueDate: now + 4000 });
    expect(artistOverdue!.request.receivedAt).toBeGreaterThanOrEqual(now + 2000);
    expect(overdue!.request.receivedAt).toBeGreaterThanOrEqual(now + 4000);
    for (const event of lateEvents) expect(event.envelope.accountId).toBe(account.accountId);

    // The late job has no date left to watch; cancelling it ends its run. The accepted job's run ended with the accept,
    // its dates still ahead: no overdue event can follow. Once the runs have ended and their events settled, the
    // counts are final.
    ok(await call('POST', `/job/cancel?id=${late.id}`, { token }));
    await waitForJobsDone(late, onTime);
    await waitForEventsSettled([account.accountId]);
    const all = verified(endpoint);
    expect(ofJob(all, onTime.id).map((event) => event.envelope.type).sort()).toEqual(['job.accepted', 'job.assigned', 'job.recording_submitted']);
    expect(ofJob(all, onTime.id, 'job.accepted')[0]!.envelope.data.result.fileId).toBe(file.fileId);
    expect(ofJob(all, late.id).map((event) => event.envelope.type).sort()).toEqual(['job.artist_overdue', 'job.assigned', 'job.cancelled', 'job.overdue']);
  });
});

describe('a job seen from Temporal', () => {
  it('carries its search attributes, summary and state, and is found by a visibility query', { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const job = await newJob(account, { title: 'Spring promo', artist: 'singer@example.com' });
    const handle = client.workflow.getHandle(job.workflowId);
    expect(job.workflowId).toBe(`job:${job.id}`);

    const attributesOf = async () => {
      const description = await handle.describe();
      const attributes = description.typedSearchAttributes;
      return {
        description,
        values: {
          AccountId: attributes.get(AccountId),
          AppId: attributes.get(AppId),
          EntityType: attributes.get(EntityType),
          EntityId: attributes.get(EntityId),
          JobStatus: attributes.get(JobStatus),
        },
      };
    };
    const expected = (status: string) => ({ AccountId: account.accountId, AppId: account.appId, EntityType: 'job', EntityId: job.id, JobStatus: status });

    const created = await attributesOf();
    expect(created.values).toEqual(expected('CREATED'));
    expect(created.description.status.name).toBe('RUNNING');
    expect(created.description.type).toBe('recordingJob');
    const summary = await created.description.staticSummary();
    expect(summary).toContain('Spring promo');
    expect(summary).toContain('singer@example.com');
    expect(await created.description.staticDetails()).toContain(job.notificationId);
    // The run holds the job as the API answers it, but for the artist's link, which the API adds from Postgres.
    const withoutLink = ({ artistLink: _artistLink, ...rest }: any) => rest;
    expect(await handle.query(jobState)).toEqual(withoutLink(job));

    const assigned = ok(await call('POST', `/job/executeJob?id=${job.id}`, { token }));
    expect((await attributesOf()).values).toEqual(expected('ASSIGNED'));
    expect(await handle.query(jobState)).toEqual(withoutLink(assigned));
    expect(await handle.query(jobState)).toEqual(withoutLink(ok(await call('GET', `/job/get?id=${job.id}`, { token }))));

    // Visibility is eventually consistent: poll.
    const visibility = `EntityType = "job" AND JobStatus = "ASSIGNED" AND AccountId = "${account.accountId}"`;
    const found = async () => {
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query: visibility })) ids.push(execution.workflowId);
      return ids;
    };
    const ids = await until('the job in visibility', found, (listed) => listed.includes(job.workflowId), { timeoutMs: 10_000, intervalMs: 250 });
    expect(ids).toEqual([job.workflowId]);

    // Each transition moves JobStatus; a finished job's workflow completes with the job as its result.
    const file = ok(await call('POST', `/job/recording?id=${job.id}`, { token, body: { fileId: (await take(account)).fileId } }), 201);
    expect((await attributesOf()).values.JobStatus).toBe('SUBMITTED');
    ok(await call('POST', `/job/select?file_id=${file.fileId}`, { token }));
    expect((await attributesOf()).values.JobStatus).toBe('SELECTED');
    const accepted = ok(await call('POST', `/job/accept?id=${job.id}`, { token }));
    expect(await handle.result()).toEqual(withoutLink(accepted));
    const finished = await attributesOf();
    expect(finished.values).toEqual(expected('ACCEPTED'));
    expect(finished.description.status.name).toBe('COMPLETED');
  });
});

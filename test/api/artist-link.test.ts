import { createHash, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { fileRow } from '../support/files.ts';
import { newJob } from '../support/jobs.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';

// The artist's link (docs/recordings.md, "The artist's link"), black box: executeJob makes it, the job's answers and
// job.assigned carry it, and its token, with no API key, opens that job's artist routes and nothing else.

const hourMs = 3_600_000;
const graceHours = 72;

interface ArtistLink {
  url: string;
  expiresAt: string;
}

const fixtures: EndpointFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.receiver.close()));
});

const tokenOf = (link: ArtistLink) => link.url.slice(link.url.lastIndexOf('/') + 1);
/** The artist's view of the job, through the link's own URL, with no API key. */
const artistJob = (link: ArtistLink | string) => call('GET', `/artist/${typeof link === 'string' ? link : tokenOf(link)}/job`);

async function executed(account: TestAccount, overrides: Record<string, unknown> = {}): Promise<{ job: any; link: ArtistLink }> {
  const job = await newJob(account, overrides);
  const answer = ok(await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey }));
  expect(answer.artistLink).toEqual({ url: expect.any(String), expiresAt: expect.any(String) });
  return { job: answer, link: answer.artistLink };
}

/** The job.assigned events the endpoint received for the job, each verified with the Standard Webhooks library. */
function assignedEvents(endpoint: EndpointFixture, jobId: string): any[] {
  return endpoint.receiver.requests
    .map((request) =>
      new Webhook(endpoint.secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }),
    )
    .filter((envelope: any) => envelope.type === 'job.assigned' && envelope.data.result.jobId === jobId);
}

/** A history with every byte field (payloads: JSON text) as a string, so that what it carries can be searched. */
const decodedBytes = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(decodedBytes);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, decodedBytes(inner)]));
  return value;
};

const waitForAssigned = (endpoint: EndpointFixture, jobId: string, count: number) =>
  until(`${count} job.assigned event(s) of job ${jobId}`, () => assignedEvents(endpoint, jobId), (events) => events.length >= count, {
    timeoutMs: 20_000,
    intervalMs: 50,
  });

describe('the artist’s link', () => {
  it('is made by executeJob, shown on the job, sent in job.assigned, and opens the job’s artist view', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const endpoint = await newEndpoint(account, ['job.assigned']);
    fixtures.push(endpoint);

    const job = await newJob(account);
    expect(job.artistLink).toBeNull();
    const answer = ok(await call('POST', `/job/executeJob?id=${job.id}`, { token }));
    const link: ArtistLink = answer.artistLink;
    expect(link.url).toMatch(new RegExp(`^${inject('apiUrl')}/artist/art_[A-Za-z0-9_-]{43}$`));
    expect(link.expiresAt).toBe(new Date(job.artistDueDate + graceHours * hourMs).toISOString());

    // Shown again wherever the account sees the job.
    expect(ok(await call('GET', `/job/get?id=${job.id}`, { token })).artistLink).toEqual(link);
    const listed = ok(await call('GET', `/job/list?appId=${account.appId}`, { token })).items.find((item: any) => item.id === job.id);
    expect(listed.artistLink).toEqual(link);

    // job.assigned carries the job, the artist's e-mail and the link, so the account's own system can send it.
    const [event] = await waitForAssigned(endpoint, job.id, 1);
    expect(event.data.result).toEqual({
      jobId: job.id,
      notificationId: job.notificationId,
      title: job.title,
      artist: 'artist@example.com',
      script: job.script,
      dueDate: job.dueDate,
      artistDueDate: job.artistDueDate,
      artistLink: link,
    });

    // The token never entered the job run's history (update results, activity inputs and results, the event).
    const { client, close } = await temporalClient();
    try {
      const history = await client.workflow.getHandle(job.workflowId).fetchHistory();
      const text = JSON.stringify(decodedBytes(history));
      expect(text).toContain('publishJobEvent');
      expect(text).toContain(job.title);
      expect(text).not.toContain(tokenOf(link));
    } finally {
      await close();
    }

    // The link itself, with no API key: what to record and by when, and nothing else of the account.
    const view = await call('GET', `${new URL(link.url).pathname}/job`);
    expect(view.status).toBe(200);
    expect(view.body).toStrictEqual({
      title: job.title,
      description: job.description,
      script: job.script,
      richPushLevel: job.richPushLevel,
      dueDate: job.dueDate,
      artistDueDate: job.artistDueDate,
      linkExpiresAt: link.expiresAt,
    });
    const text = JSON.stringify(view.body);
    for (const id of [account.accountId, account.appId, job.id, job.notificationId, job.workflowId, 'artist@example.com']) expect(text).not.toContain(id);
    expect(view.headers.get('cache-control')).toBe('no-store');
    expect(view.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('is stored as a hash and a sealed copy: the token’s text is nowhere in the table', async () => {
    const account = await newAccount();
    const { job, link } = await executed(account);
    const secret = tokenOf(link);
    const rows = await query('select * from artist_links where job_id = $1', [job.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('art_'.length));
  });

  it('opens only its own job, and no API route', async () => {
    const account = await newAccount();
    const other = await newAccount();
    const first = await executed(account, { title: 'First job' });
    const second = await executed(account, { title: 'Second job' });
    const elsewhere = await executed(other, { title: 'Another account’s job' });
    expect(new Set([first, second, elsewhere].map(({ link }) => tokenOf(link))).size).toBe(3);
    expect(ok(await artistJob(first.link)).title).toBe('First job');
    expect(ok(await artistJob(second.link)).title).toBe('Second job');
    expect(ok(await artistJob(elsewhere.link)).title).toBe('Another account’s job');

    // As a bearer token on the API-key routes (reads and steps of its own job among them), it is no key at all.
    const artistToken = tokenOf(first.link);
    const sample: Array<[string, string, unknown?]> = [
      ['GET', `/job/get?id=${first.job.id}`],
      ['GET', '/job/list'],
      ['PUT', '/job/update', { id: first.job.id, title: 'Taken over' }],
      ['POST', `/job/recording?id=${first.job.id}`, { fileId: 'fil_AAAAAAAAAAAAAAAAAAAAAA' }],
      ['POST', `/job/accept?id=${first.job.id}`],
      ['POST', `/job/cancel?id=${first.job.id}`],
      ['GET', `/notification/get?id=${first.job.notificationId}`],
      ['GET', `/accounts/${account.accountId}/apps`],
      ['GET', `/accounts/${account.accountId}/endpoints`],
      ['GET', '/event-types'],
      ['POST', '/admin/accounts', { name: 'intruder' }],
    ];
    for (const [method, path, body] of sample) {
      const answer = await call(method, path, { token: artistToken, body });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.error.code, `${method} ${path}`).toBe('unauthorized');
    }
    // Nothing changed: the job is as it was, and its link still opens.
    expect(ok(await call('GET', `/job/get?id=${first.job.id}`, { token: account.apiKey }))).toMatchObject({ title: 'First job', status: 'ASSIGNED' });
    ok(await artistJob(first.link));
  });

  it('answers 404 to a token that is no link', async () => {
    for (const token of [`art_${randomBytes(32).toString('base64url')}`, 'art_short', `rpk_${randomBytes(32).toString('base64url')}`]) {
      // The link's route answers (its rate limit counted the request), not the router's "no route".
      const answer = await artistJob(token);
      expect(expectError(answer, 404, 'not_found').message).toBe('Artist link not found');
      expect(answer.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    }
  });

  it('expires at artistDueDate plus the grace (410), and moves with the date', async () => {
    const account = await newAccount();
    const now = Date.now();
    const artistDueDate = now - (graceHours + 1) * hourMs;
    const { job, link } = await executed(account, { artistDueDate, dueDate: now + 24 * hourMs });
    expect(Date.parse(link.expiresAt)).toBe(artistDueDate + graceHours * hourMs);
    expect(Date.parse(link.expiresAt)).toBeLessThan(now);
    expect(expectError(await artistJob(link), 410, 'link_expired').message).toContain(link.expiresAt);

    // The account gives the artist more time: the same link opens again, until the new date plus the grace.
    const later = now + 12 * hourMs;
    const updated = ok(await call('PUT', '/job/update', { token: account.apiKey, body: { id: job.id, artistDueDate: later } }));
    expect(updated.artistLink).toEqual({ url: link.url, expiresAt: new Date(later + graceHours * hourMs).toISOString() });
    expect(ok(await artistJob(link)).artistDueDate).toBe(later);
  });

  it('lasts 14 days when the job has no artistDueDate', async () => {
    const account = await newAccount();
    const before = Date.now();
    const { link } = await executed(account, { artistDueDate: null, dueDate: null });
    const expiresAt = Date.parse(link.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 14 * 24 * hourMs);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 14 * 24 * hourMs);
    expect(ok(await artistJob(link)).linkExpiresAt).toBe(link.expiresAt);
  });

  it('dies when the job is accepted (410), and the job shows no link', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const { job, link } = await executed(account);
    const take = ok(await call('POST', `/job/recording?id=${job.id}`, { token, body: { fileId: (await fileRow(account)).fileId } }), 201);
    expect(take.job.artistLink).toEqual(link);
    ok(await artistJob(link));
    expect(ok(await call('POST', `/richPush/select?file_id=${take.fileId}`, { token })).artistLink).toEqual(link);
    expect(ok(await call('POST', `/job/accept?id=${job.id}`, { token })).artistLink).toBeNull();
    expectError(await artistJob(link), 410, 'link_expired');
    expect(ok(await call('GET', `/job/get?id=${job.id}`, { token })).artistLink).toBeNull();
  });

  it('dies when the job is cancelled (410)', async () => {
    const account = await newAccount();
    const { job, link } = await executed(account);
    expect(ok(await call('POST', `/job/cancel?id=${job.id}`, { token: account.apiKey })).artistLink).toBeNull();
    expectError(await artistJob(link), 410, 'link_expired');
  });

  it('dies when the artist changes (410): the new artist gets a new link, in job.assigned while ASSIGNED', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const endpoint = await newEndpoint(account, ['job.assigned']);
    fixtures.push(endpoint);
    const { job, link } = await executed(account);
    await waitForAssigned(endpoint, job.id, 1);

    // A change that keeps the artist keeps the link.
    expect(ok(await call('PUT', '/job/update', { token, body: { id: job.id, title: 'Retitled', artist: 'artist@example.com' } })).artistLink).toEqual(link);

    const reassigned = ok(await call('PUT', '/job/update', { token, body: { id: job.id, artist: 'second@example.com' } }));
    const second: ArtistLink = reassigned.artistLink;
    expect(second.url).not.toBe(link.url);
    expectError(await artistJob(link), 410, 'link_expired');
    expect(ok(await artistJob(second)).title).toBe('Retitled');
    const events = await waitForAssigned(endpoint, job.id, 2);
    expect(events.find((event) => event.data.result.artist === 'second@example.com')?.data.result).toMatchObject({
      previousArtist: 'artist@example.com',
      artistLink: second,
    });

    // Once a take is in (SUBMITTED), a new artist still gets a link of their own, and the one before dies.
    ok(await call('POST', `/job/recording?id=${job.id}`, { token, body: { fileId: (await fileRow(account)).fileId } }), 201);
    const third: ArtistLink = ok(await call('PUT', '/job/update', { token, body: { id: job.id, artist: 'third@example.com' } })).artistLink;
    expect([link.url, second.url]).not.toContain(third.url);
    expectError(await artistJob(second), 410, 'link_expired');
    ok(await artistJob(third));
    expect(await query('select count(*)::int as live from artist_links where job_id = $1 and revoked_at is null', [job.id])).toEqual([{ live: 1 }]);
  });
});

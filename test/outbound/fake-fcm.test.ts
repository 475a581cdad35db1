import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:http2';
import { get, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { AcceptTally } from '../../src/dev/fake-fcm-tally.ts';
import { quotaExceeded, startFakeFcm, unavailable, unregistered, type FakeFcm, type FakeFcmOptions, type FakeFcmStats } from '../../src/dev/fake-fcm.ts';
import { createFcmPushProvider } from '../../src/outbound/push/fcm-provider.ts';
import type { PushMessage, PushProvider } from '../../src/outbound/push/push-provider.ts';
import { pushTo, writeServiceAccount } from '../support/fcm.ts';
import { until } from '../support/wait.ts';

// The fake FCM is what other black-box tests and the campaign benchmark trust to say what was delivered, so it is
// checked here against the real FCM provider, and its refusals against raw HTTP/1.1 and HTTP/2 requests.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tls = () => ({ cert: inject('receiverCert'), key: inject('receiverKey') });

/**
 * A fake and a throwaway service account whose key file names the fake's token endpoint. The fake verifies grants
 * with the account's public key (unless `options.publicKey` says otherwise), so it is started first and the key file
 * rewritten once the fake's port is known.
 */
async function fakeWithAccount(options: Partial<FakeFcmOptions> = {}): Promise<{ fake: FakeFcm; serviceAccountFile: string }> {
  const account = await writeServiceAccount();
  cleanups.push(() => account.remove());
  const fake = await startFakeFcm({ ...tls(), publicKey: account.publicKey, ...options });
  cleanups.push(() => fake.close());
  const serviceAccountFile = await account.writeVariant('pointed-at-fake.json', JSON.stringify({ ...account.json, token_uri: fake.tokenUri }));
  return { fake, serviceAccountFile };
}

function provider(baseUrl: string, serviceAccountFile: string, concurrency = 4): PushProvider {
  const created = createFcmPushProvider({ serviceAccountFile, baseUrl, concurrency, logger: pino({ level: 'silent' }), ca: inject('receiverCert') });
  cleanups.push(() => created.close());
  return created;
}

const message = (token: string, sendId?: string): PushMessage => pushTo(token, sendId ? { sendId } : {});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP/1.1 POST, past the provider, to see what the fake refuses. */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca: inject('receiverCert'), agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { ca: inject('receiverCert'), agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    }).once('error', reject);
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A well-formed but unsigned RS256 JWT: enough for a fake that was given no public key. */
const unsignedJwt = `${Buffer.from('{"alg":"RS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2lnbmF0dXJl`;

/** The windows' answers counted the slow way: for each accept, the accepts in [its time, its time + windowMs). */
function bruteMaxInWindow(times: ArrayLike<number>, windowMs: number): number {
  const all = Array.from(times);
  return Math.max(0, ...all.map((start) => all.filter((time) => time >= start && time < start + windowMs).length));
}

describe('the fake FCM’s count of accepts', () => {
  it('finds the most accepts in any half-open window, whatever order they were recorded in', () => {
    const arrivals = [0, 100, 200, 999, 1000, 1000, 1500, 2500];
    const inOrder = new AcceptTally();
    const shuffled = new AcceptTally();
    for (const time of arrivals) inOrder.record('device', time);
    for (const time of [1500, 0, 2500, 1000, 200, 999, 100, 1000]) shuffled.record('device', time);

    // Half-open: [0, 1000) leaves the two at 1000 out (a closed [0, 1000] would hold 6); [100, 1100) holds 5.
    const expected: Array<[number, number]> = [[0, 0], [1, 2], [999, 5], [1000, 5], [1400, 6], [1500, 6], [2500, 7], [2501, 8]];
    for (const [windowMs, most] of expected) {
      expect([windowMs, inOrder.maxInWindow(windowMs)]).toEqual([windowMs, most]);
      expect([windowMs, shuffled.maxInWindow(windowMs)]).toEqual([windowMs, most]);
      expect(most).toBe(bruteMaxInWindow(arrivals, windowMs));
    }
    expect([shuffled.firstAt, shuffled.lastAt, shuffled.duplicates, shuffled.countFor('device')]).toEqual([0, 2500, 7, 8]);
  });

  it('wakes a waiter on the accept it waits for, and a cancelled one never', () => {
    const tally = new AcceptTally();
    const woken: string[] = [];
    tally.whenAccepted(2, () => woken.push('two'));
    const cancel = tally.whenAccepted(1, () => woken.push('cancelled'));
    tally.whenAccepted(0, () => woken.push('zero'));
    cancel();
    tally.record('a', 1);
    expect(woken).toEqual(['zero']);
    tally.record('b', 2);
    expect(woken).toEqual(['zero', 'two']);
    tally.record('c', 3);
    expect(woken).toEqual(['zero', 'two']);
  });
});

describe('the fake FCM, driven by the real FCM provider', () => {
  it('grants one token for every batch, accepts each message once and counts it for its device token', async () => {
    const { fake, serviceAccountFile } = await fakeWithAccount({ keepBodies: true });
    const fcm = provider(fake.baseUrl, serviceAccountFile);
    const messages = Array.from({ length: 12 }, (_, index) => message(`device-${index % 4}`, `send-${index}`));

    const allAccepted = fake.waitForAccepted(12, 10_000);
    const results = await fcm.sendBatch(messages);
    await allAccepted;

    expect(results.map((result) => result.outcome)).toEqual(Array(12).fill('sent'));
    const names = results.map((result) => result.providerMessageId);
    expect(new Set(names).size).toBe(12);
    for (const name of names) expect(name).toMatch(/^projects\/richpush-test\/messages\/\d+$/);
    expect(fake.accepted()).toBe(12);
    expect(fake.received()).toBe(12);
    for (const device of [0, 1, 2, 3]) expect(fake.countFor(`device-${device}`)).toBe(3);
    expect(fake.countFor('device-4')).toBe(0);
    expect(fake.duplicates()).toBe(8);
    expect(fake.acceptedTokens()).toEqual(new Set(['device-0', 'device-1', 'device-2', 'device-3']));

    // The bodies are the provider's messages, each with its own token and sendId.
    const kept = fake.bodies();
    expect(kept.map((send) => send.index).sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
    expect(kept.map((send) => send.message.data?.sendId).sort()).toEqual(messages.map((sent) => sent.sendId).sort());
    for (const send of kept) {
      expect(send.message.token).toBe(send.token);
      expect(send.message.notification).toEqual({ title: 'Hello', body: 'Tap to listen' });
      expect(send.token).toBe(`device-${Number(send.message.data?.sendId?.slice('send-'.length)) % 4}`);
    }

    await fcm.sendBatch([message('device-4'), message('device-5')]);
    expect(fake.tokenRequests()).toBe(1);
    expect(fake.accepted()).toBe(14);
    expect(fake.duplicates()).toBe(8);
    const times = fake.acceptTimes();
    expect(times).toHaveLength(14);
    expect(fake.firstAcceptAt()).toBe(Math.min(...times));
    expect(fake.lastAcceptAt()).toBe(Math.max(...times));
    expect(fake.stats()).toMatchObject<Partial<FakeFcmStats>>({ accepted: 14, received: 14, duplicates: 8, distinctTokens: 6, tokenRequests: 1 });

    await expect(fake.waitForAccepted(15, 200)).rejects.toThrow('timed out after 200 ms waiting for 15 sends accepted by the fake FCM; 14 accepted of 14 received');
  });

  it('answers as scripted: UNREGISTERED, a quota with Retry-After, and UNAVAILABLE are not accepted', async () => {
    const { fake, serviceAccountFile } = await fakeWithAccount();
    const scripted = { gone: unregistered(), busy: quotaExceeded(7), down: unavailable() };
    fake.answer((send) => scripted[send.token as keyof typeof scripted]);
    const fcm = provider(fake.baseUrl, serviceAccountFile);

    const results = await fcm.sendBatch(['fine', 'gone', 'busy', 'down'].map((token) => message(token)));

    expect(results).toEqual([
      { sendId: 'send-fine', outcome: 'sent', providerMessageId: expect.stringMatching(/^projects\/richpush-test\/messages\/\d+$/) },
      { sendId: 'send-gone', outcome: 'unregistered', error: 'FCM answered HTTP 404 NOT_FOUND (UNREGISTERED): Requested entity was not found.' },
      { sendId: 'send-busy', outcome: 'retry', retryAfterMs: 7000, error: expect.stringMatching(/^FCM answered HTTP 429 RESOURCE_EXHAUSTED \(QUOTA_EXCEEDED\): /) },
      { sendId: 'send-down', outcome: 'retry', error: 'FCM answered HTTP 503 UNAVAILABLE: The service is currently unavailable.' },
    ]);
    expect(fake.received()).toBe(4);
    expect(fake.accepted()).toBe(1);
    expect(fake.acceptedTokens()).toEqual(new Set(['fine']));
    expect(fake.countFor('gone')).toBe(0);

    fake.answer(undefined);
    expect((await fcm.sendBatch([message('gone')]))[0]?.outcome).toBe('sent');
    expect(fake.countFor('gone')).toBe(1);
  });

  it('delays answers as told, and dates each accept by its arrival even when a later send is answered first', async () => {
    const { fake, serviceAccountFile } = await fakeWithAccount({ delayMs: 150 });
    // Long enough for the quick sends to be answered first even on a loaded machine.
    fake.answer((send) => (send.token === 'slow' ? { status: 200, delayMs: 2500 } : undefined));
    const fcm = provider(fake.baseUrl, serviceAccountFile);

    const slow = fcm.sendBatch([message('slow')]);
    await until('the slow send at the fake', () => fake.received() === 1, { timeoutMs: 5000, intervalMs: 10 });
    const started = performance.now();
    expect((await fcm.sendBatch([message('quick-1'), message('quick-2')])).map((result) => result.outcome)).toEqual(['sent', 'sent']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(fake.accepted()).toBe(2);
    expect((await slow)[0]?.outcome).toBe('sent');

    // Accepted quick, quick, slow; the slow one arrived first.
    const times = fake.acceptTimes();
    expect(times).toHaveLength(3);
    expect(times[2]).toBeLessThan(times[0]!);
    expect(fake.firstAcceptAt()).toBe(times[2]);
    for (const windowMs of [0, 1, 5, 50, 500, 5000]) expect(fake.maxInWindow(windowMs)).toBe(bruteMaxInWindow(times, windowMs));
    expect(fake.maxInWindow(60_000)).toBe(3);
  });

  it('refuses a grant the service account did not sign, and sends nothing then', async () => {
    const stranger = await writeServiceAccount();
    cleanups.push(() => stranger.remove());
    const { fake, serviceAccountFile } = await fakeWithAccount({ publicKey: stranger.publicKey });

    const results = await provider(fake.baseUrl, serviceAccountFile).sendBatch([message('device-1')]);

    expect(results).toEqual([{ sendId: 'send-device-1', outcome: 'failed', error: expect.stringContaining('answered HTTP 400: invalid_grant: Invalid JWT Signature.') }]);
    expect(fake.tokenRequests()).toBeGreaterThanOrEqual(1);
    expect(fake.received()).toBe(0);
  });
});

describe('the fake FCM, driven by raw requests', () => {
  async function fakeAndToken(): Promise<{ fake: FakeFcm; bearer: string; sendUrl: string }> {
    const fake = await startFakeFcm(tls());
    cleanups.push(() => fake.close());
    const granted = await rawPost(fake.tokenUri, formHeaders, form({ grant_type: jwtBearer, assertion: unsignedJwt }));
    expect(granted.status).toBe(200);
    const { access_token: accessToken, expires_in: expiresIn, token_type: tokenType } = JSON.parse(granted.body) as Record<string, unknown>;
    expect({ accessToken, expiresIn, tokenType }).toEqual({ accessToken: 'ya29.fake-1', expiresIn: 3600, tokenType: 'Bearer' });
    return { fake, bearer: `Bearer ${String(accessToken)}`, sendUrl: `${fake.baseUrl}/v1/projects/richpush-test/messages:send` };
  }

  it('answers FCM’s errors for a missing or unknown bearer, another project, and a body without a token', async () => {
    const { fake, bearer, sendUrl } = await fakeAndToken();
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ message: { token: 'device-1' } });

    const anonymous = await rawPost(sendUrl, json, body);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(anonymous.body)).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.stringContaining('invalid authentication credentials'), details: [] } });
    expect((await rawPost(sendUrl, { ...json, authorization: 'Bearer ya29.made-up' }, body)).status).toBe(401);

    const elsewhere = await rawPost(sendUrl.replace('richpush-test', 'someone-else'), { ...json, authorization: bearer }, body);
    expect(elsewhere.status).toBe(403);
    expect(JSON.parse(elsewhere.body)).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });

    for (const invalid of ['{"message":', JSON.stringify({ message: { topic: 'news' } }), 'null']) {
      const refused = await rawPost(sendUrl, { ...json, authorization: bearer }, invalid);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    }

    const accepted = await rawPost(sendUrl, { ...json, authorization: bearer }, body);
    expect(accepted.status).toBe(200);
    expect(JSON.parse(accepted.body)).toEqual({ name: expect.stringMatching(/^projects\/richpush-test\/messages\/\d+$/) });
    expect(fake.received()).toBe(7);
    expect(fake.accepted()).toBe(1);
    expect(fake.countFor('device-1')).toBe(1);
  });

  it('refuses a grant of another type, or without a JWT', async () => {
    const fake = await startFakeFcm(tls());
    cleanups.push(() => fake.close());
    const refusals = await Promise.all([
      rawPost(fake.tokenUri, formHeaders, form({ grant_type: 'client_credentials', assertion: unsignedJwt })),
      rawPost(fake.tokenUri, formHeaders, form({ assertion: unsignedJwt })),
      rawPost(fake.tokenUri, formHeaders, form({ grant_type: jwtBearer, assertion: '' })),
      rawPost(fake.tokenUri, formHeaders, form({ grant_type: jwtBearer, assertion: 'not-a-jwt' })),
    ]);
    expect(refusals.map((refusal) => [refusal.status, (JSON.parse(refusal.body) as { error: string }).error])).toEqual([
      [400, 'unsupported_grant_type'],
      [400, 'unsupported_grant_type'],
      [400, 'invalid_grant'],
      [400, 'invalid_grant'],
    ]);
    expect(fake.tokenRequests()).toBe(4);
  });

  it('speaks HTTP/2 too', async () => {
    const { fake, bearer } = await fakeAndToken();
    const session = connect(fake.baseUrl, { ca: inject('receiverCert') });
    cleanups.push(async () => session.close());
    const stream = session.request({ ':method': 'POST', ':path': '/v1/projects/richpush-test/messages:send', 'content-type': 'application/json', authorization: bearer });
    stream.end(JSON.stringify({ message: { token: 'device-h2' } }));
    const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    await once(stream, 'end');
    expect(headers[':status']).toBe(200);
    expect(JSON.parse(body)).toEqual({ name: expect.stringMatching(/^projects\/richpush-test\/messages\/\d+$/) });
    expect(fake.countFor('device-h2')).toBe(1);
  });
});

describe('the fake FCM in a process of its own', () => {
  it('prints its base URL, serves the provider, and reports and resets its counts on /_stats and /_reset', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'rp-fake-fcm-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    await writeFile(join(folder, 'cert.pem'), inject('receiverCert'));
    await writeFile(join(folder, 'key.pem'), inject('receiverKey'), { mode: 0o600 });
    const entry = fileURLToPath(new URL('../../src/dev/fake-fcm-process.ts', import.meta.url));
    const child = spawn(process.execPath, [entry, '--cert-file', join(folder, 'cert.pem'), '--key-file', join(folder, 'key.pem'), '--delay-ms', '100'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    });
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { baseUrl, tokenUri } = JSON.parse(line) as { baseUrl: string; tokenUri: string };
    expect(tokenUri).toBe(`${baseUrl}/token`);

    const account = await writeServiceAccount({ token_uri: tokenUri });
    cleanups.push(() => account.remove());
    const started = performance.now();
    const results = await provider(baseUrl, account.file).sendBatch([message('device-1'), message('device-2'), message('device-1', 'again')]);
    expect(results.map((result) => result.outcome)).toEqual(['sent', 'sent', 'sent']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);

    const stats = async () => JSON.parse(await getText(`${baseUrl}/_stats`)) as FakeFcmStats;
    expect(await stats()).toMatchObject({ accepted: 3, received: 3, duplicates: 1, distinctTokens: 2, tokenRequests: 1, maxPerMinute: 3 });
    expect((await rawPost(`${baseUrl}/_reset`, {}, '')).status).toBe(204);
    expect(await stats()).toEqual({ accepted: 0, received: 0, duplicates: 0, distinctTokens: 0, tokenRequests: 0, maxPerSecond: 0, maxPerMinute: 0 });

    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });
});

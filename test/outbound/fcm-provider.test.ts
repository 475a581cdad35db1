import { verify } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFcmPushProvider, type FcmProviderOptions } from '../../src/outbound/push/fcm-provider.ts';
import { fcmScope } from '../../src/outbound/push/fcm-message.ts';
import type { PushMessage, PushProvider } from '../../src/outbound/push/push-provider.ts';
import { googleTokenUri } from '../../src/outbound/push/service-account.ts';
import { originOf } from '../support/providers.ts';
import { startReceiver, type ReceivedRequest, type Reply, type TestReceiver } from '../support/receiver.ts';
import { fcmErrorBody, pushTo, writeServiceAccount, type TestServiceAccount } from '../support/fcm.ts';

// The FCM provider against local HTTPS fakes of Google's token endpoint and FCM's send endpoint, both serving the
// run's test certificate. The service account is a throwaway key whose token_uri names the fake token endpoint.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const json = (status: number, body: unknown): Reply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const fcmError = (status: number, code: string, message: string, errorCode?: string): Reply => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: fcmErrorBody(status, code, message, errorCode),
});

/** FCM's answer for each device token the tests use. */
const answers: Record<string, Reply> = {
  'token-ok': json(200, { name: 'projects/richpush-test/messages/0:1' }),
  'token-ok-2': json(200, { name: 'projects/richpush-test/messages/0:2' }),
  'token-unregistered': fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'),
  'token-404': { status: 404 },
  'token-invalid': fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT'),
  'token-throttled': { ...fcmError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.', 'QUOTA_EXCEEDED'), headers: { 'content-type': 'application/json', 'retry-after': '7' } },
  'token-internal': fcmError(500, 'INTERNAL', 'Internal error.', 'INTERNAL'),
  'token-denied': fcmError(403, 'PERMISSION_DENIED', 'Permission denied.'),
  'token-slow': { ...json(200, { name: 'projects/richpush-test/messages/late' }), delayMs: 60_000 },
};

interface Fakes {
  /** Token endpoint and FCM on one server: /token and /v1/projects/…/messages:send. */
  server: TestReceiver;
  account: TestServiceAccount;
  tokenRequests(): ReceivedRequest[];
  sendRequests(): ReceivedRequest[];
}

let issued = 0;
async function startFakes(options: { token?: Reply; sendDelayMs?: number } = {}): Promise<Fakes> {
  const server = await startReceiver((request) => {
    if (request.path === '/token') return options.token ?? json(200, { access_token: `ya29.fake-${++issued}`, expires_in: 3600, token_type: 'Bearer' });
    const token = (JSON.parse(request.body) as { message: { token: string } }).message.token;
    const reply = answers[token] ?? { status: 500, body: `the test has no answer for ${token}` };
    return options.sendDelayMs && reply.delayMs === undefined ? { ...reply, delayMs: options.sendDelayMs } : reply;
  });
  cleanups.push(() => server.close());
  const account = await writeServiceAccount({ token_uri: `${originOf(server.url)}/token` });
  cleanups.push(() => account.remove());
  return {
    server,
    account,
    tokenRequests: () => server.requests.filter((request) => request.path === '/token'),
    sendRequests: () => server.requests.filter((request) => request.path !== '/token'),
  };
}

function provider(fakes: Fakes, options: Partial<FcmProviderOptions> = {}): PushProvider {
  const created = createFcmPushProvider({
    serviceAccountFile: fakes.account.file,
    baseUrl: originOf(fakes.server.url),
    concurrency: 4,
    logger: pino({ level: 'silent' }),
    ca: inject('receiverCert'),
    ...options,
  });
  cleanups.push(() => created.close());
  return created;
}

const message = (token: string, sendId?: string): PushMessage => pushTo(token, { ...(sendId ? { sendId } : {}), data: { abTestId: 'ab-1' } });

/** The claims of a JWT grant, once its RS256 signature checks out with the service account's public key. */
function verifiedClaims(assertion: string, publicKey: string): Record<string, unknown> {
  const [header, payload, signature] = assertion.split('.') as [string, string, string];
  expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'RS256' });
  expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
  return JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
}

describe('the FCM push provider against local fakes of the token endpoint and FCM', () => {
  it('gets a token with a JWT grant at the key file’s token_uri, then sends each message with it', async () => {
    const fakes = await startFakes();
    const fcm = provider(fakes);

    const results = await fcm.sendBatch([message('token-ok'), message('token-ok-2')]);

    expect(results).toEqual([
      { sendId: 'send-token-ok', outcome: 'sent', providerMessageId: 'projects/richpush-test/messages/0:1' },
      { sendId: 'send-token-ok-2', outcome: 'sent', providerMessageId: 'projects/richpush-test/messages/0:2' },
    ]);

    const [grant, ...moreGrants] = fakes.tokenRequests();
    expect(moreGrants).toEqual([]);
    expect(grant!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(grant!.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const claims = verifiedClaims(form.get('assertion') ?? '', fakes.account.publicKey);
    expect(claims).toMatchObject({ iss: 'push-sender@richpush-test.iam.gserviceaccount.com', scope: fcmScope, aud: googleTokenUri });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    const sends = fakes.sendRequests();
    expect(sends).toHaveLength(2);
    const issuedToken = sends[0]!.headers.authorization;
    expect(issuedToken).toMatch(/^Bearer ya29\.fake-\d+$/);
    for (const send of sends) {
      expect(send.path).toBe('/v1/projects/richpush-test/messages:send');
      expect(send.headers.authorization).toBe(issuedToken);
      expect(send.headers['content-type']).toBe('application/json');
      expect(send.headers['user-agent']).toBe('richpush-push/1');
    }
    const bodies = sends.map((send) => JSON.parse(send.body) as { message: { token: string; data: Record<string, string> } });
    expect(bodies.map((body) => body.message.token).sort()).toEqual(['token-ok', 'token-ok-2']);
    for (const body of bodies) {
      expect(body.message.data).toMatchObject({ sendId: `send-${body.message.token}`, notificationId: 'n-1', abTestId: 'ab-1' });
    }
  });

  it('keeps the token for the next batch', async () => {
    const fakes = await startFakes();
    const fcm = provider(fakes);
    await fcm.sendBatch([message('token-ok')]);
    await fcm.sendBatch([message('token-ok-2')]);
    expect(fakes.tokenRequests()).toHaveLength(1);
    expect(fakes.sendRequests()).toHaveLength(2);
  });

  it('maps each answer to its outcome, in the messages’ order', async () => {
    const fakes = await startFakes();
    const results = await provider(fakes).sendBatch(
      ['token-ok', 'token-unregistered', 'token-404', 'token-invalid', 'token-throttled', 'token-internal', 'token-denied'].map((token) => message(token)),
    );
    expect(results).toEqual([
      { sendId: 'send-token-ok', outcome: 'sent', providerMessageId: 'projects/richpush-test/messages/0:1' },
      { sendId: 'send-token-unregistered', outcome: 'unregistered', error: 'FCM answered HTTP 404 NOT_FOUND (UNREGISTERED): Requested entity was not found.' },
      { sendId: 'send-token-404', outcome: 'unregistered', error: 'FCM answered HTTP 404' },
      { sendId: 'send-token-invalid', outcome: 'failed', error: 'FCM answered HTTP 400 INVALID_ARGUMENT: The registration token is not a valid FCM registration token' },
      { sendId: 'send-token-throttled', outcome: 'retry', retryAfterMs: 7000, error: 'FCM answered HTTP 429 RESOURCE_EXHAUSTED (QUOTA_EXCEEDED): Quota exceeded.' },
      { sendId: 'send-token-internal', outcome: 'retry', error: 'FCM answered HTTP 500 INTERNAL: Internal error.' },
      { sendId: 'send-token-denied', outcome: 'failed', error: expect.stringMatching(/^FCM answered HTTP 403 PERMISSION_DENIED: Permission denied\. \(a configuration problem: check FCM_SERVICE_ACCOUNT_FILE/) },
    ]);
    expect(fakes.sendRequests()).toHaveLength(7);
  });

  it('has at most FCM_CONCURRENCY requests in flight, and uses them', async () => {
    const delayMs = 300;
    const fakes = await startFakes({ sendDelayMs: delayMs });
    const results = await provider(fakes, { concurrency: 3 }).sendBatch(Array.from({ length: 7 }, (_, index) => message(index % 2 ? 'token-ok' : 'token-ok-2', `send-${index}`)));
    expect(results.map((result) => result.outcome)).toEqual(Array(7).fill('sent'));
    expect(results.map((result) => result.sendId)).toEqual(Array.from({ length: 7 }, (_, index) => `send-${index}`));

    // The fake answers each request `delayMs` after it arrived, so a request is open over [arrival, arrival + delayMs).
    // A fourth request can start only after one of three open ones was answered; the margin absorbs clock rounding.
    const arrivals = fakes.sendRequests().map((request) => request.receivedAt);
    const openAt = (time: number) => arrivals.filter((arrival) => arrival <= time && time < arrival + delayMs - 50).length;
    const mostOpen = Math.max(...arrivals.map(openAt));
    expect(mostOpen).toBe(3);
  });

  it('keeps a connection for each request of the batches it has in flight side by side (the shards of a send)', async () => {
    const delayMs = 300;
    const fakes = await startFakes({ sendDelayMs: delayMs });
    const push = provider(fakes, { concurrency: 3, connections: 6 });
    const batch = (shard: number) => push.sendBatch(Array.from({ length: 3 }, (_, index) => message('token-ok', `send-${shard}-${index}`)));
    const results = (await Promise.all([batch(0), batch(1)])).flat();
    expect(results.map((result) => result.outcome)).toEqual(Array(6).fill('sent'));
    // Both batches on the wire at once: the six requests arrived within one answer's delay of each other.
    const arrivals = fakes.sendRequests().map((request) => request.receivedAt);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(delayMs - 50);
  });

  it('sends nothing when the token endpoint refuses the service account, and calls it a configuration problem', async () => {
    const fakes = await startFakes({ token: json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }) });
    const results = await provider(fakes).sendBatch([message('token-ok'), message('token-ok-2')]);
    const error = `the FCM token endpoint (${originOf(fakes.server.url)}/token) answered HTTP 400: invalid_grant: Invalid JWT Signature. (a configuration problem: check FCM_SERVICE_ACCOUNT_FILE)`;
    expect(results).toEqual([
      { sendId: 'send-token-ok', outcome: 'failed', error },
      { sendId: 'send-token-ok-2', outcome: 'failed', error },
    ]);
    expect(fakes.sendRequests()).toEqual([]);
    expect(JSON.stringify(results)).not.toContain('PRIVATE KEY');
  });

  it('returns retry for what never reached FCM (a closed port, a message not yet sent when the batch was aborted), unconfirmed for one aborted in flight', async () => {
    const fakes = await startFakes();
    const closed = await startReceiver();
    await closed.close();
    const refused = await provider(fakes, { baseUrl: originOf(closed.url) }).sendBatch([message('token-ok')]);
    expect(refused).toEqual([{ sendId: 'send-token-ok', outcome: 'retry', error: expect.stringMatching(/^FCM request failed: .*ECONNREFUSED/) }]);

    const controller = new AbortController();
    const fcm = provider(fakes, { concurrency: 1 });
    const before = fakes.server.requests.length;
    const sending = fcm.sendBatch([message('token-slow'), message('token-ok')], controller.signal);
    // A new provider asks for its own token, then sends the first message (one at a time).
    await fakes.server.waitForRequests(before + 2);
    expect(fakes.sendRequests().at(-1)?.body).toContain('token-slow');
    controller.abort();
    expect(await sending).toEqual([
      { sendId: 'send-token-slow', outcome: 'unconfirmed', error: expect.stringMatching(/^FCM request failed after it was sent, so it is not sent again: aborted/) },
      { sendId: 'send-token-ok', outcome: 'retry', error: 'not sent: the batch was aborted' },
    ]);
    expect(fakes.sendRequests().filter((request) => request.body.includes('"token-ok"'))).toEqual([]);
  });
});

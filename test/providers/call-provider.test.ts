import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { callProvider, type ProviderCall, type ProviderCallVerdict } from '../../src/domain/providers/call-provider.ts';
import { createOutboundHttpClient, type OutboundHttpClient } from '../../src/outbound/http-client.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { parseAllowCidrs } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { newConnection } from '../support/ingest.ts';
import { ok } from '../support/http-assertions.ts';
import { connectionPath, newProviderConnection, originOf } from '../support/providers.ts';
import { startReceiver, type Reply, type TestReceiver } from '../support/receiver.ts';

// callProvider with real parts: the run's database, a real outbound client trusting the test CA, and a local HTTPS
// server answering as Segment's tracking API would. The connections are set up through the API, as an account would.

let orm: Orm;
let http: OutboundHttpClient;
const secrets = createSecretBox(inject('secretsKey'));
const outboundClient = (timeoutMs: number) => createOutboundHttpClient({ allow: parseAllowCidrs('127.0.0.0/8,::1/128'), timeoutMs, ca: inject('receiverCert') });

beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
  http = outboundClient(5000);
});
afterAll(async () => {
  http.close();
  await orm.close();
});

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
async function segmentApi(reply: Reply = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"success":true}' }): Promise<TestReceiver> {
  const receiver = await startReceiver(() => reply);
  receivers.push(receiver);
  return receiver;
}

const newWriteKey = () => `wk_${randomBytes(12).toString('hex')}`;
let sequence = 0;
const trackCall = (account: TestAccount, connectionId: string, overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  accountId: account.accountId,
  connectionId,
  call: 'track',
  event: 'Order Completed',
  properties: { orderId: 'o-17', total: 42.5, items: [{ sku: 'a' }] },
  userId: 'user-17',
  messageId: `run-1:node-${++sequence}`,
  timestamp: '2026-11-23T10:00:00.000Z',
  ...overrides,
});
const send = (input: ProviderCall, client = http) => callProvider({ em: orm.em.fork(), http: client, secrets }, input);
const readConnection = async (account: TestAccount, connectionId: string) => ok(await call('GET', connectionPath(account, connectionId), { token: account.apiKey }));

describe('callProvider against a Segment-compatible API', () => {
  it('POSTs a track call to <outboundUrl>/v1/track with the write key as Basic user, and moves lastOutboundAt', async () => {
    const account = await newAccount();
    const api = await segmentApi();
    const writeKey = newWriteKey();
    const connection = await newProviderConnection(account, { writeKey, outboundUrl: originOf(api.url) });
    expect((await readConnection(account, connection.connectionId)).lastOutboundAt).toBeNull();

    const before = Date.now();
    const input = trackCall(account, connection.connectionId);
    expect(await send(input)).toEqual({ kind: 'sent', status: 200 });
    const after = Date.now();

    const [request] = await api.waitForRequests(1);
    expect(request!.path).toBe('/v1/track');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`);
    expect(JSON.parse(request!.body)).toEqual({
      userId: 'user-17',
      event: 'Order Completed',
      properties: { orderId: 'o-17', total: 42.5, items: [{ sku: 'a' }] },
      timestamp: '2026-11-23T10:00:00.000Z',
      messageId: input.messageId,
      context: { library: { name: 'richpush', version: packageJson.version } },
    });

    const read = await readConnection(account, connection.connectionId);
    expect(Date.parse(read.lastOutboundAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(read.lastOutboundAt)).toBeLessThanOrEqual(after);
    expect(JSON.stringify(read)).not.toContain(writeKey);
  });

  it('sends an identify call with traits for an anonymous visitor, and the same messageId on a retry', async () => {
    const account = await newAccount();
    const api = await segmentApi();
    const writeKey = newWriteKey();
    const connection = await newProviderConnection(account, { writeKey, outboundUrl: originOf(api.url) });
    const input = trackCall(account, connection.connectionId, {
      call: 'identify',
      event: undefined,
      properties: { plan: 'pro', email: 'ada@example.com' },
      userId: undefined,
      anonymousId: 'anon-3',
      timestamp: new Date('2026-11-23T11:30:00+01:00'),
    });
    expect(await send(input)).toEqual({ kind: 'sent', status: 200 });
    expect(await send(input)).toEqual({ kind: 'sent', status: 200 });

    const [first, second] = await api.waitForRequests(2);
    expect(first!.path).toBe('/v1/identify');
    expect(JSON.parse(first!.body)).toEqual({
      anonymousId: 'anon-3',
      traits: { plan: 'pro', email: 'ada@example.com' },
      timestamp: '2026-11-23T10:30:00.000Z',
      messageId: input.messageId,
      context: { library: { name: 'richpush', version: packageJson.version } },
    });
    // The provider drops the second as a duplicate: the body, messageId included, is the same.
    expect(second!.body).toBe(first!.body);
  });

  it('calls a RudderStack data plane at its URL, path prefix included', async () => {
    const account = await newAccount();
    const api = await segmentApi();
    const writeKey = newWriteKey();
    const connection = await newProviderConnection(account, { provider: 'rudderstack', writeKey, outboundUrl: `${originOf(api.url)}/dataplane/` });
    expect(await send(trackCall(account, connection.connectionId))).toEqual({ kind: 'sent', status: 200 });
    const [request] = await api.waitForRequests(1);
    expect(request!.path).toBe('/dataplane/v1/track');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`);
  });

  it('returns rejected, final, for a 400, with the provider’s answer but never the write key', async () => {
    const account = await newAccount();
    const writeKey = newWriteKey();
    // An answer that echoes the credentials must not carry them into the reason the experience run records.
    const api = await segmentApi({ status: 400, body: `{"error":"invalid event","writeKey":"${writeKey}","auth":"${Buffer.from(`${writeKey}:`).toString('base64')}"}` });
    const connection = await newProviderConnection(account, { writeKey, outboundUrl: originOf(api.url) });

    const verdict = await send(trackCall(account, connection.connectionId));
    expect(verdict).toEqual({ kind: 'rejected', status: 400, reason: expect.stringMatching(/^HTTP 400 from segment: \{"error":"invalid event"/) });
    expect(JSON.stringify(verdict)).not.toContain(writeKey);
    expect(JSON.stringify(verdict)).not.toContain(Buffer.from(`${writeKey}:`).toString('base64'));
    expect((verdict as { reason: string }).reason).toContain('[redacted]');
    // A failed call is a call too.
    expect((await readConnection(account, connection.connectionId)).lastOutboundAt).not.toBeNull();
  });

  it.each<[string, Reply, ProviderCallVerdict]>([
    ['a 500', { status: 500, body: 'oops' }, { kind: 'retry', status: 500, reason: 'HTTP 500 from segment: oops' }],
    ['a 429 with Retry-After seconds', { status: 429, headers: { 'retry-after': '7' } }, { kind: 'retry', status: 429, afterMs: 7000, reason: 'HTTP 429 from segment' }],
    ['a 429 without Retry-After', { status: 429 }, { kind: 'retry', status: 429, reason: 'HTTP 429 from segment' }],
    ['a 503 with Retry-After', { status: 503, headers: { 'retry-after': '30' } }, { kind: 'retry', status: 503, afterMs: 30_000, reason: 'HTTP 503 from segment' }],
    ['a 408', { status: 408 }, { kind: 'retry', status: 408, reason: 'HTTP 408 from segment' }],
    ['a 401 (wrong write key)', { status: 401, body: 'unauthorized' }, { kind: 'rejected', status: 401, reason: 'HTTP 401 from segment: unauthorized' }],
    ['a redirect, never followed', { status: 301, headers: { location: 'https://example.com/' } }, { kind: 'rejected', status: 301, reason: 'HTTP 301 from segment' }],
  ])('classifies %s', async (_name, reply, expected) => {
    const account = await newAccount();
    const api = await segmentApi(reply);
    const connection = await newProviderConnection(account, { writeKey: newWriteKey(), outboundUrl: originOf(api.url) });
    expect(await send(trackCall(account, connection.connectionId))).toEqual(expected);
    expect(api.requests).toHaveLength(1);
  });

  it('returns retry when the provider cannot be reached or does not answer in time', async () => {
    const account = await newAccount();
    const closed = await startReceiver();
    await closed.close();
    const refused = await newProviderConnection(account, { writeKey: newWriteKey(), outboundUrl: originOf(closed.url) });
    expect(await send(trackCall(account, refused.connectionId))).toEqual({ kind: 'retry', reason: expect.stringMatching(/ECONNREFUSED/) });
    expect((await readConnection(account, refused.connectionId)).lastOutboundAt).not.toBeNull();

    const slow = await segmentApi({ status: 200, delayMs: 60_000 });
    const late = await newProviderConnection(account, { writeKey: newWriteKey(), outboundUrl: originOf(slow.url) });
    const impatient = outboundClient(300);
    try {
      expect(await send(trackCall(account, late.connectionId), impatient)).toEqual({ kind: 'retry', reason: 'timed out after 300 ms' });
    } finally {
      impatient.close();
    }
  });
});

describe('callProvider refuses, without a request, what it cannot call', () => {
  it.each<[string, (account: TestAccount, url: string) => Promise<string>, RegExp]>([
    ['a connection without a write key', async (account, url) => (await newProviderConnection(account, { outboundUrl: url })).connectionId, /no outboundCredential/],
    ['a rudderstack connection without a data plane URL', async (account) => (await newProviderConnection(account, { provider: 'rudderstack', writeKey: 'wk' })).connectionId, /no outboundUrl/],
    ['a webhook connection', async (account) => (await newConnection(account, { provider: 'webhook' })).connectionId, /webhook connection has no provider API/],
    [
      'a paused connection',
      async (account, url) => {
        const connection = await newProviderConnection(account, { writeKey: 'wk', outboundUrl: url });
        ok(await call('PATCH', connectionPath(account, connection.connectionId), { token: account.apiKey, body: { status: 'paused' } }));
        return connection.connectionId;
      },
      /paused/,
    ],
    [
      'a deleted connection',
      async (account, url) => {
        const connection = await newProviderConnection(account, { writeKey: 'wk', outboundUrl: url });
        expect((await call('DELETE', connectionPath(account, connection.connectionId), { token: account.apiKey })).status).toBe(204);
        return connection.connectionId;
      },
      /not found/,
    ],
    ['another account’s connection', async (_account, url) => (await newProviderConnection(await newAccount(), { writeKey: 'wk', outboundUrl: url })).connectionId, /not found/],
  ])('%s', async (_name, setUp, reason) => {
    const account = await newAccount();
    const api = await segmentApi();
    const connectionId = await setUp(account, originOf(api.url));
    expect(await send(trackCall(account, connectionId))).toEqual({ kind: 'rejected', reason: expect.stringMatching(reason) });
    expect(api.requests).toHaveLength(0);
  });

  it.each<[string, Partial<ProviderCall>, RegExp]>([
    ['a call with neither userId nor anonymousId', { userId: undefined }, /userId or an anonymousId/],
    ['a track call without an event', { event: undefined }, /event name/],
    ['a timestamp that is not a date', { timestamp: 'yesterday-ish' }, /timestamp/],
  ])('%s', async (_name, overrides, reason) => {
    const account = await newAccount();
    const api = await segmentApi();
    const connection = await newProviderConnection(account, { writeKey: 'wk', outboundUrl: originOf(api.url) });
    expect(await send(trackCall(account, connection.connectionId, overrides))).toEqual({ kind: 'rejected', reason: expect.stringMatching(reason) });
    expect(api.requests).toHaveLength(0);
    expect((await readConnection(account, connection.connectionId)).lastOutboundAt).toBeNull();
  });
});

import { describe, expect, inject, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { directEvent, newConnection } from '../support/ingest.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { post } from '../support/signed-ingest.ts';

const base = (account: TestAccount) => `/accounts/${account.accountId}/connections`;
const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe('POST /accounts/{accountId}/connections', () => {
  it('answers 201 with the connection, its inbound key and URL, and its signing secret', async () => {
    const account = await newAccount();
    const before = Date.now();
    const created = ok(await call('POST', base(account), { token: account.apiKey, body: { provider: 'webhook', label: 'Shop backend' } }), 201);

    expect(created).toEqual({
      connectionId: expect.stringMatching(/^conn_[A-Za-z0-9_-]{22}$/),
      accountId: account.accountId,
      provider: 'webhook',
      label: 'Shop backend',
      status: 'active',
      connectMethod: 'webhook',
      createdAt: expect.stringMatching(iso),
      lastInboundAt: null,
      lastOutboundAt: null,
      mapping: {},
      eventConfig: { createVisitors: true, holdTtlHours: 168 },
      hasOutboundCredential: false,
      outboundUrl: null,
      outboundUrlIsDefault: false,
      inboundKey: expect.any(String),
      inboundUrl: expect.any(String),
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
    });
    expect(Date.parse(created.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

    // The inbound key is URL-safe and carries at least 128 random bits (base64url: 6 bits a character).
    expect(created.inboundKey).toMatch(/^[A-Za-z0-9_-]+$/);
    const randomPart = created.inboundKey.replace(/^in_/, '');
    expect(randomPart.length * 6).toBeGreaterThanOrEqual(128);
    expect(created.inboundUrl).toBe(`${inject('apiUrl')}/v1/in/${created.inboundKey}`);
    expect(created.inboundUrl.endsWith(`/v1/in/${created.inboundKey}`)).toBe(true);

    // The secret is a Standard Webhooks key of at least 24 bytes.
    expect(Buffer.from(created.signingSecret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    // Keys and secrets differ from one connection to the next.
    const other = await newConnection(account);
    expect(other.inboundKey).not.toBe(created.inboundKey);
    expect(other.signingSecret).not.toBe(created.signingSecret);
    expect(other.connectionId).not.toBe(created.connectionId);
  });

  it('keeps the mapping and fills the eventConfig defaults around what was sent', async () => {
    const account = await newAccount();
    const created = ok(
      await call('POST', base(account), {
        token: account.apiKey,
        body: { provider: 'segment', label: 'Segment', mapping: { plan: 'traits.plan' }, eventConfig: { eventTypes: ['identify'], rateLimit: { perSecond: 5, burst: 10 } } },
      }),
      201,
    );
    expect(created.mapping).toEqual({ plan: 'traits.plan' });
    expect(created.eventConfig).toEqual({ eventTypes: ['identify'], rateLimit: { perSecond: 5, burst: 10 }, createVisitors: true, holdTtlHours: 168 });
  });

  it.each(['direct', 'webhook', 'segment', 'rudderstack'])('accepts the provider %s, connected by webhook', async (provider) => {
    const account = await newAccount();
    const created = ok(await call('POST', base(account), { token: account.apiKey, body: { provider, label: provider } }), 201);
    expect(created).toMatchObject({ provider, connectMethod: 'webhook', status: 'active' });
  });

  it('refuses an unknown provider with 400 naming body.provider', async () => {
    const account = await newAccount();
    const response = await call('POST', base(account), { token: account.apiKey, body: { provider: 'zapier', label: 'X' } });
    const error = expectError(response, 400, 'validation_failed');
    expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.provider' })]));
  });

  it('refuses a missing label, an unknown field and a bad eventConfig with 400 and details', async () => {
    const account = await newAccount();
    const cases: Array<[unknown, string]> = [
      [{ provider: 'direct' }, 'body.label'],
      [{ provider: 'direct', label: 'x', colour: 'blue' }, 'body'],
      [{ provider: 'direct', label: 'x', eventConfig: { holdTtlHours: -1 } }, 'body.eventConfig.holdTtlHours'],
      [{ provider: 'direct', label: 'x', eventConfig: { rateLimit: { perSecond: 0, burst: 1 } } }, 'body.eventConfig.rateLimit.perSecond'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await call('POST', base(account), { token: account.apiKey, body }), 400, 'validation_failed');
      expect(error.details!.map((detail) => detail.path), JSON.stringify(body)).toContain(path);
    }
  });

  it('answers 401 without a key, with a wrong key, and before looking at the body', async () => {
    const account = await newAccount();
    expectError(await call('POST', base(account), { body: { provider: 'direct', label: 'x' } }), 401, 'unauthorized');
    expectError(await call('POST', base(account), { token: 'rpk_wrong', body: { provider: 'direct', label: 'x' } }), 401, 'unauthorized');
    expectError(await call('POST', base(account), { body: { provider: 'nope' } }), 401, 'unauthorized');
  });

  it('answers 404 for another account’s accountId in the path', async () => {
    const [mine, theirs] = await Promise.all([newAccount(), newAccount()]);
    const response = await call('POST', base(theirs), { token: mine.apiKey, body: { provider: 'direct', label: 'x' } });
    expectError(response, 404, 'not_found');
  });
});

describe('reading connections', () => {
  it('lists and gets connections without their signing secret', async () => {
    const account = await newAccount();
    const first = await newConnection(account, { label: 'First' });
    const second = await newConnection(account, { label: 'Second', provider: 'segment' });

    const list = ok(await call('GET', base(account), { token: account.apiKey }));
    expect(list.connections.map((connection: any) => connection.connectionId)).toEqual([second.connectionId, first.connectionId]);
    const one = ok(await call('GET', `${base(account)}/${first.connectionId}`, { token: account.apiKey }));

    const { signingSecret, inboundKey: _key, ...readable } = first as any;
    expect(one).toEqual(readable);
    expect(list.connections[1]).toEqual(readable);
    for (const text of [JSON.stringify(list), JSON.stringify(one)]) {
      expect(text).not.toContain(signingSecret);
      expect(text).not.toContain(second.signingSecret);
      expect(text).not.toContain(signingSecret.slice('whsec_'.length));
      expect(text).not.toContain('signingSecret');
      expect(text).not.toContain('Sealed');
    }
  });

  it('stores the signing secret sealed, never in clear', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const [row] = await query('select * from connections where id = $1', [connection.connectionId]);
    expect(row.signing_secret_sealed).toEqual(expect.any(String));
    expect(JSON.stringify(row)).not.toContain(connection.signingSecret.slice('whsec_'.length));
  });

  it('does not list another account’s connections, nor get them (404)', async () => {
    const [mine, theirs] = await Promise.all([newAccount(), newAccount()]);
    const theirConnection = await newConnection(theirs);
    const list = ok(await call('GET', base(mine), { token: mine.apiKey }));
    expect(list.connections).toEqual([]);
    expectError(await call('GET', `${base(mine)}/${theirConnection.connectionId}`, { token: mine.apiKey }), 404, 'not_found');
  });
});

describe('PATCH /accounts/{accountId}/connections/{connectionId}', () => {
  it('changes label, status and mapping, and merges eventConfig over the stored one', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { provider: 'webhook', mapping: { messageId: 'id', eventType: 'kind' }, eventConfig: { createVisitors: false } });
    const url = `${base(account)}/${connection.connectionId}`;

    const renamed = ok(await call('PATCH', url, { token: account.apiKey, body: { label: 'Renamed', status: 'paused' } }));
    const { signingSecret: _secret, inboundKey: _key, ...readable } = connection as any;
    expect(renamed).toEqual({ ...readable, label: 'Renamed', status: 'paused' });

    const remapped = ok(await call('PATCH', url, { token: account.apiKey, body: { mapping: { messageId: 'uuid', eventType: 'type', plan: 'account.plan' } } }));
    // A mapping is replaced whole.
    expect(remapped.mapping).toEqual({ messageId: 'uuid', eventType: 'type', plan: 'account.plan' });

    const first = ok(await call('PATCH', url, { token: account.apiKey, body: { eventConfig: { eventTypes: ['order.paid'] } } }));
    expect(first.eventConfig).toEqual({ createVisitors: false, holdTtlHours: 168, eventTypes: ['order.paid'] });
    const second = ok(await call('PATCH', url, { token: account.apiKey, body: { eventConfig: { holdTtlHours: 2, rateLimit: { perSecond: 3, burst: 4 } } } }));
    expect(second.eventConfig).toEqual({ createVisitors: false, holdTtlHours: 2, eventTypes: ['order.paid'], rateLimit: { perSecond: 3, burst: 4 } });
    const active = ok(await call('PATCH', url, { token: account.apiKey, body: { status: 'active' } }));
    expect(active).toMatchObject({ label: 'Renamed', status: 'active', mapping: remapped.mapping, eventConfig: second.eventConfig });

    // The stored connection is what the answers said.
    expect(ok(await call('GET', url, { token: account.apiKey }))).toEqual(active);
  });

  it('stores the outbound credential sealed and never returns it; null removes it', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const url = `${base(account)}/${connection.connectionId}`;
    const credential = `sk_live_${Math.random().toString(36).slice(2)}_credential_value`;

    const updated = ok(await call('PATCH', url, { token: account.apiKey, body: { outboundCredential: credential } }));
    expect(updated.hasOutboundCredential).toBe(true);
    expect(JSON.stringify(updated)).not.toContain(credential);
    const one = await call('GET', url, { token: account.apiKey });
    const list = await call('GET', base(account), { token: account.apiKey });
    for (const response of [one, list]) {
      expect(JSON.stringify(response.body)).not.toContain(credential);
      expect(JSON.stringify(response.body)).not.toContain('outboundCredential"');
    }
    expect(one.body.hasOutboundCredential).toBe(true);

    const [row] = await query<{ outbound_credential_sealed: string | null }>('select outbound_credential_sealed from connections where id = $1', [connection.connectionId]);
    expect(row!.outbound_credential_sealed).toEqual(expect.any(String));
    expect(row!.outbound_credential_sealed).not.toContain(credential);
    expect(row!.outbound_credential_sealed).not.toContain(Buffer.from(credential).toString('base64'));
    const [whole] = await query('select * from connections where id = $1', [connection.connectionId]);
    expect(JSON.stringify(whole)).not.toContain(credential);

    const removed = ok(await call('PATCH', url, { token: account.apiKey, body: { outboundCredential: null } }));
    expect(removed.hasOutboundCredential).toBe(false);
    const [after] = await query('select outbound_credential_sealed from connections where id = $1', [connection.connectionId]);
    expect(after.outbound_credential_sealed).toBeNull();
  });

  it('refuses an empty change, an unknown field and a bad status with 400', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const url = `${base(account)}/${connection.connectionId}`;
    for (const body of [{}, { signingSecret: 'whsec_x' }, { status: 'deleted' }, { provider: 'segment' }]) {
      expectError(await call('PATCH', url, { token: account.apiKey, body }), 400, 'validation_failed');
    }
  });
});

describe('unknown and foreign connections', () => {
  const operations = (account: TestAccount, connectionId: string) => [
    ['GET', `${base(account)}/${connectionId}`, undefined],
    ['PATCH', `${base(account)}/${connectionId}`, { label: 'Taken over' }],
    ['DELETE', `${base(account)}/${connectionId}`, undefined],
    ['POST', `${base(account)}/${connectionId}/secret/rotate`, undefined],
  ] as const;

  it('answers 404 for a connection that does not exist', async () => {
    const account = await newAccount();
    for (const [method, path, body] of operations(account, 'conn_doesNotExist000000000')) {
      expectError(await call(method, path, { token: account.apiKey, body }), 404, 'not_found');
    }
  });

  it('answers 404 for another account’s connection, and leaves it untouched', async () => {
    const [mine, theirs] = await Promise.all([newAccount(), newAccount()]);
    const theirConnection = await newConnection(theirs, { label: 'Theirs' });
    for (const [method, path, body] of operations(mine, theirConnection.connectionId)) {
      expectError(await call(method, path, { token: mine.apiKey, body }), 404, 'not_found');
    }
    const still = ok(await call('GET', `${base(theirs)}/${theirConnection.connectionId}`, { token: theirs.apiKey }));
    expect(still).toMatchObject({ label: 'Theirs', status: 'active' });
    // Its secret was not rotated: it still signs.
    ok(await post(theirConnection, directEvent()), 202);
  });

  it('answers 401 without a key on every connection operation', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    for (const [method, path, body] of [...operations(account, connection.connectionId), ['GET', base(account), undefined] as const]) {
      expectError(await call(method, path, { body }), 401, 'unauthorized');
    }
    ok(await call('GET', `${base(account)}/${connection.connectionId}`, { token: account.apiKey }));
  });
});

describe('secret rotation', () => {
  it('issues a new secret; posts signed with the old one are accepted during the 24-hour overlap', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const rotated = ok(await call('POST', `${base(account)}/${connection.connectionId}/secret/rotate`, { token: account.apiKey }));
    expect(rotated).toEqual({
      connectionId: connection.connectionId,
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
      previousSecretExpiresAt: expect.stringMatching(iso),
    });
    expect(rotated.signingSecret).not.toBe(connection.signingSecret);
    const overlapMs = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
    expect(overlapMs).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3600_000);

    ok(await post(connection, directEvent(), { secret: connection.signingSecret }), 202);
    ok(await post(connection, directEvent(), { secret: rotated.signingSecret }), 202);
    expectError(await post(connection, directEvent(), { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }), 401, 'invalid_signature');

    // The new secret is never shown again.
    const read = await call('GET', `${base(account)}/${connection.connectionId}`, { token: account.apiKey });
    expect(JSON.stringify(read.body)).not.toContain(rotated.signingSecret);
  });

  it('stops accepting the old secret once its overlap has ended', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const rotated = ok(await call('POST', `${base(account)}/${connection.connectionId}/secret/rotate`, { token: account.apiKey }));
    // Move the overlap's end into the past, as 24 hours passing would.
    await query("update connections set previous_signing_secret_expires_at = now() - interval '1 second' where id = $1", [connection.connectionId]);
    expectError(await post(connection, directEvent(), { secret: connection.signingSecret }), 401, 'invalid_signature');
    ok(await post(connection, directEvent(), { secret: rotated.signingSecret }), 202);
  });
});

describe('DELETE /accounts/{accountId}/connections/{connectionId}', () => {
  it('answers 204; the connection is gone and its inbound key stops working', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    ok(await post(connection, directEvent()), 202);

    const deleted = await call('DELETE', `${base(account)}/${connection.connectionId}`, { token: account.apiKey });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();

    expectError(await call('GET', `${base(account)}/${connection.connectionId}`, { token: account.apiKey }), 404, 'not_found');
    expect(ok(await call('GET', base(account), { token: account.apiKey })).connections).toEqual([]);
    expectError(await post(connection, directEvent()), 404, 'not_found');
    expectError(await call('DELETE', `${base(account)}/${connection.connectionId}`, { token: account.apiKey }), 404, 'not_found');
    // Its events stay.
    const events = ok(await call('GET', `/accounts/${account.accountId}/events`, { token: account.apiKey }));
    expect(events.items.map((event: any) => event.connectionId)).toEqual([connection.connectionId]);
  });
});

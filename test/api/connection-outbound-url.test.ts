import { afterEach, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { newConnection } from '../support/ingest.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { connectionPath, originOf } from '../support/providers.ts';
import { startReceiver, type TestReceiver } from '../support/receiver.ts';
import { rejectedUrls } from '../support/samples.ts';

// outboundUrl: the base of the provider API an experience's provider node calls. Checked like endpoint URLs.

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
/** An https origin on loopback (allowed in the tests) that something listens on. */
async function reachableOrigin(): Promise<string> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  return originOf(receiver.url);
}

const create = (account: TestAccount, body: Record<string, unknown>) => call('POST', connectionPath(account), { token: account.apiKey, body: { label: 'Provider', ...body } });
const patch = (account: TestAccount, connectionId: string, body: unknown) => call('PATCH', connectionPath(account, connectionId), { token: account.apiKey, body });
const read = async (account: TestAccount, connectionId: string) => ok(await call('GET', connectionPath(account, connectionId), { token: account.apiKey }));

describe('outboundUrl on create', () => {
  it('defaults to https://api.segment.io for segment, and to none for rudderstack and the other providers', async () => {
    const account = await newAccount();
    const expected = { segment: ['https://api.segment.io', true], rudderstack: [null, false], webhook: [null, false], direct: [null, false] } as const;
    for (const [provider, [outboundUrl, outboundUrlIsDefault]] of Object.entries(expected)) {
      const created = ok(await create(account, { provider }), 201);
      expect(created, provider).toMatchObject({ outboundUrl, outboundUrlIsDefault });
      expect(await read(account, created.connectionId), provider).toMatchObject({ outboundUrl, outboundUrlIsDefault });
    }
  });

  it('keeps the URL set for segment and rudderstack, without a trailing slash, path kept', async () => {
    const account = await newAccount();
    const origin = await reachableOrigin();
    const segment = ok(await create(account, { provider: 'segment', outboundUrl: `${origin}/` }), 201);
    expect(segment).toMatchObject({ outboundUrl: origin, outboundUrlIsDefault: false });
    const rudderstack = ok(await create(account, { provider: 'rudderstack', outboundUrl: `  ${origin}/data-plane/ ` }), 201);
    expect(rudderstack).toMatchObject({ outboundUrl: `${origin}/data-plane`, outboundUrlIsDefault: false });
    expect(await read(account, rudderstack.connectionId)).toMatchObject({ outboundUrl: `${origin}/data-plane`, outboundUrlIsDefault: false });
    const [row] = await query('select outbound_url from connections where id = $1', [rudderstack.connectionId]);
    expect(row.outbound_url).toBe(`${origin}/data-plane`);
  });

  it.each(rejectedUrls)('refuses %s with 422 invalid_url and creates nothing', async (url, reason) => {
    const account = await newAccount();
    const error = expectError(await create(account, { provider: 'segment', outboundUrl: url }), 422, 'invalid_url');
    expect(error.message).toMatch(reason);
    expect(ok(await call('GET', connectionPath(account), { token: account.apiKey })).connections).toEqual([]);
  });

  it('refuses a query or a fragment with 422 invalid_url', async () => {
    const account = await newAccount();
    const origin = await reachableOrigin();
    for (const url of [`${origin}/?region=eu`, `${origin}/#v1`, `${origin}?`]) {
      const error = expectError(await create(account, { provider: 'rudderstack', outboundUrl: url }), 422, 'invalid_url');
      expect(error.message, url).toMatch(/query or a fragment/);
    }
  });

  it('refuses outboundUrl for a provider without an API to call (400 naming body.outboundUrl), and a non-string or empty one', async () => {
    const account = await newAccount();
    const origin = await reachableOrigin();
    for (const provider of ['webhook', 'direct']) {
      const error = expectError(await create(account, { provider, outboundUrl: origin }), 400, 'validation_failed');
      expect(error.details).toEqual([{ path: 'body.outboundUrl', message: expect.stringMatching(/segment and rudderstack/) }]);
    }
    for (const outboundUrl of [42, '', '   ', `https://example.com/${'a'.repeat(2048)}`]) {
      const error = expectError(await create(account, { provider: 'segment', outboundUrl }), 400, 'validation_failed');
      expect(error.details!.map((detail) => detail.path)).toContain('body.outboundUrl');
    }
    expect(ok(await call('GET', connectionPath(account), { token: account.apiKey })).connections).toEqual([]);
  });
});

describe('outboundUrl on PATCH', () => {
  it('sets, changes and removes it: null returns segment to its default and rudderstack to none', async () => {
    const account = await newAccount();
    const [first, second] = [await reachableOrigin(), await reachableOrigin()];
    const segment = await newConnection(account, { provider: 'segment' });
    const rudderstack = await newConnection(account, { provider: 'rudderstack' });

    expect(ok(await patch(account, segment.connectionId, { outboundUrl: first }))).toMatchObject({ outboundUrl: first, outboundUrlIsDefault: false });
    expect(ok(await patch(account, segment.connectionId, { outboundUrl: `${second}/eu` }))).toMatchObject({ outboundUrl: `${second}/eu`, outboundUrlIsDefault: false });
    // Other changes leave it alone.
    expect(ok(await patch(account, segment.connectionId, { label: 'Renamed' }))).toMatchObject({ label: 'Renamed', outboundUrl: `${second}/eu` });
    const reset = ok(await patch(account, segment.connectionId, { outboundUrl: null }));
    expect(reset).toMatchObject({ outboundUrl: 'https://api.segment.io', outboundUrlIsDefault: true });
    expect(await read(account, segment.connectionId)).toEqual(reset);

    expect(ok(await patch(account, rudderstack.connectionId, { outboundUrl: first }))).toMatchObject({ outboundUrl: first, outboundUrlIsDefault: false });
    expect(ok(await patch(account, rudderstack.connectionId, { outboundUrl: null }))).toMatchObject({ outboundUrl: null, outboundUrlIsDefault: false });
    const [row] = await query('select outbound_url from connections where id = $1', [rudderstack.connectionId]);
    expect(row.outbound_url).toBeNull();
  });

  it.each(rejectedUrls)('refuses %s with 422 invalid_url and changes nothing', async (url, reason) => {
    const account = await newAccount();
    const origin = await reachableOrigin();
    const connection = ok(await create(account, { provider: 'rudderstack', outboundUrl: origin }), 201);
    // Nothing else in the same request is applied either.
    const error = expectError(await patch(account, connection.connectionId, { outboundUrl: url, label: 'Changed' }), 422, 'invalid_url');
    expect(error.message).toMatch(reason);
    expect(await read(account, connection.connectionId)).toMatchObject({ label: 'Provider', outboundUrl: origin });
  });

  it('refuses a URL for a webhook connection with 400, and takes null there as nothing to remove', async () => {
    const account = await newAccount();
    const origin = await reachableOrigin();
    const connection = await newConnection(account, { provider: 'webhook' });
    const error = expectError(await patch(account, connection.connectionId, { outboundUrl: origin }), 400, 'validation_failed');
    expect(error.details).toEqual([{ path: 'body.outboundUrl', message: expect.stringMatching(/this is a webhook connection/) }]);
    expect(ok(await patch(account, connection.connectionId, { outboundUrl: null }))).toMatchObject({ outboundUrl: null, outboundUrlIsDefault: false });
  });
});

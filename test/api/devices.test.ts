import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { newApp } from '../support/devices.ts';
import { expectError, ok } from '../support/http-assertions.ts';

let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  [account, other] = await Promise.all([newAccount(), newAccount()]);
});

let sequence = 0;
const uniqueToken = (prefix = 'fcm') => `${prefix}:${Date.now().toString(36)}-${++sequence}`;

const register = (body: Record<string, unknown>, owner = account) => call('POST', '/device/register', { token: owner.apiKey, body: { appId: owner.appId, ...body } });
const get = (id: string, owner = account) => call('GET', `/device/get?id=${id}`, { token: owner.apiKey });

describe('POST /device/register', () => {
  it('creates a device (201), then updates the one with the same token (200)', async () => {
    const token = uniqueToken();
    const created = ok(await register({ token, platform: 'android', clientUserId: 'u-1', attributes: { plan: 'pro', age: 30 }, locale: 'en_gb', timezone: 'Europe/London' }), 201);
    expect(created).toEqual({
      deviceId: expect.any(String),
      appId: account.appId,
      token,
      platform: 'android',
      clientUserId: 'u-1',
      attributes: { plan: 'pro', age: 30 },
      subscribed: true,
      locale: 'en-GB',
      timezone: 'Europe/London',
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
      lastSeenAt: created.createdAt,
    });

    const updated = ok(await register({ token, platform: 'android', attributes: { age: 31, beta: true } }), 200);
    expect(updated).toMatchObject({
      deviceId: created.deviceId,
      clientUserId: 'u-1',
      attributes: { plan: 'pro', age: 31, beta: true },
      subscribed: true,
      locale: 'en-GB',
      timezone: 'Europe/London',
      createdAt: created.createdAt,
    });
    expect(Date.parse(updated.lastSeenAt)).toBeGreaterThan(Date.parse(created.lastSeenAt));
    expect(updated.updatedAt).toBe(updated.lastSeenAt);
    expect(ok(await get(created.deviceId))).toEqual(updated);
  });

  it('keeps what is left out, clears what is sent as null, and stores a null attribute as null', async () => {
    const token = uniqueToken();
    const created = ok(await register({ token, platform: 'ios', clientUserId: 'u-2', locale: 'fr', timezone: 'Europe/Paris', attributes: { a: 1, b: 2 } }), 201);
    const cleared = ok(await register({ token, platform: 'ios', clientUserId: null, locale: null, attributes: { b: null } }), 200);
    expect(cleared).toMatchObject({ deviceId: created.deviceId, clientUserId: null, locale: null, timezone: 'Europe/Paris', attributes: { a: 1, b: null } });
  });

  it('answers 404 for another account’s app and for an unknown app, storing nothing', async () => {
    const token = uniqueToken();
    expectError(await register({ token, platform: 'web', appId: other.appId }), 404, 'not_found');
    expectError(await register({ token, platform: 'web', appId: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
    expect(await query('select 1 from devices where token = $1', [token])).toEqual([]);
  });

  it('answers 400 naming each bad field', async () => {
    const refused = expectError(
      await register({ token: 'has space', platform: 'blackberry', locale: 'not a locale', timezone: 'Mars/Olympus', subscribed: 'yes', extra: 1 }),
      400,
      'validation_failed',
    );
    expect(refused.details!.map((detail) => detail.path).sort()).toEqual(['body', 'body.locale', 'body.platform', 'body.subscribed', 'body.timezone', 'body.token']);
    const big = expectError(await register({ token: uniqueToken(), platform: 'ios', attributes: { blob: 'x'.repeat(9000) } }), 400, 'validation_failed');
    expect(big.details).toEqual([{ path: 'body.attributes', message: expect.stringMatching(/at most 8192 characters/) }]);
    expectError(await register({ platform: 'ios' }), 400, 'validation_failed');
  });

  it('registers the same token as separate devices in two apps', async () => {
    const token = uniqueToken();
    const secondApp = await newApp(account);
    const first = ok(await register({ token, platform: 'ios' }), 201);
    const second = ok(await register({ token, platform: 'ios', appId: secondApp }), 201);
    expect(second.deviceId).not.toBe(first.deviceId);
  });
});

describe('POST /device/batch', () => {
  it('stores the valid devices in one call and reports each bad one by index; a second batch updates', async () => {
    const tokens: [string, string, string] = [uniqueToken(), uniqueToken(), uniqueToken()];
    const outcome = ok(
      await call('POST', '/device/batch', {
        token: account.apiKey,
        body: {
          appId: account.appId,
          devices: [
            { token: tokens[0], platform: 'ios', attributes: { plan: 'pro' } },
            { token: tokens[1], platform: 'tv' },
            'not an object',
            { token: tokens[2], platform: 'web', locale: 'de_de' },
            { token: tokens[0], platform: 'ios' },
          ],
        },
      }),
    );
    expect(outcome).toEqual({
      created: 2,
      updated: 0,
      failed: [
        { index: 1, error: { code: 'validation_failed', message: 'The device is not valid', details: [{ path: 'body.devices.1.platform', message: expect.any(String) }] } },
        { index: 2, error: { code: 'validation_failed', message: 'The device is not valid', details: [{ path: 'body.devices.2', message: expect.any(String) }] } },
        { index: 4, error: { code: 'validation_failed', message: 'The device is not valid', details: [{ path: 'body.devices.4.token', message: 'repeats the token of devices.0' }] } },
      ],
    });
    const stored = await query('select token, platform, locale, attributes from devices where app_id = $1 and token = any($2)', [account.appId, tokens]);
    const byToken = (a: { token: string }, b: { token: string }) => (a.token < b.token ? -1 : 1);
    expect(stored.sort(byToken)).toEqual(
      [
        { token: tokens[0], platform: 'ios', locale: null, attributes: { plan: 'pro' } },
        { token: tokens[2], platform: 'web', locale: 'de-DE', attributes: {} },
      ].sort(byToken),
    );

    const again = ok(
      await call('POST', '/device/batch', {
        token: account.apiKey,
        body: { appId: account.appId, devices: [{ token: tokens[0], platform: 'ios', attributes: { age: 3 } }, { token: tokens[1], platform: 'android' }] },
      }),
    );
    expect(again).toEqual({ created: 1, updated: 1, failed: [] });
    const [merged] = await query('select attributes from devices where app_id = $1 and token = $2', [account.appId, tokens[0]]);
    expect(merged.attributes).toEqual({ plan: 'pro', age: 3 });
  });

  it('takes 1000 devices in one request', async () => {
    const devices = Array.from({ length: 1000 }, (_, index) => ({ token: uniqueToken(`bulk${index}`), platform: 'android', attributes: { index } }));
    expect(ok(await call('POST', '/device/batch', { token: account.apiKey, body: { appId: account.appId, devices } }))).toEqual({ created: 1000, updated: 0, failed: [] });
  });

  it('stores each token once when requests race: one 201, the rest 200; batches sharing tokens in any order all succeed', async () => {
    const token = uniqueToken('race');
    const answers = await Promise.all(Array.from({ length: 8 }, () => register({ token, platform: 'ios' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.deviceId)).size).toBe(1);

    const shared = Array.from({ length: 200 }, (_, index) => ({ token: uniqueToken(`shared${index}`), platform: 'web' }));
    const batches = await Promise.all(
      [shared, [...shared].reverse(), shared, [...shared].reverse()].map((devices) => call('POST', '/device/batch', { token: account.apiKey, body: { appId: account.appId, devices } })),
    );
    for (const batch of batches) expect(ok(batch).failed).toEqual([]);
    expect(batches.reduce((sum, batch) => sum + batch.body.created, 0)).toBe(200);
    expect(batches.reduce((sum, batch) => sum + batch.body.updated, 0)).toBe(600);
  });

  it('refuses a body of the wrong shape as a whole (400), and another account’s app (404)', async () => {
    const batch = (body: unknown) => call('POST', '/device/batch', { token: account.apiKey, body });
    expect(expectError(await batch({ appId: account.appId, devices: [] }), 400, 'validation_failed').details![0]!.path).toBe('body.devices');
    expect(expectError(await batch({ appId: account.appId, devices: {} }), 400, 'validation_failed').details![0]!.path).toBe('body.devices');
    const tooMany = Array.from({ length: 1001 }, (_, index) => ({ token: `t${index}`, platform: 'ios' }));
    expect(expectError(await batch({ appId: account.appId, devices: tooMany }), 400, 'validation_failed').details![0]!.path).toBe('body.devices');
    expect(expectError(await batch({ devices: [{ token: 't', platform: 'ios' }] }), 400, 'validation_failed').details![0]!.path).toBe('body.appId');
    expectError(await batch({ appId: other.appId, devices: [{ token: uniqueToken(), platform: 'ios' }] }), 404, 'not_found');
  });
});

describe('GET /device/get and /device/list', () => {
  it('lists an app’s devices newest first, filtered by platform, each once across pages', async () => {
    const appId = await newApp(account, 'list app');
    const registered: string[] = [];
    for (const platform of ['ios', 'web', 'ios', 'android', 'ios']) {
      registered.push(ok(await register({ token: uniqueToken(), platform, appId }), 201).deviceId);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = ok(await call('GET', `/device/list?appId=${appId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: account.apiKey }));
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((device: { deviceId: string }) => device.deviceId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...registered].reverse());
    const ios = ok(await call('GET', `/device/list?appId=${appId}&platform=ios`, { token: account.apiKey }));
    expect(ios.items.map((device: { deviceId: string }) => device.deviceId)).toEqual([registered[4], registered[2], registered[0]]);
  });

  it('hides another account’s devices: get is 404, a list of its app is empty', async () => {
    const theirs = ok(await register({ token: uniqueToken(), platform: 'ios' }, other), 201);
    expectError(await get(theirs.deviceId), 404, 'not_found');
    expect(ok(await call('GET', `/device/list?appId=${other.appId}`, { token: account.apiKey })).items).toEqual([]);
  });

  it('answers 400 for a malformed id or filter', async () => {
    expect(expectError(await get('not-a-uuid'), 400, 'validation_failed').details![0]!.path).toBe('query.id');
    expect(expectError(await call('GET', '/device/list', { token: account.apiKey }), 400, 'validation_failed').details![0]!.path).toBe('query.appId');
    expectError(await call('GET', `/device/list?appId=${account.appId}&platform=tv`, { token: account.apiKey }), 400, 'validation_failed');
  });
});

describe('unsubscribing and deleting a device', () => {
  it('unsubscribes until the device registers with subscribed: true', async () => {
    const token = uniqueToken();
    const device = ok(await register({ token, platform: 'ios' }), 201);
    expect(ok(await call('POST', `/device/unsubscribe?id=${device.deviceId}`, { token: account.apiKey })).subscribed).toBe(false);
    expect(ok(await call('POST', `/device/unsubscribe?id=${device.deviceId}`, { token: account.apiKey })).subscribed).toBe(false);
    expect(ok(await register({ token, platform: 'ios' })).subscribed).toBe(false);
    expect(ok(await register({ token, platform: 'ios', subscribed: true })).subscribed).toBe(true);
  });

  it('deletes a device: its personal data is erased, it is gone from get and list, and its token registers anew', async () => {
    const token = uniqueToken();
    const device = ok(await register({ token, platform: 'android', clientUserId: 'u-9', attributes: { email: 'a@example.com' }, locale: 'en', timezone: 'UTC' }), 201);
    expect((await call('DELETE', `/device/delete?id=${device.deviceId}`, { token: account.apiKey })).status).toBe(204);
    const [row] = await query('select token, client_user_id, attributes, locale, timezone, subscribed, deleted_at from devices where id = $1', [device.deviceId]);
    expect(row).toEqual({ token: null, client_user_id: null, attributes: {}, locale: null, timezone: null, subscribed: false, deleted_at: expect.any(Date) });
    expectError(await get(device.deviceId), 404, 'not_found');
    expectError(await call('DELETE', `/device/delete?id=${device.deviceId}`, { token: account.apiKey }), 404, 'not_found');
    expectError(await call('POST', `/device/unsubscribe?id=${device.deviceId}`, { token: account.apiKey }), 404, 'not_found');
    const listed = ok(await call('GET', `/device/list?appId=${account.appId}&limit=100`, { token: account.apiKey }));
    expect(listed.items.map((item: { deviceId: string }) => item.deviceId)).not.toContain(device.deviceId);
    const again = ok(await register({ token, platform: 'android' }), 201);
    expect(again.deviceId).not.toBe(device.deviceId);
  });

  it('answers 404 for another account’s device', async () => {
    const theirs = ok(await register({ token: uniqueToken(), platform: 'web' }, other), 201);
    expectError(await call('POST', `/device/unsubscribe?id=${theirs.deviceId}`, { token: account.apiKey }), 404, 'not_found');
    expectError(await call('DELETE', `/device/delete?id=${theirs.deviceId}`, { token: account.apiKey }), 404, 'not_found');
    expect(ok(await get(theirs.deviceId, other)).subscribed).toBe(true);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { newApp, newSegment, registerDevices } from '../support/devices.ts';
import { expectError, ok } from '../support/http-assertions.ts';

let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  [account, other] = await Promise.all([newAccount(), newAccount()]);
  await registerDevices(account, [
    { token: 'seg-1', platform: 'ios', attributes: { plan: 'pro' } },
    { token: 'seg-2', platform: 'ios', attributes: { plan: 'free' } },
    { token: 'seg-3', platform: 'android', attributes: { plan: 'pro' } },
  ]);
});

const proOnIos = { all: [{ field: 'platform', op: 'eq', value: 'ios' }, { field: 'attributes.plan', op: 'eq', value: 'pro' }] };
const get = (id: string, owner = account) => call('GET', `/filter/get?id=${id}`, { token: owner.apiKey });
const update = (body: Record<string, unknown>, owner = account) => call('PUT', '/filter/update', { token: owner.apiKey, body });

describe('POST /filter/create and GET /filter/get', () => {
  it('creates a segment (201) with the count of its devices now, and counts it live on get', async () => {
    const created = await newSegment(account, proOnIos);
    expect(created).toEqual({
      id: expect.any(String),
      appId: account.appId,
      name: 'segment',
      rules: proOnIos,
      deviceCount: 1,
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
    });
    await registerDevices(account, [{ token: 'seg-4', platform: 'ios', attributes: { plan: 'pro', extra: true } }]);
    expect(ok(await get(created.id))).toEqual({ ...created, deviceCount: 2 });
  });

  it('stores locales in rules in canonical form', async () => {
    const created = await newSegment(account, { any: [{ field: 'locale', op: 'in', value: ['en_gb'] }] });
    expect(created.rules).toEqual({ any: [{ field: 'locale', op: 'in', value: ['en-GB'] }] });
  });

  it('answers 400 with the path of each bad rule', async () => {
    const refused = expectError(
      await call('POST', '/filter/create', {
        token: account.apiKey,
        body: { appId: account.appId, name: ' ', rules: { any: [{ field: 'platform', op: 'gt', value: 'ios' }, { all: [{ field: 'attributes.a', op: 'in', value: 'x' }] }] } },
      }),
      400,
      'validation_failed',
    );
    expect(refused.details).toEqual([
      { path: 'body.name', message: 'must not be blank' },
      { path: 'body.rules.any.0.op', message: 'must be one of eq, neq, in, nin for platform' },
      { path: 'body.rules.any.1.all.0.value', message: 'must be an array of strings, numbers or booleans' },
    ]);
    const notAGroup = expectError(await call('POST', '/filter/create', { token: account.apiKey, body: { appId: account.appId, name: 'x', rules: [] } }), 400, 'validation_failed');
    expect(notAGroup.details).toEqual([{ path: 'body.rules', message: 'must be a group { all: [...] } or { any: [...] }' }]);
  });

  it('answers 404 for another account’s app or segment, and 400 for an id that is not a UUID', async () => {
    expectError(await call('POST', '/filter/create', { token: account.apiKey, body: { appId: other.appId, name: 'x', rules: { all: [] } } }), 404, 'not_found');
    const theirs = await newSegment(other, { all: [] });
    expectError(await get(theirs.id), 404, 'not_found');
    expectError(await update({ id: theirs.id, name: 'mine now' }), 404, 'not_found');
    expect(ok(await get(theirs.id, other)).name).toBe('segment');
    expect(expectError(await get('segment-42'), 400, 'validation_failed').details![0]!.path).toBe('query.id');
  });
});

describe('PUT /filter/update', () => {
  it('changes the name and the rules, answering the new count', async () => {
    const created = await newSegment(account, proOnIos);
    const renamed = ok(await update({ id: created.id, name: '  Pro users  ' }));
    expect(renamed).toMatchObject({ id: created.id, name: 'Pro users', rules: proOnIos, deviceCount: created.deviceCount });
    const widened = ok(await update({ id: created.id, rules: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } }));
    expect(widened).toMatchObject({ name: 'Pro users', rules: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] }, deviceCount: created.deviceCount + 1 });
    expect(ok(await get(created.id))).toEqual(widened);
  });

  it('answers 400 for bad rules or unknown fields, and 404 for an unknown id', async () => {
    const created = await newSegment(account, proOnIos);
    expect(expectError(await update({ id: created.id, rules: { all: [{ field: 'lastSeenAt', op: 'withinHours', value: -1 }] } }), 400, 'validation_failed').details).toEqual([
      { path: 'body.rules.all.0.value', message: 'must be more than 0' },
    ]);
    expectError(await update({ id: created.id, appId: account.appId }), 400, 'validation_failed');
    expectError(await update({ id: '00000000-0000-4000-8000-000000000000', name: 'x' }), 404, 'not_found');
  });
});

describe('GET /filter/list', () => {
  it('lists the account’s segments newest first without counts, by app, each once across pages', async () => {
    const appId = await newApp(account, 'segments app');
    const made = [];
    for (let index = 0; index < 3; index++) made.push((await newSegment(account, { all: [] }, appId)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = ok(await call('GET', `/filter/list?appId=${appId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: account.apiKey }));
      for (const item of page.items) expect(item.deviceCount).toBeNull();
      seen.push(...page.items.map((item: { id: string }) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made.reverse());
    expect(ok(await call('GET', `/filter/list?appId=${appId}`, { token: other.apiKey })).items).toEqual([]);
    const all = ok(await call('GET', '/filter/list?limit=100', { token: account.apiKey }));
    expect(all.items.length).toBeGreaterThan(3);
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { countSegmentDevices, pageSegmentDevices } from '../../src/domain/segments/segment-devices.ts';
import { segmentRulesSchema } from '../../src/domain/segments/rules-schema.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { newApp, registerDevices, setLastSeen } from '../support/devices.ts';

// Each field × op against real Postgres: twelve devices of one app with varied columns and attributes, plus
// devices that match the attribute rules but must never be in a segment (unsubscribed, deleted, another app's,
// another account's). Each rule is checked for exactly its devices, by count and by page.

let orm: Orm;
let account: TestAccount;
const ids = new Map<string, string>();
const nameOf = new Map<string, string>();

type Spec = { name: string; platform: string; clientUserId?: string; locale?: string; hoursAgo: number; attributes: Record<string, unknown> };

// prettier-ignore
const devices: Spec[] = [
  { name: 'a', platform: 'ios', clientUserId: 'u1', locale: 'en-GB', hoursAgo: 1, attributes: { plan: 'pro', age: 30, tags: ['vip'], address: { country: 'GB' }, "o'k": "it's" } },
  { name: 'b', platform: 'ios', clientUserId: 'u2', locale: 'en-US', hoursAgo: 5, attributes: { plan: 'free', age: 17 } },
  { name: 'c', platform: 'android', clientUserId: 'u3', locale: 'fr-FR', hoursAgo: 30, attributes: { plan: 'pro', age: 45, beta: true } },
  { name: 'd', platform: 'android', hoursAgo: 100, attributes: { plan: null } },
  { name: 'e', platform: 'web', clientUserId: 'u5', locale: 'de-DE', hoursAgo: 0.1, attributes: {} },
  { name: 'f', platform: 'web', clientUserId: 'u6', locale: 'en_GB', hoursAgo: 200, attributes: { age: '30' } },
  { name: 'g', platform: 'ios', clientUserId: 'u7', locale: 'en-GB', hoursAgo: 2, attributes: { address: { country: 'FR', city: 'Paris' }, since: '2025-06-01' } },
  { name: 'h', platform: 'android', clientUserId: 'u8', locale: 'es-ES', hoursAgo: 48, attributes: { score: 2.5, since: '2026-01-15' } },
  { name: 'i', platform: 'ios', clientUserId: 'u1', locale: 'en-GB', hoursAgo: 10, attributes: { plan: 'enterprise' } },
  { name: 'j', platform: 'android', clientUserId: 'u10', locale: 'pt-BR', hoursAgo: 72, attributes: { beta: false, level: 1 } },
  { name: 'k', platform: 'web', locale: 'en-US', hoursAgo: 3, attributes: { level: '1' } },
  { name: 'l', platform: 'ios', clientUserId: 'u12', locale: 'ja-JP', hoursAgo: 500, attributes: { plan: 'pro', address: 'London' } },
];
const everyone = devices.map((device) => device.name).join('');
/** Match the attribute rules, yet are never in the segment. */
const outsiders = ['unsubscribed', 'deleted', 'other-app', 'other-account'];

const toRegistration = (spec: Spec) => ({
  token: `tok-${spec.name}`,
  platform: spec.platform,
  attributes: spec.attributes,
  ...(spec.clientUserId ? { clientUserId: spec.clientUserId } : {}),
  ...(spec.locale ? { locale: spec.locale } : {}),
});
const outsider = (name: string) => ({ token: `tok-${name}`, platform: 'ios', clientUserId: 'u1', locale: 'en-GB', attributes: { plan: 'pro', age: 30, address: { country: 'GB' } } });

beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
  account = await newAccount();
  const other = await newAccount();
  const mine = await registerDevices(account, [...devices.map(toRegistration), outsider('unsubscribed'), outsider('deleted')]);
  const otherApp = await registerDevices(account, [outsider('other-app')], await newApp(account));
  const otherAccount = await registerDevices(other, [outsider('other-account')]);
  for (const [token, id] of [...mine, ...otherApp, ...otherAccount]) {
    ids.set(token.slice(4), id);
    nameOf.set(id, token.slice(4));
  }
  expect((await call('POST', `/device/unsubscribe?id=${ids.get('unsubscribed')}`, { token: account.apiKey })).status).toBe(200);
  expect((await call('DELETE', `/device/delete?id=${ids.get('deleted')}`, { token: account.apiKey })).status).toBe(204);
  await setLastSeen(new Map([...devices.map((device): [string, number] => [ids.get(device.name)!, device.hoursAgo]), ...outsiders.map((name): [string, number] => [ids.get(name)!, 1])]));
});
afterAll(async () => {
  await orm?.close();
});

/** The names of the segment's devices, by paging it 5 at a time; checks the count agrees. */
async function members(rules: unknown): Promise<string> {
  const segment = { appId: account.appId, rules: segmentRulesSchema.parse(rules) };
  const em = orm.em.fork();
  const found: string[] = [];
  let afterDeviceId: string | undefined;
  for (;;) {
    const page = await pageSegmentDevices(em, segment, { afterDeviceId, limit: 5 });
    found.push(...page.map((device) => device.deviceId));
    if (page.length < 5) break;
    afterDeviceId = page.at(-1)!.deviceId;
  }
  expect(found).toEqual([...found].sort());
  expect(new Set(found).size).toBe(found.length);
  expect(await countSegmentDevices(em, segment)).toBe(found.length);
  return found.map((id) => nameOf.get(id) ?? id).sort().join('');
}

const rule = (field: string, op: string, value?: unknown) => ({ all: [value === undefined ? { field, op } : { field, op, value }] });
const hoursAgoIso = (hours: number) => new Date(Date.now() - hours * 3600_000).toISOString();

describe('segments against Postgres: the fixed columns', () => {
  it.each<[string, string, unknown, string]>([
    ['platform', 'eq', 'ios', 'abgil'],
    ['platform', 'neq', 'ios', 'cdefhjk'],
    ['platform', 'in', ['android', 'web'], 'cdefhjk'],
    ['platform', 'nin', ['ios', 'web'], 'cdhj'],
    ['subscribed', 'eq', true, everyone],
    ['subscribed', 'eq', false, ''],
    ['subscribed', 'neq', true, ''],
    ['clientUserId', 'eq', 'u1', 'ai'],
    ['clientUserId', 'neq', 'u1', 'bcdefghjkl'],
    ['clientUserId', 'in', ['u2', 'u3'], 'bc'],
    ['clientUserId', 'nin', ['u1', 'u2'], 'cdefghjkl'],
    ['clientUserId', 'exists', undefined, 'abcefghijl'],
    ['clientUserId', 'notExists', undefined, 'dk'],
    ['locale', 'eq', 'en-GB', 'afgi'],
    ['locale', 'eq', 'en_gb', 'afgi'],
    ['locale', 'neq', 'en-GB', 'bcdehjkl'],
    ['locale', 'in', ['en-US', 'pt-BR'], 'bjk'],
    ['locale', 'nin', ['en-GB', 'en-US'], 'cdehjl'],
    ['locale', 'exists', undefined, 'abcefghijkl'],
    ['locale', 'notExists', undefined, 'd'],
    ['lastSeenAt', 'withinHours', 24, 'abegik'],
    ['lastSeenAt', 'withinHours', 4, 'aegk'],
    ['lastSeenAt', 'olderThanHours', 24, 'cdfhjl'],
    ['lastSeenAt', 'olderThanHours', 150, 'fl'],
  ])('%s %s %j → %s', async (field, op, value, expected) => {
    expect(await members(rule(field, op, value))).toBe(expected);
  });

  it('compares lastSeenAt with a date-time: gt, gte, lt, lte', async () => {
    expect(await members(rule('lastSeenAt', 'gt', hoursAgoIso(50)))).toBe('abceghik');
    expect(await members(rule('lastSeenAt', 'gte', hoursAgoIso(50)))).toBe('abceghik');
    expect(await members(rule('lastSeenAt', 'lt', hoursAgoIso(60)))).toBe('dfjl');
    expect(await members(rule('lastSeenAt', 'lte', hoursAgoIso(60)))).toBe('dfjl');
  });
});

describe('segments against Postgres: attributes', () => {
  it.each<[string, string, unknown, string]>([
    ['attributes.plan', 'eq', 'pro', 'acl'],
    ['attributes.plan', 'neq', 'pro', 'bdefghijk'],
    ['attributes.plan', 'in', ['pro', 'enterprise'], 'acil'],
    ['attributes.plan', 'nin', ['pro', 'free'], 'defghijk'],
    ['attributes.plan', 'exists', undefined, 'abcil'],
    ['attributes.plan', 'notExists', undefined, 'defghjk'],
    ['attributes.age', 'eq', 30, 'a'],
    ['attributes.age', 'eq', '30', 'f'],
    ['attributes.age', 'gt', 18, 'ac'],
    ['attributes.age', 'gte', 30, 'ac'],
    ['attributes.age', 'lt', 30, 'b'],
    ['attributes.age', 'lte', 17, 'b'],
    ['attributes.age', 'gt', '18', 'f'],
    ['attributes.tags', 'eq', 'vip', ''],
    ['attributes.address.country', 'eq', 'GB', 'a'],
    ['attributes.address.country', 'neq', 'GB', 'bcdefghijkl'],
    ['attributes.address.country', 'exists', undefined, 'ag'],
    ['attributes.address.country', 'notExists', undefined, 'bcdefhijkl'],
    ['attributes.address', 'exists', undefined, 'agl'],
    ['attributes.beta', 'eq', true, 'c'],
    ['attributes.beta', 'eq', false, 'j'],
    ['attributes.beta', 'neq', true, 'abdefghijkl'],
    ['attributes.level', 'in', [1], 'j'],
    ['attributes.level', 'in', ['1'], 'k'],
    ['attributes.level', 'in', [1, '1'], 'jk'],
    ['attributes.since', 'gt', '2025-12-31', 'h'],
    ['attributes.since', 'lt', '2026-01-01', 'g'],
    ['attributes.score', 'gte', 2.5, 'h'],
    ['attributes.score', 'lt', 2.5, ''],
    ["attributes.o'k", 'eq', "it's", 'a'],
  ])('%s %s %j → %s', async (field, op, value, expected) => {
    expect(await members(rule(field, op, value))).toBe(expected);
  });
});

describe('segments against Postgres: groups, exclusions and paging', () => {
  it('nests all and any', async () => {
    const iosProOrBritish = { all: [{ field: 'platform', op: 'eq', value: 'ios' }, { any: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }, { field: 'locale', op: 'eq', value: 'en-GB' }] }] };
    expect(await members(iosProOrBritish)).toBe('agil');
    const olderAndroidOrU12 = { any: [{ all: [{ field: 'platform', op: 'eq', value: 'android' }, { field: 'attributes.age', op: 'gt', value: 40 }] }, { field: 'clientUserId', op: 'eq', value: 'u12' }] };
    expect(await members(olderAndroidOrU12)).toBe('cl');
  });

  it('never holds unsubscribed or deleted devices, nor another app’s or another account’s', async () => {
    // The outsiders match every one of these rules; the rules match devices of the app too, so each query runs.
    expect(await members({ all: [] })).toBe(everyone);
    expect(await members(rule('clientUserId', 'eq', 'u1'))).toBe('ai');
    expect(await members(rule('attributes.address.country', 'eq', 'GB'))).toBe('a');
  });

  it('pages a segment in id order, each device exactly once, whatever the page size', async () => {
    const segment = { appId: account.appId, rules: segmentRulesSchema.parse({ all: [] }) };
    for (const limit of [1, 3, 12, 100]) {
      const seen: string[] = [];
      let afterDeviceId: string | undefined;
      for (;;) {
        const page = await pageSegmentDevices(orm.em.fork(), segment, { afterDeviceId, limit });
        seen.push(...page.map((device) => device.deviceId));
        if (page.length < limit) break;
        afterDeviceId = page.at(-1)!.deviceId;
      }
      expect(seen).toEqual([...ids.entries()].filter(([name]) => !outsiders.includes(name)).map(([, id]) => id).sort());
    }
    const [first] = await pageSegmentDevices(orm.em.fork(), segment, { limit: 1 });
    expect(first).toEqual({ deviceId: expect.any(String), token: `tok-${nameOf.get(first!.deviceId)}`, platform: expect.stringMatching(/^(ios|android|web)$/) });
  });

  it('refuses a page size out of range and an after id that is not a device id', async () => {
    const segment = { appId: account.appId, rules: segmentRulesSchema.parse({ all: [] }) };
    await expect(pageSegmentDevices(orm.em.fork(), segment, { limit: 0 })).rejects.toThrow(RangeError);
    await expect(pageSegmentDevices(orm.em.fork(), segment, { limit: 10_001 })).rejects.toThrow(RangeError);
    await expect(pageSegmentDevices(orm.em.fork(), segment, { limit: 5, afterDeviceId: "x' or 1=1" })).rejects.toThrow(RangeError);
  });
});

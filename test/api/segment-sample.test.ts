import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { newSegment, registerDevices } from '../support/devices.ts';

let account: TestAccount;
let other: TestAccount;
let devicesByToken: Map<string, string>;

beforeAll(async () => {
  [account, other] = await Promise.all([newAccount(), newAccount()]);
  devicesByToken = await registerDevices(account, [
    ...Array.from({ length: 12 }, (_, index) => ({ token: `sample-pro-${index}`, platform: 'ios', attributes: { plan: 'pro' } })),
    { token: 'sample-free', platform: 'ios', attributes: { plan: 'free' } },
    { token: 'sample-gone', platform: 'ios', attributes: { plan: 'pro' }, subscribed: false },
  ]);
});

const pro = { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] };
const sample = (query: string, owner = account) => call('GET', `/filter/sample?${query}`, { token: owner.apiKey });

describe('GET /filter/sample', () => {
  it('answers the live count and the first matching devices by device id, 10 unless told', async () => {
    const segment = await newSegment(account, pro);
    const matching = [...devicesByToken].filter(([token]) => /^sample-pro-/.test(token)).map(([, id]) => id).sort();

    const first = await sample(`id=${segment.id}`);
    expect(first.status).toBe(200);
    expect(first.body.id).toBe(segment.id);
    expect(first.body.deviceCount).toBe(12);
    expect(first.body.items.map((device: { deviceId: string }) => device.deviceId)).toEqual(matching.slice(0, 10));
    expect(first.body.items[0]).toMatchObject({ appId: account.appId, platform: 'ios', subscribed: true, attributes: { plan: 'pro' } });

    const three = await sample(`id=${segment.id}&limit=3`);
    expect(three.body.items.map((device: { deviceId: string }) => device.deviceId)).toEqual(matching.slice(0, 3));
  });

  it('counts live: a device registered since is in the next answer', async () => {
    const segment = await newSegment(account, { all: [{ field: 'attributes.plan', op: 'eq', value: 'free' }] });
    expect((await sample(`id=${segment.id}`)).body.deviceCount).toBe(1);
    await registerDevices(account, [{ token: 'sample-free-2', platform: 'android', attributes: { plan: 'free' } }]);
    const after = await sample(`id=${segment.id}`);
    expect(after.body.deviceCount).toBe(2);
    expect(after.body.items).toHaveLength(2);
  });

  it('refuses a limit out of 1 to 50 (400) and another account’s segment (404)', async () => {
    const segment = await newSegment(account, pro);
    for (const limit of ['0', '51', 'ten']) {
      const refused = await sample(`id=${segment.id}&limit=${limit}`);
      expect(refused.status, limit).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }
    const foreign = await sample(`id=${segment.id}`, other);
    expect(foreign.status).toBe(404);
    expect((await sample('id=not-a-uuid')).status).toBe(400);
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { frequencyCapGate } from '../../src/domain/sends/frequency-cap.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { newAccount } from '../support/api.ts';
import { registerDevices } from '../support/devices.ts';

// The cap's gate against real Postgres: sends that take the same devices at the same moment, each from a pool
// connection of its own, never let a device past its cap; a push given back frees its place; an A/B arm's gate
// records without holding.

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 8);
});
afterAll(() => orm?.close());

async function newDevices(count: number, tag: string): Promise<string[]> {
  const account = await newAccount();
  const ids = await registerDevices(account, Array.from({ length: count }, (_, index) => ({ token: `${tag}-${index}`, platform: 'ios' })));
  return [...ids.values()];
}

const recentPushes = async (deviceIds: string[]) => {
  const rows = await orm.em.fork().getConnection().execute<Array<{ n: number }>>(
    `select coalesce(cardinality(recent_pushes), 0) as n from devices where id in (${deviceIds.map(() => '?').join(', ')})`,
    deviceIds,
  );
  return rows.map((row) => Number(row.n));
};

describe('frequencyCapGate', () => {
  it('lets each device through at most `max` times however many sends take it at once', async () => {
    const cap = { max: 2, hours: 24 };
    // Rounds of six sends, each taking every device of the round, all at once, in different orders.
    for (let round = 0; round < 5; round++) {
      const devices = await newDevices(30, `cap-race-${round}`);
      const takes = await Promise.all(
        Array.from({ length: 6 }, (_, send) => frequencyCapGate(orm.em.fork(), cap, { enforce: true }).take(send % 2 ? [...devices].reverse() : devices)),
      );
      for (const device of devices) expect(takes.filter((taken) => taken.allowed.has(device)).length).toBe(2);
      expect(await recentPushes(devices)).toEqual(devices.map(() => 2));
    }
  });

  it('frees the place of a push given back, and forgets pushes older than the window', async () => {
    const [device] = await newDevices(1, 'cap-back');
    const gate = frequencyCapGate(orm.em.fork(), { max: 1, hours: 1 }, { enforce: true });
    const first = await gate.take([device!]);
    expect(first.allowed).toEqual(new Set([device]));
    expect((await gate.take([device!])).allowed.size).toBe(0);
    await gate.giveBack([device!], first.at);
    expect((await gate.take([device!])).allowed).toEqual(new Set([device]));
    // Two hours on, the push is out of the window: the device may have another, and the old time is pruned.
    await orm.em.fork().getConnection().execute(`update devices set recent_pushes = array[now() - interval '2 hours'] where id = ?`, [device]);
    expect((await gate.take([device!])).allowed).toEqual(new Set([device]));
    expect(await recentPushes([device!])).toEqual([1]);
  });

  it('records without holding for a send the cap must not bias (an A/B arm)', async () => {
    const [device] = await newDevices(1, 'cap-arm');
    const cap = { max: 1, hours: 24 };
    expect((await frequencyCapGate(orm.em.fork(), cap, { enforce: true }).take([device!])).allowed.size).toBe(1);
    expect((await frequencyCapGate(orm.em.fork(), cap, { enforce: false }).take([device!])).allowed.size).toBe(1);
    expect(await recentPushes([device!])).toEqual([2]);
    expect((await frequencyCapGate(orm.em.fork(), cap, { enforce: true }).take([device!])).allowed.size).toBe(0);
  });
});

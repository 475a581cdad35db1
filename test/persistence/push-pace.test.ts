import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { createPushPace } from '../../src/persistence/push-pace.ts';
import { query } from '../support/db.ts';

// The push pace row (docs/adr/0056) against the run's database: 600 a minute, so a slot is 100 ms and a reservation
// of 10 one second. The waits are compared within 100 ms: two statements on a loaded machine.
let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

const toleranceMs = 100;
/** Moves the row's next slot to `offsetMs` from now, as a sender that used its slots that long ago leaves it. */
const nextSlotIn = (key: string, offsetMs: number) =>
  query(`update push_pace set next_at = clock_timestamp() + make_interval(secs => $2) where key = $1`, [key, offsetMs / 1000]);

describe('the push pace: one row, reserved a wave at a time', () => {
  it('gives a wave the slots after the last one reserved, and a fresh key its slots now', async () => {
    const key = `test:${randomUUID()}`;
    const pace = createPushPace(orm.em, { key, perMinute: 600 });
    expect(pace.slotMs).toBe(100);
    expect(Math.abs((await pace.reserve(10)).waitMs)).toBeLessThanOrEqual(toleranceMs);
    expect(Math.abs((await pace.reserve(10)).waitMs - 1000)).toBeLessThanOrEqual(toleranceMs);
  });

  it('gives back the slots a sender overran, up to one wave of them, and no more credit while idle', async () => {
    const key = `test:${randomUUID()}`;
    const pace = createPushPace(orm.em, { key, perMinute: 600 });
    await pace.reserve(10);
    // The last wave's slots ended 300 ms ago (its answers and the next claim took that long): the next wave's began then.
    await nextSlotIn(key, -300);
    expect(Math.abs((await pace.reserve(10)).waitMs + 300)).toBeLessThanOrEqual(toleranceMs);
    // Idle for a minute: one wave's slots back, not a minute's.
    await nextSlotIn(key, -60_000);
    expect(Math.abs((await pace.reserve(10)).waitMs + 1000)).toBeLessThanOrEqual(toleranceMs);
  });
});

import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import { startRelayLoop, type RunningRelay } from '../../src/outbox/relay-loop.ts';
import { query } from '../support/db.ts';

const logger = pino({ level: 'silent' });
let relay: RunningRelay | undefined;
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
});

/** A relay whose batches report to the test: each call resolves `next()` with the call's number. */
function observedRelay(channel: string, relayBatch: (call: number) => Promise<number>, pollIntervalMs = 60_000, lingerMs = 0) {
  let calls = 0;
  const waiters: Array<(call: number) => void> = [];
  relay = startRelayLoop({
    name: 'test',
    databaseUrl: inject('databaseUrl'),
    channel,
    pollIntervalMs,
    lingerMs,
    logger,
    relayBatch: async () => {
      calls += 1;
      const call = calls;
      try {
        return await relayBatch(call);
      } finally {
        waiters.splice(0).forEach((resolve) => resolve(call));
      }
    },
  });
  return { next: () => new Promise<number>((resolve) => waiters.push(resolve)) };
}

describe('the outbox relay loop', () => {
  it('looks again at once while batches find work, then waits for a NOTIFY (the poll is an hour away)', async () => {
    const channel = `relay_${randomUUID().replaceAll('-', '')}`;
    const found = [3, 2, 0];
    const observed = observedRelay(channel, async (call) => found[call - 1] ?? 0);
    // The listener's first connection wakes the loop once as well, so wait until it has drained that.
    while ((await observed.next()) < 3);
    const woken = observed.next();
    await query('select pg_notify($1, $2)', [channel, '']);
    expect(await woken).toBeGreaterThanOrEqual(4);
  });

  it('keeps going after a failing batch: the rows stay, and the next attempt relays them', async () => {
    const channel = `relay_${randomUUID().replaceAll('-', '')}`;
    const outcomes: Array<'fail' | number> = ['fail', 'fail', 5, 0];
    const moved: number[] = [];
    const observed = observedRelay(
      channel,
      async (call) => {
        const outcome = outcomes[call - 1] ?? 0;
        if (outcome === 'fail') throw new Error('Temporal is down');
        moved.push(outcome);
        return outcome;
      },
      10,
    );
    while ((await observed.next()) < 4);
    expect(moved.slice(0, 2)).toEqual([5, 0]);
  });

  it('lingers after a batch that moved rows, even when a NOTIFY comes', async () => {
    const channel = `relay_${randomUUID().replaceAll('-', '')}`;
    const lingerMs = 400;
    const startedAt: number[] = [];
    const endedAt: number[] = [];
    const found = [0, 2, 0];
    const observed = observedRelay(
      channel,
      async (call) => {
        startedAt[call] = performance.now();
        const moved = found[call - 1] ?? 0;
        endedAt[call] = performance.now();
        return moved;
      },
      60_000,
      lingerMs,
    );
    expect(await observed.next()).toBe(1); // the listener's first connection: nothing found
    const second = observed.next();
    await query('select pg_notify($1, $2)', [channel, '']);
    expect(await second).toBe(2); // woken at once, and it finds work
    const third = observed.next();
    await query('select pg_notify($1, $2)', [channel, '']);
    expect(await third).toBe(3);
    expect(startedAt[3]! - endedAt[2]!).toBeGreaterThanOrEqual(lingerMs - 5);
  });

  it('takes a row at once with a lane asleep, while another lane lingers after its batch', async () => {
    const channel = `relay_${randomUUID().replaceAll('-', '')}`;
    const lingerMs = 4_000;
    let pending = 0;
    const moves: Array<() => void> = [];
    relay = startRelayLoop({
      name: 'test',
      databaseUrl: inject('databaseUrl'),
      channel,
      pollIntervalMs: 60_000,
      lanes: 2,
      lingerMs,
      logger,
      relayBatch: async () => {
        if (pending === 0) return 0;
        pending -= 1;
        moves.splice(0).forEach((moved) => moved());
        return 1;
      },
    });
    const rowComes = async () => {
      const moved = new Promise<void>((resolve) => moves.push(resolve));
      pending += 1;
      const notifiedAt = performance.now();
      await query('select pg_notify($1, $2)', [channel, '']);
      await moved;
      return performance.now() - notifiedAt;
    };
    await rowComes(); // one lane takes it, and lingers
    expect(await rowComes()).toBeLessThan(lingerMs / 2); // the other, asleep, is woken for the next
  });

  it('claims nothing after stop, though the batch in flight when it was called found work', async () => {
    const channel = `relay_${randomUUID().replaceAll('-', '')}`;
    let release!: () => void;
    const inFlight = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const observed = observedRelay(channel, async () => {
      calls += 1;
      if (calls === 1) await inFlight;
      return 1; // "found work": a running loop would call again at once
    });
    const stopping = relay!.stop();
    release();
    expect(await observed.next()).toBe(1);
    await stopping;
    expect(calls).toBe(1);
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A push provider's pace, shared by every worker of the deployment: one `push_pace` row per provider key holds the
 * time the next slot begins. Reserving n messages moves it n slots on, in one statement, on the database's clock,
 * from where it was or from one reservation's length ago, whichever is later: a sender whose last wave overran its
 * slots (its answers and the next claim take time) gets those slots back instead of losing them, and no more credit
 * builds up while it is idle. The caller sends each message when its own slot begins
 * (src/domain/sends/send-in-slots.ts). However many sends and workers draw on it, a window of a minute holds at
 * most `perMinute` messages and one wave per sender, and a provider's Retry-After holds everyone back (docs/adr/0056).
 */
export interface PushPace {
  /** One message's slot: 60,000 / perMinute ms. */
  readonly slotMs: number;
  /** Reserves `count` slots; the first begins `waitMs` from now (a negative wait: it began that long ago). */
  reserve(count: number): Promise<{ waitMs: number }>;
  /** Nothing more goes before `waitMs` from now (the provider said 429 with Retry-After). */
  holdFor(waitMs: number): Promise<void>;
}

/** Reserved slots: the first began at `beganAt` (`performance.now()` ms), each is `slotMs` long. */
export interface Slots {
  beganAt: number;
  slotMs: number;
}

/** Reserves `count` slots and waits until the first begins (or the signal aborts). */
export async function takeSlots(pace: PushPace, count: number, signal?: AbortSignal): Promise<Slots> {
  const { waitMs } = await pace.reserve(count);
  if (waitMs >= 1) await sleep(waitMs, undefined, signal ? { signal } : undefined);
  return { beganAt: performance.now() + Math.min(0, waitMs), slotMs: pace.slotMs };
}

export function createPushPace(em: EntityManager, options: { key: string; perMinute: number }): PushPace {
  const intervalMs = 60_000 / options.perMinute;
  return {
    slotMs: intervalMs,
    async reserve(count) {
      const seconds = (count * intervalMs) / 1000;
      const [row] = await em.fork().getConnection().execute<Array<{ wait_ms: string }>>(
        `insert into push_pace (key, next_at) values (?, clock_timestamp() + make_interval(secs => ?))
         on conflict (key) do update
           set next_at = greatest(push_pace.next_at, clock_timestamp() - make_interval(secs => ?)) + make_interval(secs => ?)
         returning extract(epoch from (next_at - clock_timestamp())) * 1000 - ? as wait_ms`,
        [options.key, seconds, seconds, seconds, count * intervalMs],
      );
      return { waitMs: Number(row!.wait_ms) };
    },
    async holdFor(waitMs) {
      await em.fork().getConnection().execute(
        `insert into push_pace (key, next_at) values (?, clock_timestamp() + make_interval(secs => ?))
         on conflict (key) do update set next_at = greatest(push_pace.next_at, excluded.next_at)`,
        [options.key, waitMs / 1000],
      );
    },
  };
}

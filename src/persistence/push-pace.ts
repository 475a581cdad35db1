import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A push provider's pace, shared by every worker of the deployment: one `push_pace` row per provider key holds the
 * earliest time the next message may go. Reserving n messages moves it n slots on, in one statement, on the
 * database's clock; the caller sends each message when its own slot begins (src/domain/sends/send-in-slots.ts).
 * However many sends and workers draw on it, no window holds more than its share of `perMinute` messages and about
 * one more, and a provider's Retry-After holds everyone back (docs/adr/0056).
 */
export interface PushPace {
  /** One message's slot: 60,000 / perMinute ms. */
  readonly slotMs: number;
  /** Reserves `count` slots; they begin `waitMs` from now. */
  reserve(count: number): Promise<{ waitMs: number }>;
  /** Nothing more goes before `waitMs` from now (the provider said 429 with Retry-After). */
  holdFor(waitMs: number): Promise<void>;
}

/**
 * Reserves `count` slots and waits until the first begins (or the signal aborts); answers the slots' length, so the
 * caller can send the i-th message i slots later.
 */
export async function takeSlots(pace: PushPace, count: number, signal?: AbortSignal): Promise<number> {
  const { waitMs } = await pace.reserve(count);
  if (waitMs >= 1) await sleep(waitMs, undefined, signal ? { signal } : undefined);
  return pace.slotMs;
}

export function createPushPace(em: EntityManager, options: { key: string; perMinute: number }): PushPace {
  const intervalMs = 60_000 / options.perMinute;
  return {
    slotMs: intervalMs,
    async reserve(count) {
      const [row] = await em.fork().getConnection().execute<Array<{ wait_ms: string }>>(
        `insert into push_pace (key, next_at) values (?, clock_timestamp() + make_interval(secs => ?))
         on conflict (key) do update set next_at = greatest(push_pace.next_at, clock_timestamp()) + make_interval(secs => ?)
         returning extract(epoch from (next_at - clock_timestamp())) * 1000 - ? as wait_ms`,
        [options.key, (count * intervalMs) / 1000, (count * intervalMs) / 1000, count * intervalMs],
      );
      return { waitMs: Math.max(0, Number(row!.wait_ms)) };
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

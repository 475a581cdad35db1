import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A push provider's pace, shared by every worker of the deployment: one `push_pace` row per provider key holds the
 * earliest time the next message may go. Reserving n messages moves it n intervals on, in one statement, on the
 * database's clock; the caller sends them when their slots begin. However many sends and workers draw on it, no window of a
 * minute holds more than `perMinute` messages, and a provider's Retry-After holds everyone back (docs/adr/0056).
 */
export interface PushPace {
  /** Reserves `count` slots; they begin `waitMs` from now. */
  reserve(count: number): Promise<{ waitMs: number }>;
  /** Nothing more goes before `waitMs` from now (the provider said 429 with Retry-After). */
  holdFor(waitMs: number): Promise<void>;
}

/** Reserves `count` slots and waits until they begin (or the signal aborts). */
export async function takeSlots(pace: PushPace, count: number, signal?: AbortSignal): Promise<void> {
  const { waitMs } = await pace.reserve(count);
  if (waitMs >= 1) await sleep(waitMs, undefined, signal ? { signal } : undefined);
}

export function createPushPace(em: EntityManager, options: { key: string; perMinute: number }): PushPace {
  const intervalMs = 60_000 / options.perMinute;
  return {
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

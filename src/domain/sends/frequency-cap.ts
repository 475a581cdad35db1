import type { EntityManager } from '@mikro-orm/postgresql';
import type { FrequencyCap } from '../../persistence/entities/app.ts';
import { marks } from './send-scope.ts';

/** Limits an app's frequency cap may have. */
export const maxCapPushes = 1000;
export const maxCapHours = 720;

/** What a wave of a send takes from its devices' caps. */
export interface CapTaken {
  /** The devices that may be sent to: each now has this push among its recent ones. */
  allowed: Set<string>;
  /** The time it was recorded at (Postgres text, to the microsecond), to give it back by. */
  at: string;
}

/**
 * An app's frequency cap as a send draws on it. A device's recent pushes are the times in its `recent_pushes`; taking
 * a push for a wave locks the wave's devices (in id order, so sends that overlap cannot deadlock) and then, in a
 * statement of its own that sees every commit before it, appends the time to each device whose pushes within the
 * window are fewer than `max`, pruning the older ones. Two sends that reach a device at once therefore take turns,
 * and the later sees the earlier's push: the cap holds under concurrency. `enforce: false` (A/B arms, which the cap
 * would bias) records the push without checking. A push not sent after all (refused, gone, handed back for a retry)
 * is given back.
 */
export interface CapGate {
  /** What a capped push's row says. */
  reason: string;
  take(deviceIds: string[]): Promise<CapTaken>;
  giveBack(deviceIds: string[], at: string): Promise<void>;
}

export function frequencyCapGate(em: EntityManager, cap: FrequencyCap, options: { enforce: boolean }): CapGate {
  const connection = em.getConnection();
  return {
    reason: `frequency cap: the device had ${cap.max} push(es) in the last ${cap.hours} hour(s)`,
    async take(deviceIds) {
      if (deviceIds.length === 0) return { allowed: new Set(), at: '' };
      return em.transactional(async (tx) => {
        // Both statements through the transaction's own connection (tx.execute): the locks hold until the commit.
        await tx.execute(`select id from devices where id in (${marks(deviceIds.length)}) order by id for update`, deviceIds);
        const rows = await tx.execute<Array<{ id: string; at: string }>>(
          `with kept as (
             select d.id, array(select t from unnest(coalesce(d.recent_pushes, '{}')) t where t > now() - make_interval(hours => ?)) as recent
               from devices d where d.id in (${marks(deviceIds.length)}))
           update devices d set recent_pushes = kept.recent || now()
             from kept where d.id = kept.id and cardinality(kept.recent) < ?
           returning d.id, now()::text as at`,
          [cap.hours, ...deviceIds, options.enforce ? cap.max : 2_147_483_647],
        );
        return { allowed: new Set(rows.map((row) => row.id)), at: rows[0]?.at ?? '' };
      });
    },
    async giveBack(deviceIds, at) {
      if (deviceIds.length === 0) return;
      await connection.execute(`update devices set recent_pushes = array_remove(recent_pushes, ?::timestamptz) where id in (${marks(deviceIds.length)})`, [at, ...deviceIds]);
    },
  };
}

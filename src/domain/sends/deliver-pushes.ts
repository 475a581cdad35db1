import type { EntityManager } from '@mikro-orm/postgresql';
import type { PushNotification, PushPlatform, PushProvider, PushResult } from '../../outbound/push/push-provider.ts';
import { marks, rangeCondition, scopeCondition, type DeviceRange, type SendScope } from './send-scope.ts';

/**
 * The one send engine: A/B arms, the A/B remainder, campaigns and test sends all go through `deliverPushes`.
 *
 * A send's rows are written `pending` before it starts (its snapshot). The engine then works in waves of the
 * provider's `waveSize`, in device id order: it waits for the wave's slots in the provider's pace, claims a wave (`pending` → `sending`, one statement), hands those
 * messages to the provider, and stores every answer (one statement), unsubscribing devices whose token is gone. A
 * wave whose provider asked to retry hands those rows back (`pending`) and ends the call with `retry`, so the next
 * attempt, resuming after the last whole wave, sends exactly them. A row is claimed once, so it is sent at most once:
 * rows an attempt left `sending` when it died are marked `unconfirmed`, never sent again (docs/adr/0055).
 */

export interface DeliverDeps {
  em: EntityManager;
  push: PushProvider;
  /** Called after each whole wave with its last device, so a retry resumes after it (the activity heartbeats it). */
  progress?: (lastDeviceId: string) => void;
  signal?: AbortSignal | undefined;
}

export interface DeliverInput {
  scope: SendScope;
  range: DeviceRange;
  /** Where an earlier attempt got to (its last progress), within the range. */
  resumeAfter?: string | null | undefined;
  notification: PushNotification;
  /** Extra string pairs every push of this send carries (e.g. the A/B test and arm). */
  data: Record<string, string>;
}

export type DeliverOutcome = { kind: 'done' } | { kind: 'retry'; reason: string; afterMs?: number };

interface ClaimedRow {
  send_id: string;
  device_id: string;
  token: string | null;
  platform: PushPlatform;
  reachable: boolean;
}

const inFlightWhenStopped = 'in flight when its send attempt stopped (a worker crash); not sent again, so the device gets no second push';

export async function deliverPushes(deps: DeliverDeps, input: DeliverInput): Promise<DeliverOutcome> {
  const connection = deps.em.getConnection();
  const scope = scopeCondition(input.scope);
  const range = rangeCondition(input.range);
  // This attempt is the only one working this range now: whatever is still `sending` was an earlier one's.
  await connection.execute(
    `update push_sends s set status = 'unconfirmed', error = ? where ${scope.sql} and ${range.sql} and s.status = 'sending'`,
    [inFlightWhenStopped, ...scope.params, ...range.params],
  );
  let after = input.resumeAfter ?? input.range.after;
  for (;;) {
    deps.signal?.throwIfAborted();
    await deps.push.pace?.(deps.push.waveSize, deps.signal);
    const wave = rangeCondition({ after, upTo: input.range.upTo });
    // Its own transaction, committed before anything is sent: a worker that dies while claiming leaves nothing
    // claimed, and once the commit is acknowledged the wave's requests leave at once.
    const claimed = await deps.em.transactional((tx) => tx.execute<ClaimedRow[]>(
      `with wave as (
         select s.id from push_sends s
          where ${scope.sql} and ${wave.sql} and s.status = 'pending'
          order by s.device_id limit ? for update skip locked)
       update push_sends s set status = 'sending'
         from wave, devices d
        where s.id = wave.id and d.id = s.device_id
       returning s.id as send_id, s.device_id, d.token, d.platform, (d.subscribed and d.deleted_at is null) as reachable`,
      [...scope.params, ...wave.params, deps.push.waveSize],
    ));
    if (claimed.length === 0) return { kind: 'done' };
    const reachable = claimed.filter((row) => row.reachable && row.token !== null);
    const results = reachable.length
      ? await deps.push.sendBatch(
          reachable.map((row) => ({ sendId: row.send_id, token: row.token!, platform: row.platform, notification: input.notification, data: input.data })),
          deps.signal,
        )
      : [];
    await storeOutcomes(deps.em, claimed, results);
    const retry = results.filter((result) => result.outcome === 'retry');
    if (retry.length) {
      const afterMs = Math.max(0, ...retry.map((result) => result.retryAfterMs ?? 0));
      const reason = `${retry.length} push(es) to retry: ${retry[0]!.error ?? 'the provider asked to retry'}`;
      return afterMs ? { kind: 'retry', reason, afterMs } : { kind: 'retry', reason };
    }
    after = claimed.reduce((last, row) => (row.device_id > last ? row.device_id : last), claimed[0]!.device_id);
    deps.progress?.(after);
  }
}

/**
 * One statement for a wave's answers: each row's outcome, `pending` again for a retry, `skipped` for a device that
 * left since the snapshot. One more for the devices that unregistered.
 */
async function storeOutcomes(em: EntityManager, claimed: ClaimedRow[], results: PushResult[]): Promise<void> {
  const answered = new Map(results.map((result) => [result.sendId, result]));
  const rows = claimed.map((row) => {
    const result = answered.get(row.send_id);
    if (!result) return [row.send_id, 'skipped', 'the device unsubscribed or was deleted after the snapshot', null];
    const status = result.outcome === 'retry' ? 'pending' : result.outcome;
    return [row.send_id, status, result.outcome === 'sent' ? null : (result.error ?? null), result.providerMessageId ?? null];
  });
  const connection = em.getConnection();
  await connection.execute(
    `update push_sends s set status = v.status, error = v.error, provider_message_id = v.provider_message_id,
            sent_at = case when v.status = 'sent' then now() else null end
       from (values ${rows.map(() => '(?::uuid, ?, ?, ?)').join(', ')}) as v(id, status, error, provider_message_id)
      where s.id = v.id and s.status = 'sending'`,
    rows.flat(),
  );
  const gone = new Set(results.filter((result) => result.outcome === 'unregistered').map((result) => result.sendId));
  const devices = claimed.filter((row) => gone.has(row.send_id)).map((row) => row.device_id);
  if (devices.length) await connection.execute(`update devices set subscribed = false, updated_at = now() where id in (${marks(devices.length)})`, devices);
}

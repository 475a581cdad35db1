import type { EntityManager } from '@mikro-orm/postgresql';
import { inFlightWhenStopped, unsubscribeUnregistered, type ClaimedPush, type WaveSource } from './deliver-pushes.ts';
import { rangeCondition, scopeCondition, type DeviceRange, type SendScope } from './send-scope.ts';

interface ClaimedRow {
  send_id: string;
  device_id: string;
  token: string | null;
  platform: ClaimedPush['platform'];
  reachable: boolean;
  timezone: string | null;
}

/**
 * The `pending` rows of a scope's range as a wave source: each wave is claimed `pending` → `sending` in one statement
 * of its own transaction, and answered in one more. Whatever is still `sending` when the source opens was left by an
 * earlier attempt that died: it turns `unconfirmed`.
 */
export async function pendingRows(em: EntityManager, input: { scope: SendScope; range: DeviceRange; resumeAfter?: string | null | undefined }): Promise<WaveSource> {
  const connection = em.getConnection();
  const scope = scopeCondition(input.scope);
  const range = rangeCondition(input.range);
  // This attempt is the only one working this range now: whatever is still `sending` was an earlier one's.
  await connection.execute(
    `update push_sends s set status = 'unconfirmed', error = ? where ${scope.sql} and ${range.sql} and s.status = 'sending'`,
    [inFlightWhenStopped, ...scope.params, ...range.params],
  );
  let after = input.resumeAfter ?? input.range.after;
  return {
    async claim(size) {
      const wave = rangeCondition({ after, upTo: input.range.upTo });
      // Its own transaction, committed before anything is sent: a worker that dies while claiming leaves nothing
      // claimed, and once the commit is acknowledged the wave's requests leave at once.
      const rows = await em.transactional((tx) => tx.execute<ClaimedRow[]>(
        `with wave as (
           select s.id from push_sends s
            where ${scope.sql} and ${wave.sql} and s.status = 'pending' and (s.not_before is null or s.not_before <= now())
            order by s.device_id limit ? for update skip locked)
         update push_sends s set status = 'sending'
           from wave, devices d
          where s.id = wave.id and d.id = s.device_id
         returning s.id as send_id, s.device_id, d.token, d.platform, d.timezone, (d.subscribed and d.deleted_at is null) as reachable`,
        [...scope.params, ...wave.params, size],
      ));
      const claimed = rows
        .map((row): ClaimedPush => ({ sendId: row.send_id, deviceId: row.device_id, token: row.token, platform: row.platform, reachable: row.reachable, timezone: row.timezone }))
        .sort((a, b) => (a.deviceId < b.deviceId ? -1 : 1));
      if (claimed.length) after = claimed.at(-1)!.deviceId;
      return claimed;
    },
    async store(wave, answers) {
      await connection.execute(
        `update push_sends s set status = v.status, error = v.error, provider_message_id = v.provider_message_id,
                not_before = coalesce(v.not_before, s.not_before), sent_at = case when v.status = 'sent' then now() else null end
           from (values ${answers.map(() => '(?::uuid, ?, ?, ?, ?::timestamptz)').join(', ')}) as v(id, status, error, provider_message_id, not_before)
          where s.id = v.id and s.status = 'sending'`,
        wave.flatMap((push, index) => {
          const answer = answers[index]!;
          return [push.sendId, answer.status, answer.error, answer.providerMessageId, answer.notBefore === undefined ? null : new Date(answer.notBefore).toISOString()];
        }),
      );
      await unsubscribeUnregistered(em, wave, answers);
    },
  };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { derivedUuid } from '../../security/ids.ts';
import { inFlightWhenStopped, unsubscribeUnregistered, type Answer, type ClaimedPush, type WaveSource } from '../sends/deliver-pushes.ts';
import { pendingRows } from '../sends/pending-rows.ts';

interface ShardRow {
  claimed: number;
  done: number;
  retries: number;
  account_id: string;
  last: string | null;
  previous_last: string | null;
}

interface WaveRow {
  position: number;
  device_id: string;
  token: string | null;
  platform: ClaimedPush['platform'];
  reachable: boolean;
  timezone: string | null;
}

/**
 * A campaign shard's push ids: the shard's own UUID (derived from the message and the shard) with the device's
 * position in the shard in its last eight hex digits. Known before the push is sent, and the same for the row written
 * after a crash, so a click on a push whose answer was lost still counts. `sql` builds the same id in a statement.
 */
export function shardSendIds(notificationId: string, shard: number) {
  const prefix = derivedUuid(notificationId, 'shard', String(shard)).slice(0, 28);
  return {
    /** The first 28 characters of every id of the shard (`left(id::text, 28)` in SQL). */
    prefix,
    of: (position: number) => `${prefix}${position.toString(16).padStart(8, '0')}`,
    /** The id of the device at the 0-based position `positionSql`, as SQL, and its one parameter (the prefix). */
    sql: (positionSql: string) => ({ sql: `(?::text || lpad(to_hex(${positionSql}), 8, '0'))::uuid`, param: prefix }),
  };
}

/**
 * The wave sources of one campaign shard (docs/adr/0059): first its `pending` rows (devices the provider asked to
 * retry, written back by an earlier attempt), then its snapshot from `claimed` on. A wave of the snapshot is claimed by
 * moving the shard's `claimed` (one statement, committed before anything is sent, that answers the wave's devices)
 * and stored by inserting its rows with their answers and moving `done`, in one more. Opening the source settles an
 * earlier attempt that died: the devices it had claimed and not stored get `unconfirmed` rows, never sent again.
 * Only while the campaign is SENDING: a cancelled send claims nothing more.
 */
export async function campaignShardSources(em: EntityManager, input: { notificationId: string; position: number }): Promise<WaveSource[]> {
  const connection = em.getConnection();
  const { notificationId, position } = input;
  const ids = shardSendIds(notificationId, position);
  const [shard] = await connection.execute<ShardRow[]>(
    `select cs.claimed, cs.done, cs.retries, c.account_id, cs.device_ids[cs.size] as last,
            (select p.device_ids[p.size] from campaign_shards p where p.notification_id = cs.notification_id and p.position = cs.position - 1) as previous_last
       from campaign_shards cs join campaigns c on c.notification_id = cs.notification_id
      where cs.notification_id = ? and cs.position = ?`,
    [notificationId, position],
  );
  if (!shard) throw new Error(`campaign ${notificationId} has no shard ${position}`);

  /**
   * Inserts the rows of the shard's devices from position `from`, one per answer in order, and moves `done` past them.
   * Each answer travels as a short JSON array ([status] alone for a plain `sent`): the device and the send id are the
   * shard's own at that position, so the statement stays small (a statement text over V8's 128 KiB goes to the
   * large-object space, which only a full collection frees). `keepPresent` leaves a row that is there already.
   */
  const writeRows = async (from: number, answers: Answer[], keepPresent: boolean) => {
    const compact = answers.map((answer) =>
      answer.notBefore !== undefined
        ? [answer.status, answer.error, answer.providerMessageId, new Date(answer.notBefore).toISOString()]
        : answer.error === null && answer.providerMessageId === null
          ? [answer.status]
          : [answer.status, answer.error, answer.providerMessageId],
    );
    const id = ids.sql('? + w.n - 1');
    await connection.execute(
      `with answers as (
         select a.n, a.v ->> 0 as status, a.v ->> 1 as error, a.v ->> 2 as provider_message_id, (a.v ->> 3)::timestamptz as not_before
           from jsonb_array_elements(?::jsonb) with ordinality as a(v, n)),
       written as (
         insert into push_sends (id, account_id, source, device_id, notification_id, status, error, provider_message_id, not_before, sent_at, created_at)
         select ${id.sql}, ?, 'campaign', w.device_id, cs.notification_id, a.status, a.error, a.provider_message_id, a.not_before,
                case when a.status = 'sent' then now() end, now()
           from campaign_shards cs
           cross join lateral unnest(cs.device_ids[? + 1 : ?]) with ordinality as w(device_id, n)
           join answers a on a.n = w.n
          where cs.notification_id = ? and cs.position = ?
         ${keepPresent ? "on conflict (notification_id, device_id) where source = 'campaign' do nothing" : ''})
       update campaign_shards set done = greatest(done, ?), retries = retries + ? where notification_id = ? and position = ?`,
      [
        JSON.stringify(compact), id.param, from, shard.account_id, from, from + answers.length, notificationId, position,
        from + answers.length, answers.filter((answer) => answer.status === 'pending' && answer.notBefore === undefined).length, notificationId, position,
      ],
    );
  };

  if (shard.claimed > shard.done) {
    // Another attempt may still be storing that wave (it is not dead, only late): its answers then win.
    const unconfirmed: Answer = { status: 'unconfirmed', error: inFlightWhenStopped, providerMessageId: null };
    await writeRows(shard.done, Array.from({ length: shard.claimed - shard.done }, () => unconfirmed), true);
  }

  let waveStart = 0;
  const snapshot: WaveSource = {
    async claim(size) {
      const rows = await connection.execute<WaveRow[]>(
        `with current as (select claimed from campaign_shards where notification_id = ? and position = ? for update),
         moved as (
           update campaign_shards cs set claimed = least(current.claimed + ?, cs.size) from current
            where cs.notification_id = ? and cs.position = ? and cs.claimed < cs.size
              and exists (select 1 from campaigns c where c.notification_id = cs.notification_id and c.state = 'SENDING')
           returning current.claimed as start, cs.claimed as stop, cs.device_ids)
         select (moved.start + w.n - 1)::int as position, w.device_id, d.token, d.platform, d.timezone,
                coalesce(d.subscribed and d.deleted_at is null, false) as reachable
           from moved cross join lateral unnest(moved.device_ids[moved.start + 1 : moved.stop]) with ordinality as w(device_id, n)
           left join devices d on d.id = w.device_id
          order by w.n`,
        [notificationId, position, size, notificationId, position],
      );
      waveStart = rows[0]?.position ?? 0;
      return rows.map((row): ClaimedPush => ({
        sendId: ids.of(row.position),
        deviceId: row.device_id,
        token: row.token,
        platform: row.platform,
        reachable: row.reachable,
        timezone: row.timezone,
      }));
    },
    async store(wave, answers) {
      // No row can be there: only a late attempt storing a wave that a newer one settled meets one, and it then fails.
      await writeRows(waveStart, answers, false);
      await unsubscribeUnregistered(em, wave, answers);
    },
  };
  if (shard.retries === 0) return [snapshot];
  // Only an attempt after a retry finds rows of this shard to send first; the shard's devices are a device id range.
  const retried = await pendingRows(em, { scope: { kind: 'campaign', notificationId }, range: { after: shard.previous_last, upTo: shard.last } });
  return [retried, snapshot];
}

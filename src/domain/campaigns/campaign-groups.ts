import type { EntityManager } from '@mikro-orm/postgresql';
import type { CampaignGroupState } from '../../../workflows/campaign-send.contract.ts';
import type { CampaignState } from '../../persistence/entities/campaign.ts';
import { shardSendIds } from './campaign-shard-source.ts';

/** One group of a local-time send as GET /notification/get shows it. */
export interface CampaignGroupView {
  utcOffsetMinutes: number;
  sendAt: Date;
  devices: number;
  sent: number;
  state: CampaignGroupState | 'cancelled';
}

interface ShardRow {
  position: number;
  send_at: Date;
  utc_offset_minutes: number;
  size: number;
  claimed: number;
  done: number;
  expired: boolean;
}

/**
 * A local-time send's groups, counted now: each group's devices, and its pushes sent (a push's id carries its shard:
 * campaign-shard-source.ts). A group is `waiting` until a shard of it is claimed, `sent` once every device of it has
 * its row, `cancelled` when the send ended before that. Empty for a send not in local time.
 */
export async function viewCampaignGroups(em: EntityManager, notificationId: string, campaignState: CampaignState): Promise<CampaignGroupView[]> {
  const connection = em.getConnection();
  const shards = await connection.execute<ShardRow[]>(
    `select position, send_at, utc_offset_minutes, size, claimed, done, expired from campaign_shards
      where notification_id = ? and send_at is not null order by position`,
    [notificationId],
  );
  if (shards.length === 0) return [];
  const sentRows = await connection.execute<Array<{ prefix: string; sent: string }>>(
    `select left(id::text, 28) as prefix, count(*) as sent from push_sends
      where notification_id = ? and source = 'campaign' and status = 'sent' group by 1`,
    [notificationId],
  );
  const sentByPrefix = new Map(sentRows.map((row) => [row.prefix, Number(row.sent)]));
  const groups = new Map<number, CampaignGroupView & { claimed: number; done: number }>();
  for (const shard of shards) {
    const sendAt = new Date(shard.send_at);
    const group = groups.get(sendAt.getTime()) ?? { utcOffsetMinutes: shard.utc_offset_minutes, sendAt, devices: 0, sent: 0, state: 'waiting', claimed: 0, done: 0 };
    if (shard.expired) group.state = 'expired';
    group.devices += shard.size;
    group.claimed += shard.claimed;
    group.done += shard.done;
    group.sent += sentByPrefix.get(shardSendIds(notificationId, shard.position).prefix) ?? 0;
    groups.set(sendAt.getTime(), group);
  }
  const ended = campaignState !== 'SCHEDULED' && campaignState !== 'SENDING';
  return [...groups.values()].map(({ claimed, done, ...group }) => {
    if (group.state === 'expired') return group;
    const state = done >= group.devices ? 'sent' : ended ? 'cancelled' : claimed > 0 ? 'sending' : 'waiting';
    return { ...group, state };
  });
}

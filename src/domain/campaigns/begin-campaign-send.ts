import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CampaignSendGroup } from '../../../workflows/campaign-send.contract.ts';
import { App } from '../../persistence/entities/app.ts';
import { Campaign, type CampaignState } from '../../persistence/entities/campaign.ts';
import { CampaignShard } from '../../persistence/entities/campaign-shard.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import { Segment } from '../../persistence/entities/segment.ts';
import { derivedId, isUuid } from '../../security/ids.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { segmentCondition, type SqlCondition } from '../segments/segment-condition.ts';
import { groupByLocalTime, type ZoneCount } from './local-time-groups.ts';

/** Devices per shard (one activity each), unless the audience is so large that it would make more than `maxShards`. */
export const shardSize = 25_000;
const maxShards = 400;
/** Shards a send runs side by side. */
export const sendLanes = 4;

export type BeginCampaignOutcome =
  | { outcome: 'started'; audience: number; shards: number; lanes: number; startedAt: number; groups: CampaignSendGroup[] }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'not-scheduled'; state: Exclude<CampaignState, 'SCHEDULED' | 'SENDING'> };

/**
 * At send time: snapshots the segment (its subscribed, not deleted devices, in id order, cut into shards of about
 * `shardSize`, each shard's devices one array: docs/adr/0059) and marks the campaign SENDING. A send in local time
 * cuts each group of devices that share a UTC offset on the day into shards of its own, with the group's time, and
 * marks a group expired when its time plus the message's expiry has passed. A retry after the commit finds the
 * campaign SENDING and answers the same shards. A campaign cancelled meanwhile is left as it is.
 */
export async function beginCampaignSend(deps: PublishDeps, input: { notificationId: string; filterId: string }): Promise<BeginCampaignOutcome> {
  const begun = await deps.em.transactional(async (tx): Promise<BeginCampaignOutcome> => {
    const campaign = await tx.findOneOrFail(Campaign, { notificationId: input.notificationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (campaign.state === 'SENDING') return started(tx, campaign);
    if (campaign.state !== 'SCHEDULED') return { outcome: 'not-scheduled', state: campaign.state };
    const segment = isUuid(input.filterId) ? await tx.findOne(Segment, { id: input.filterId, appId: campaign.appId }) : null;
    if (!segment) {
      Object.assign(campaign, { state: 'FAILED', reason: 'the segment no longer exists', finishedAt: new Date() });
      return { outcome: 'failed', reason: 'the segment no longer exists' };
    }
    const where = segmentCondition(segment.rules, segment.appId);
    const audience = campaign.sendInLocalTime ? await snapshotInLocalTime(tx, campaign, where) : await snapshotAtPlayTime(tx, campaign, where);
    Object.assign(campaign, { state: 'SENDING', filterId: input.filterId, audience, startedAt: new Date() });
    return started(tx, campaign);
  });
  if (begun.outcome === 'started') {
    const campaign = await deps.em.fork().findOneOrFail(Campaign, { notificationId: input.notificationId });
    await publishEvent(deps, {
      eventId: derivedId('evt_', input.notificationId, 'message.sending'),
      accountId: campaign.accountId,
      type: 'message.sending',
      data: { result: { notificationId: campaign.notificationId, appId: campaign.appId, audience: begun.audience, playTime: campaign.playTime } },
    });
  }
  return begun;
}

/** The whole audience in shards of about `shardSize` (at most `maxShards` of them); answers its size. */
async function snapshotAtPlayTime(tx: EntityManager, campaign: Campaign, where: SqlCondition): Promise<number> {
  const [snapshot] = await tx.execute<Array<{ audience: number | null }>>(
    `with audience as (
       select d.id, row_number() over (order by d.id) - 1 as position, count(*) over () as total from devices d where ${where.sql}),
     shards as (
       insert into campaign_shards (notification_id, position, device_ids, size)
       select ?, position / greatest(?, ceil(total::numeric / ?))::bigint, array_agg(id order by id), count(*) from audience
        group by 2
       returning size)
     select sum(size)::int as audience from shards`,
    [...where.params, campaign.notificationId, shardSize, maxShards],
  );
  return snapshot?.audience ?? 0;
}

/**
 * The audience by local time: its zones (a device's own, else the app's default) counted first, grouped here by the
 * instant each reaches playTime's wall-clock time (Node's zone data, the same that validated them), then each group
 * cut into shards of its own in one statement. A device registered between the two reads in a zone the first did not
 * see is left out, as one registered after the snapshot is. Answers the audience's size.
 */
async function snapshotInLocalTime(tx: EntityManager, campaign: Campaign, where: SqlCondition): Promise<number> {
  const { defaultTimezone } = await tx.findOneOrFail(App, { id: campaign.appId }, { fields: ['defaultTimezone'] });
  const { expiry } = await tx.findOneOrFail(Notification, { id: campaign.notificationId }, { fields: ['expiry'] });
  const zones = await tx.execute<Array<{ zone: string; devices: string }>>(
    `select coalesce(d.timezone, ?) as zone, count(*) as devices from devices d where ${where.sql} group by 1`,
    [defaultTimezone, ...where.params],
  );
  const counts: ZoneCount[] = zones.map((row) => ({ zone: row.zone, devices: Number(row.devices) }));
  const groups = groupByLocalTime(counts, { playTime: campaign.playTime, now: Date.now(), expiryMinutes: expiry });
  const total = counts.reduce((sum, zone) => sum + zone.devices, 0);
  const [snapshot] = await tx.execute<Array<{ audience: number | null }>>(
    `with zones as (select * from jsonb_to_recordset(?::jsonb) as z(zone text, grp int)),
     groups as (select * from jsonb_to_recordset(?::jsonb) as g(grp int, send_at timestamptz, utc_offset_minutes int, expired boolean)),
     audience as (
       select d.id, z.grp, (row_number() over (partition by z.grp order by d.id) - 1) / ? as chunk
         from devices d join zones z on z.zone = coalesce(d.timezone, ?) where ${where.sql}),
     keyed as (select id, grp, dense_rank() over (order by grp, chunk) - 1 as position from audience),
     shards as (
       insert into campaign_shards (notification_id, position, device_ids, size, claimed, send_at, utc_offset_minutes, expired)
       select ?, k.position, array_agg(k.id order by k.id), count(*), case when g.expired then count(*) else 0 end, g.send_at, g.utc_offset_minutes, g.expired
         from keyed k join groups g on g.grp = k.grp
        group by k.position, g.send_at, g.utc_offset_minutes, g.expired
       returning size)
     select sum(size)::int as audience from shards`,
    [
      JSON.stringify(groups.flatMap((group, grp) => group.zones.map((zone) => ({ zone, grp })))),
      JSON.stringify(groups.map((group, grp) => ({ grp, send_at: new Date(group.sendAt).toISOString(), utc_offset_minutes: group.utcOffsetMinutes, expired: group.expired }))),
      Math.max(shardSize, Math.ceil(total / maxShards)),
      defaultTimezone,
      ...where.params,
      campaign.notificationId,
    ],
  );
  return snapshot?.audience ?? 0;
}

/** The snapshot as the run needs it: its shards by group, and how many to send side by side. */
async function started(tx: EntityManager, campaign: Campaign): Promise<BeginCampaignOutcome> {
  const shards = await tx.find(
    CampaignShard,
    { notificationId: campaign.notificationId },
    { fields: ['position', 'size', 'sendAt', 'utcOffsetMinutes', 'expired'], orderBy: { position: 'asc' } },
  );
  // A throttled send goes one shard at a time: the rate is the send's however many lanes draw on it, and one lane keeps
  // each shard's activity as short as the rate allows.
  const lanes = campaign.ratePerMinute ? 1 : sendLanes;
  return {
    outcome: 'started',
    audience: campaign.audience ?? 0,
    shards: shards.length,
    lanes,
    startedAt: (campaign.startedAt ?? new Date()).getTime(),
    groups: groupsOf(shards),
  };
}

/** The shards of each group (one group, at once, for a send not in local time), in order of their time. */
function groupsOf(shards: Array<Pick<CampaignShard, 'position' | 'size' | 'sendAt' | 'utcOffsetMinutes' | 'expired'>>): CampaignSendGroup[] {
  const groups = new Map<string, CampaignSendGroup>();
  for (const shard of shards) {
    const sendAt = shard.sendAt?.getTime() ?? null;
    const key = String(sendAt);
    const group = groups.get(key) ?? { sendAt, utcOffsetMinutes: shard.utcOffsetMinutes ?? null, devices: 0, expired: shard.expired, shards: [] };
    group.devices += shard.size;
    group.shards.push(shard.position);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => (a.sendAt ?? 0) - (b.sendAt ?? 0));
}

import { LockMode, type QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Campaign, type CampaignState } from '../../persistence/entities/campaign.ts';
import { Segment } from '../../persistence/entities/segment.ts';
import { derivedId, isUuid } from '../../security/ids.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { segmentCondition } from '../segments/segment-condition.ts';
import type { DeviceRange } from '../sends/send-scope.ts';

/** Devices per shard (one activity each), unless the audience is so large that it would make more than `maxShards`. */
export const shardSize = 25_000;
const maxShards = 400;
/** Shards a send runs side by side. */
export const sendLanes = 4;

export type BeginCampaignOutcome =
  | { outcome: 'started'; audience: number; shards: DeviceRange[]; lanes: number; startedAt: number }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'not-scheduled'; state: Exclude<CampaignState, 'SCHEDULED' | 'SENDING'> };

/**
 * At send time: snapshots the segment in one statement (its subscribed, not deleted devices, one `pending` push
 * each), marks the campaign SENDING and cuts the snapshot into shards by device id. A retry after the commit finds
 * the campaign SENDING and cuts the same snapshot again. A campaign cancelled meanwhile is left as it is.
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
    const audience = await tx.execute<QueryResult>(
      `insert into push_sends (id, account_id, source, device_id, notification_id, status, created_at)
       select gen_random_uuid(), ?, 'campaign', d.id, ?, 'pending', now() from devices d where ${where.sql}
       on conflict (notification_id, device_id) where source = 'campaign' do nothing`,
      [campaign.accountId, campaign.notificationId, ...where.params],
      'run',
    );
    Object.assign(campaign, { state: 'SENDING', filterId: input.filterId, audience: audience.affectedRows, startedAt: new Date() });
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

/** The snapshot cut into shards of about `shardSize` devices: the device id ending each, found in one ordered scan. */
async function started(tx: EntityManager, campaign: Campaign): Promise<BeginCampaignOutcome> {
  const audience = campaign.audience ?? 0;
  const size = Math.max(shardSize, Math.ceil(audience / maxShards));
  const ends = await tx.execute<Array<{ device_id: string }>>(
    `select device_id from (select s.device_id, row_number() over (order by s.device_id) as position
                              from push_sends s where s.notification_id = ? and s.source = 'campaign') numbered
      where position % ? = 0 order by device_id`,
    [campaign.notificationId, size],
  );
  const shards: DeviceRange[] = [];
  let after: string | null = null;
  for (const { device_id: upTo } of ends) {
    shards.push({ after, upTo });
    after = upTo;
  }
  if (audience % size !== 0 || audience === 0) shards.push({ after, upTo: null });
  return { outcome: 'started', audience, shards, lanes: sendLanes, startedAt: (campaign.startedAt ?? new Date()).getTime() };
}

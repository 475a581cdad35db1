import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Campaign, type CampaignState } from '../../persistence/entities/campaign.ts';
import { CampaignShard } from '../../persistence/entities/campaign-shard.ts';
import { Segment } from '../../persistence/entities/segment.ts';
import { derivedId, isUuid } from '../../security/ids.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { segmentCondition } from '../segments/segment-condition.ts';

/** Devices per shard (one activity each), unless the audience is so large that it would make more than `maxShards`. */
export const shardSize = 25_000;
const maxShards = 400;
/** Shards a send runs side by side. */
export const sendLanes = 4;

export type BeginCampaignOutcome =
  | { outcome: 'started'; audience: number; shards: number; lanes: number; startedAt: number }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'not-scheduled'; state: Exclude<CampaignState, 'SCHEDULED' | 'SENDING'> };

/**
 * At send time: snapshots the segment in one statement (its subscribed, not deleted devices, in id order, cut into
 * shards of about `shardSize`, each shard's devices one array: docs/adr/0059) and marks the campaign SENDING. A retry
 * after the commit finds the campaign SENDING and answers the same shards. A campaign cancelled meanwhile is left as
 * it is.
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
    Object.assign(campaign, { state: 'SENDING', filterId: input.filterId, audience: snapshot?.audience ?? 0, startedAt: new Date() });
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

/** The snapshot as the run needs it: how many shards, and how many to send side by side. */
async function started(tx: EntityManager, campaign: Campaign): Promise<BeginCampaignOutcome> {
  const shards = await tx.count(CampaignShard, { notificationId: campaign.notificationId });
  // A throttled send goes one shard at a time: the rate is the send's however many lanes draw on it, and one lane keeps
  // each shard's activity as short as the rate allows.
  const lanes = campaign.ratePerMinute ? 1 : sendLanes;
  return { outcome: 'started', audience: campaign.audience ?? 0, shards, lanes, startedAt: (campaign.startedAt ?? new Date()).getTime() };
}

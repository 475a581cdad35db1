import { Campaign } from '../../persistence/entities/campaign.ts';
import { deliverPushes, type DeliverDeps, type DeliverOutcome } from '../sends/deliver-pushes.ts';
import { loadPushContent } from '../sends/push-content.ts';
import { campaignShardSources } from './campaign-shard-source.ts';
import { campaignThrottle } from './campaign-throttle.ts';

/**
 * Sends one shard of a campaign's snapshot through the send engine, from where an earlier attempt got to, at the
 * send's `ratePerMinute` when it has one. Only while the campaign is SENDING: each wave's claim checks it, so a send
 * cancelled through the API stops within one wave.
 */
export async function sendCampaignShard(deps: DeliverDeps, input: { notificationId: string; shard: number }): Promise<DeliverOutcome> {
  const { ratePerMinute } = await deps.em.findOneOrFail(Campaign, { notificationId: input.notificationId }, { fields: ['ratePerMinute'] });
  return deliverPushes(deps, {
    sources: await campaignShardSources(deps.em, { notificationId: input.notificationId, position: input.shard }),
    notification: await loadPushContent(deps.em, input.notificationId),
    data: {},
    throttle: ratePerMinute ? campaignThrottle(deps.em, input.notificationId, ratePerMinute) : undefined,
  });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { Campaign } from '../../persistence/entities/campaign.ts';
import { CampaignShard } from '../../persistence/entities/campaign-shard.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import { deliverPushes, type DeliverDeps, type DeliverOutcome } from '../sends/deliver-pushes.ts';
import { appControls } from '../sends/app-controls.ts';
import { pendingRows } from '../sends/pending-rows.ts';
import { loadPushContent } from '../sends/push-content.ts';
import { wholeRange } from '../sends/send-scope.ts';
import { campaignShardSources } from './campaign-shard-source.ts';
import { campaignThrottle } from './campaign-throttle.ts';

/**
 * Sends one shard of a campaign's snapshot through the send engine, from where an earlier attempt got to: at the
 * send's `ratePerMinute` when it has one, within the app's frequency cap, holding the devices in the app's quiet
 * hours. Only while the campaign is SENDING: each wave's claim checks it, so a send cancelled through the API stops
 * within one wave.
 */
export async function sendCampaignShard(deps: DeliverDeps, input: { notificationId: string; shard: number }): Promise<DeliverOutcome> {
  const campaign = await deps.em.findOneOrFail(Campaign, { notificationId: input.notificationId });
  const shard = await deps.em.findOneOrFail(CampaignShard, { notificationId: input.notificationId, position: input.shard }, { fields: ['sendAt'] });
  const { expiry } = await deps.em.findOneOrFail(Notification, { id: input.notificationId }, { fields: ['expiry'] });
  // A held push may wait until its group's time (or playTime) plus the message's expiry.
  const deadline = (shard.sendAt?.getTime() ?? campaign.playTime) + expiry * 60_000;
  return deliverPushes(deps, {
    sources: await campaignShardSources(deps.em, { notificationId: input.notificationId, position: input.shard }),
    ...(await campaignControls(deps.em, campaign, deadline)),
  });
}

/**
 * Sends a campaign's pushes that quiet hours held and whose time has come (within the app's cap, at the send's
 * throttle), and answers when the next held one is due (epoch ms), or null when none is left.
 */
export async function sendDueCampaignPushes(deps: DeliverDeps, input: { notificationId: string; resumeAfter?: string | undefined }): Promise<DeliverOutcome & { nextDue: number | null }> {
  const campaign = await deps.em.findOneOrFail(Campaign, { notificationId: input.notificationId });
  const due = await pendingRows(deps.em, { scope: { kind: 'campaign-held', notificationId: input.notificationId }, range: wholeRange, resumeAfter: input.resumeAfter });
  const outcome = await deliverPushes(deps, { sources: [due], ...(await campaignControls(deps.em, campaign)) });
  return { ...outcome, nextDue: await nextHeldPush(deps.em, input.notificationId) };
}

/**
 * What every wave of a campaign's pushes goes with: the message, the send's throttle, the app's frequency cap and,
 * given until when a held push may wait, its quiet hours (pushes they held already are sent without them).
 */
async function campaignControls(em: EntityManager, campaign: Campaign, quietDeadline?: number) {
  return {
    notification: await loadPushContent(em, campaign.notificationId),
    data: {},
    throttle: campaign.ratePerMinute ? campaignThrottle(em, campaign.notificationId, campaign.ratePerMinute) : undefined,
    ...(await appControls(em, campaign.appId, { enforce: true, quietDeadline })),
  };
}

/** When the campaign's next push held by quiet hours is due (epoch ms), or null when none is held. */
export async function nextHeldPush(em: EntityManager, notificationId: string): Promise<number | null> {
  const [row] = await em.getConnection().execute<Array<{ next: Date | null }>>(
    `select min(not_before) as next from push_sends where notification_id = ? and not_before is not null and status = 'pending'`,
    [notificationId],
  );
  return row?.next ? new Date(row.next).getTime() : null;
}

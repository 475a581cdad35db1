import type { EntityManager } from '@mikro-orm/postgresql';
import type { CampaignCounts, CampaignEnd, CampaignEndState } from '../../../workflows/campaign-send.contract.ts';
import { Campaign, endedCampaignStates } from '../../persistence/entities/campaign.ts';
import { derivedId } from '../../security/ids.ts';
import type { EventType } from '../events/event-types.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { countCampaign } from './campaign-counts.ts';

const eventOf: Partial<Record<CampaignEndState, EventType>> = { SENT: 'message.sent', EXPIRED: 'message.expired' };

/**
 * Ends the campaign in `state` unless it has ended already (a cancel through the API wins over a send that finished
 * at the same moment), with its reason (an EXPIRED send always has one), and publishes `message.sent` or
 * `message.expired` once. Answers the state it ended in.
 */
export async function finishCampaignSend(
  deps: PublishDeps,
  input: { notificationId: string } & CampaignEnd,
): Promise<{ state: CampaignEndState; counts: CampaignCounts; finishedAt: number; reason: string | null }> {
  await deps.em.nativeUpdate(
    Campaign,
    { notificationId: input.notificationId, state: { $nin: [...endedCampaignStates] } },
    { state: input.state, reason: input.reason, finishedAt: new Date() },
  );
  const campaign = await deps.em.fork().findOneOrFail(Campaign, { notificationId: input.notificationId });
  const state = campaign.state as CampaignEndState;
  if (state === 'CANCELLED' || state === 'FAILED') await markUnsent(deps.em, input.notificationId, state === 'CANCELLED' ? 'not sent: the send was cancelled' : 'not sent: the send failed');
  const counts = await countCampaign(deps.em, input.notificationId);
  const type = eventOf[state];
  if (type) {
    await publishEvent(deps, {
      eventId: derivedId('evt_', input.notificationId, type),
      accountId: campaign.accountId,
      type,
      data: {
        result: {
          notificationId: campaign.notificationId,
          appId: campaign.appId,
          audience: counts.audience ?? 0,
          sent: counts.sent,
          failed: counts.failed,
          unregistered: counts.unregistered,
          ...(state === 'EXPIRED' ? { playTime: campaign.playTime } : {}),
        },
      },
    });
  }
  return { state, counts, finishedAt: (campaign.finishedAt ?? new Date()).getTime(), reason: campaign.reason ?? null };
}

/**
 * Every push of the snapshot no attempt has claimed gets a `cancelled` row, and its shard is claimed to the end in the
 * same statement, so an attempt still running claims nothing more (each claim also checks the campaign is SENDING).
 * Rows handed back for a retry turn `cancelled` too. What was in flight keeps the answer its attempt stores.
 */
async function markUnsent(em: EntityManager, notificationId: string, reason: string): Promise<void> {
  const connection = em.getConnection();
  await connection.execute(
    `with rest as (
       select position, claimed from campaign_shards where notification_id = ? and claimed < size for update),
     moved as (
       update campaign_shards cs set claimed = cs.size from rest
        where cs.notification_id = ? and cs.position = rest.position
       returning rest.claimed as start, cs.size, cs.device_ids)
     insert into push_sends (id, account_id, source, device_id, notification_id, status, error, created_at)
     select gen_random_uuid(), c.account_id, 'campaign', d.id, c.notification_id, 'cancelled', ?, now()
       from moved cross join lateral unnest(moved.device_ids[moved.start + 1 : moved.size]) as d(id)
       join campaigns c on c.notification_id = ?
     on conflict (notification_id, device_id) where source = 'campaign' do nothing`,
    [notificationId, notificationId, reason, notificationId],
  );
  await connection.execute(
    `update push_sends set status = 'cancelled', error = ? where notification_id = ? and source = 'campaign' and status = 'pending'`,
    [reason, notificationId],
  );
}

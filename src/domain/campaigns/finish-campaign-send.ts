import type { CampaignCounts, CampaignEndState } from '../../../workflows/campaign-send.contract.ts';
import { Campaign, endedCampaignStates } from '../../persistence/entities/campaign.ts';
import { derivedId } from '../../security/ids.ts';
import type { EventType } from '../events/event-types.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { countCampaign } from './campaign-counts.ts';


const eventOf: Partial<Record<CampaignEndState, EventType>> = { SENT: 'message.sent', EXPIRED: 'message.expired' };

/**
 * Ends the campaign in `state` unless it has ended already (a cancel through the API wins over a send that finished
 * at the same moment), and publishes `message.sent` or `message.expired` once. Answers the state it ended in.
 */
export async function finishCampaignSend(
  deps: PublishDeps,
  input: { notificationId: string; state: CampaignEndState; reason: string | null },
): Promise<{ state: CampaignEndState; counts: CampaignCounts; finishedAt: number; reason: string | null }> {
  await deps.em.nativeUpdate(
    Campaign,
    { notificationId: input.notificationId, state: { $nin: [...endedCampaignStates] } },
    { state: input.state, reason: input.reason, finishedAt: new Date() },
  );
  const campaign = await deps.em.fork().findOneOrFail(Campaign, { notificationId: input.notificationId });
  const state = campaign.state as CampaignEndState;
  if (state === 'CANCELLED' || state === 'FAILED') {
    // Nothing claims them any more (each wave checks the campaign is SENDING): they will never be sent.
    await deps.em.getConnection().execute(
      `update push_sends set status = 'cancelled', error = ? where notification_id = ? and source = 'campaign' and status = 'pending'`,
      [state === 'CANCELLED' ? 'not sent: the send was cancelled' : 'not sent: the send failed', input.notificationId],
    );
  }
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

import type { QueryResult } from '@mikro-orm/core';
import { Campaign } from '../../persistence/entities/campaign.ts';
import { campaignSendHandle } from '../../temporal/starters/campaign-send.ts';
import { withUpdateErrors } from '../../temporal/update-errors.ts';
import { cancelCampaignSend } from '../../../workflows/campaign-send.contract.ts';
import { DomainError } from '../errors.ts';
import { findOwnedNotification } from './find-owned-notification.ts';
import type { CampaignDeps } from './schedule-campaign.ts';

/**
 * POST /notification/cancel, before or during the send. The row turns CANCELLED first, in one statement that only a
 * waiting or sending campaign passes: the send engine checks it at every wave, so nothing more goes out whatever the
 * run is doing. Then the run is told, and stops its timers and activities. A message never scheduled is cancelled
 * too, and cannot be scheduled afterwards.
 */
export async function cancelCampaign(deps: CampaignDeps, accountId: string, input: { id: string; appId: string }): Promise<void> {
  const notification = await findOwnedNotification(deps.em, accountId, input.id, input.appId);
  const unscheduled = await deps.em.execute<QueryResult>(
    `insert into campaigns (notification_id, account_id, app_id, state, play_time, filter_id, reason, finished_at, created_at, updated_at)
     values (?, ?, ?, 'CANCELLED', ?, ?, 'cancelled before it was scheduled', now(), now(), now()) on conflict (notification_id) do nothing`,
    [notification.id, accountId, notification.appId, notification.playTime ?? Date.now(), notification.filterId ?? ''],
    'run',
  );
  if (unscheduled.affectedRows === 1) return;
  const changed = await deps.em.nativeUpdate(
    Campaign,
    { notificationId: notification.id, state: { $in: ['SCHEDULED', 'SENDING'] } },
    { state: 'CANCELLED', reason: 'cancelled', finishedAt: new Date() },
  );
  if (changed === 0) {
    const campaign = await deps.em.fork().findOneOrFail(Campaign, { notificationId: notification.id });
    throw new DomainError('invalid_state', `The send is ${campaign.state}; it cannot be cancelled`);
  }
  try {
    await withUpdateErrors(
      async () => {
        await campaignSendHandle(deps.temporal, notification.id).executeUpdate(cancelCampaignSend);
      },
      // No run (its start never committed): the row is all there is.
      async () => undefined,
    );
  } catch (error) {
    // The run ended as the row turned: it ends in the row's state, CANCELLED (finish-campaign-send.ts).
    if (!(error instanceof DomainError && error.code === 'invalid_state')) throw error;
  }
}

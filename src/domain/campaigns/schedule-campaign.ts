import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Campaign } from '../../persistence/entities/campaign.ts';
import type { Notification } from '../../persistence/entities/notification.ts';
import { scheduleCampaignRun } from '../../temporal/starters/campaign-send.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { withUpdateErrors } from '../../temporal/update-errors.ts';
import { DomainError } from '../errors.ts';
import { requireAppSegment } from '../segments/require-app-segment.ts';
import { findOwnedNotification } from './find-owned-notification.ts';

export interface CampaignDeps {
  em: EntityManager;
  temporal: TemporalAccess;
}

export interface ScheduleInput {
  id: string;
  appId: string;
  /** Epoch ms; the message's own playTime when absent, and now when it has none. */
  playTime?: number | undefined;
  /** The message's own filterId when absent. */
  filterId?: string | undefined;
  /** A throttle in pushes a minute; absent or null sends unthrottled. */
  ratePerMinute?: number | null | undefined;
  /** playTime's wall-clock time in UTC is each device's own local time; absent or false sends at playTime. */
  sendInLocalTime?: boolean | undefined;
}

const alreadyStarted = (state: string) => new DomainError('invalid_state', `The send is ${state}; its schedule can no longer change`);

/**
 * POST /notification/schedule: schedules the message's send, or moves its time or segment while it waits. Sending
 * never starts here: the run `send:<id>` starts at playTime, once the message is READY.
 */
export async function scheduleCampaign(deps: CampaignDeps, accountId: string, input: ScheduleInput): Promise<Notification> {
  return deps.em.transactional(async (tx) => {
    const notification = await findOwnedNotification(tx, accountId, input.id, input.appId);
    const filterId = input.filterId ?? notification.filterId ?? null;
    if (filterId === null) {
      throw new DomainError('segment_required', 'The message has no segment: give a filterId (the id of a segment of its app)');
    }
    await requireAppSegment(tx, accountId, notification.appId, filterId);
    const playTime = input.playTime ?? notification.playTime ?? Date.now();
    const ratePerMinute = input.ratePerMinute ?? null;
    const sendInLocalTime = input.sendInLocalTime ?? false;
    await tx.execute(
      `insert into campaigns (notification_id, account_id, app_id, state, play_time, filter_id, created_at, updated_at)
       values (?, ?, ?, 'SCHEDULED', ?, ?, now(), now()) on conflict (notification_id) do nothing`,
      [notification.id, accountId, notification.appId, playTime, filterId],
    );
    const campaign = await tx.findOneOrFail(Campaign, { notificationId: notification.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (campaign.state !== 'SCHEDULED') throw alreadyStarted(campaign.state);
    try {
      await withUpdateErrors(
        () =>
          scheduleCampaignRun(
            deps.temporal,
            { version: 1, notificationId: notification.id, accountId, appId: notification.appId, title: notification.title },
            { playTime, filterId, ratePerMinute, sendInLocalTime },
          ),
        async () => {
          throw new DomainError('conflict', 'The send could not be scheduled; retry');
        },
      );
    } catch (error) {
      // The run's id was used by a send that has ended (its row's commit was lost): a message is sent once.
      if (error instanceof WorkflowExecutionAlreadyStartedError) throw alreadyStarted('over');
      throw error;
    }
    Object.assign(campaign, { playTime, filterId, ratePerMinute, sendInLocalTime });
    return notification;
  });
}

import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Campaign } from '../../persistence/entities/campaign.ts';
import type { Notification } from '../../persistence/entities/notification.ts';
import { sendDeadlineOf } from '../../../workflows/campaign-send.contract.ts';
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
  /** Epoch ms. Absent: the send's own when it has been scheduled, else the message's playTime, else now. */
  playTime?: number | undefined;
  /** Absent: the send's own, else the message's filterId. */
  filterId?: string | undefined;
  /** A throttle in pushes a minute; null sends unthrottled. Absent: the send's own, else unthrottled. */
  ratePerMinute?: number | null | undefined;
  /** playTime's wall-clock time in UTC is each device's own local time. Absent: the send's own, else false. */
  sendInLocalTime?: boolean | undefined;
}

/** A send's whole schedule, before its segment is known to exist. */
type Schedule = { playTime: number; filterId: string | null; ratePerMinute: number | null; sendInLocalTime: boolean };

const alreadyStarted = (state: string) => new DomainError('invalid_state', `The send is ${state}; its schedule can no longer change`);

/**
 * POST /notification/schedule: schedules the message's send, or moves its time or segment while it waits. A call
 * changes only what it names: the rest is the waiting send's own, or on the first call the message's (docs/api.md).
 * Sending never starts here: the run `send:<id>` starts at playTime, once the message is READY.
 */
export async function scheduleCampaign(deps: CampaignDeps, accountId: string, input: ScheduleInput): Promise<Notification> {
  return deps.em.transactional(async (tx) => {
    const notification = await findOwnedNotification(tx, accountId, input.id, input.appId);
    const waiting = await tx.findOne(Campaign, { notificationId: notification.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (waiting && waiting.state !== 'SCHEDULED') throw alreadyStarted(waiting.state);
    const { filterId, ...schedule } = scheduleOf(input, waiting ? sendSchedule(waiting) : messageSchedule(notification));
    if (filterId === null) {
      throw new DomainError('segment_required', 'The message has no segment: give a filterId (the id of a segment of its app)');
    }
    await requireAppSegment(tx, accountId, notification.appId, filterId);
    refuseUnsendable(input, schedule, notification.expiry);
    await tx.execute(
      `insert into campaigns (notification_id, account_id, app_id, state, play_time, filter_id, created_at, updated_at)
       values (?, ?, ?, 'SCHEDULED', ?, ?, now(), now()) on conflict (notification_id) do nothing`,
      [notification.id, accountId, notification.appId, schedule.playTime, filterId],
    );
    const campaign = await tx.findOneOrFail(Campaign, { notificationId: notification.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (campaign.state !== 'SCHEDULED') throw alreadyStarted(campaign.state);
    try {
      await withUpdateErrors(
        () =>
          scheduleCampaignRun(
            deps.temporal,
            { version: 1, notificationId: notification.id, accountId, appId: notification.appId, title: notification.title },
            { ...schedule, filterId },
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
    Object.assign(campaign, { ...schedule, filterId });
    return notification;
  });
}

/** What a first schedule starts from: the message's own playTime (else now) and segment, unthrottled, not in local time. */
const messageSchedule = (notification: Notification): Schedule => ({
  playTime: notification.playTime ?? Date.now(),
  filterId: notification.filterId ?? null,
  ratePerMinute: null,
  sendInLocalTime: false,
});

/** A waiting send's own schedule. */
const sendSchedule = (campaign: Campaign): Schedule => ({
  playTime: campaign.playTime,
  filterId: campaign.filterId,
  ratePerMinute: campaign.ratePerMinute ?? null,
  sendInLocalTime: campaign.sendInLocalTime,
});

/** The fields the call names, and the rest from `base`. A `ratePerMinute` of null is named: it removes the throttle. */
const scheduleOf = (input: ScheduleInput, base: Schedule): Schedule => ({
  playTime: input.playTime ?? base.playTime,
  filterId: input.filterId ?? base.filterId,
  ratePerMinute: input.ratePerMinute !== undefined ? input.ratePerMinute : base.ratePerMinute,
  sendInLocalTime: input.sendInLocalTime ?? base.sendInLocalTime,
});

/**
 * A schedule whose playTime plus the message's expiry has passed could only end EXPIRED, and would spend the message's
 * one send: 422, saying when it ended (a playTime in seconds instead of milliseconds reads as January 1970).
 */
function refuseUnsendable(input: ScheduleInput, schedule: Omit<Schedule, 'filterId'>, expiryMinutes: number): void {
  const deadline = sendDeadlineOf(schedule, expiryMinutes);
  if (deadline > Date.now()) return;
  const whose = input.playTime === undefined ? 'The send’s playTime' : 'playTime';
  const where = schedule.sendInLocalTime ? ' in the zone furthest behind (UTC−12:00)' : '';
  const message =
    `${whose} ${new Date(schedule.playTime).toISOString()}${where} plus the message’s expiry of ${expiryMinutes} minutes ended at ` +
    `${new Date(deadline).toISOString()}: the send could never go. playTime is epoch milliseconds; give one after ${new Date(Date.now() - expiryMinutes * 60_000).toISOString()}`;
  throw new DomainError('play_time_expired', message, [{ path: 'body.playTime', message: `must be after now minus the message’s expiry (${expiryMinutes} minutes)` }]);
}

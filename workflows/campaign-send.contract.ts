import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { AccountId, AppId, EntityId, EntityType, NotificationId, SendState } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of a message's send run, `send:<notificationId>`: it waits until the message is READY and its
 * playTime has come (or ends EXPIRED when that cannot happen before playTime + expiry), snapshots the segment, sends
 * in shards, and ends SENT. The API schedules (and moves) it and cancels it through updates; the recording job
 * signals it when the message becomes READY.
 */
export const campaignSendWorkflowType = 'campaignSend';

export const campaignRunStates = ['WAITING_FOR_RECORDING', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED', 'EXPIRED', 'FAILED'] as const;
export type CampaignRunStateName = (typeof campaignRunStates)[number];
/** The states a send ends in. */
export type CampaignEndState = Extract<CampaignRunStateName, 'SENT' | 'CANCELLED' | 'EXPIRED' | 'FAILED'>;
/** How a send ends, and why: an EXPIRED send always says why. */
export type CampaignEnd = { state: 'EXPIRED'; reason: string } | { state: Exclude<CampaignEndState, 'EXPIRED'>; reason: string | null };

export interface CampaignSendInput {
  version: 1;
  notificationId: string;
  accountId: string;
  appId: string;
  /** What a run hands to the next when a long wait continues as new. */
  carried?:
    | { version: 1; playTime: number; filterId: string; ready: boolean; ratePerMinute?: number | null | undefined; sendInLocalTime?: boolean | undefined }
    | undefined;
  /** Continue as new past this many history events while waiting (the server's own suggestion also triggers it). */
  historyLimit?: number | undefined;
}

/** The send's counts as the run last read them (GET /notification/get counts them live). */
export interface CampaignCounts {
  audience: number | null;
  sent: number;
  failed: number;
  unregistered: number;
  /** Devices that unsubscribed or were deleted between the snapshot and their turn. */
  skipped: number;
  /** Pushes still waiting when the send was cancelled. */
  cancelled: number;
  /**
   * Devices of a local-time group whose time plus the message's expiry had passed when the send started, and devices
   * whose quiet hours (action `delay`) ended after the message expired.
   */
  expired: number;
  /** Devices not sent to because they had had their app's frequency cap. */
  capped: number;
  /** Devices not sent to because they were in their app's quiet hours (action `skip`). */
  quiet: number;
  clicked: number;
  /** Sent pushes a conversion was attributed to (the message's `conversion` goal). */
  conversions: number;
}

/**
 * The devices of a send that go at one time: for a send in local time, those whose UTC offset on the day is
 * `utcOffsetMinutes`, at the instant their clock shows playTime's wall-clock time; otherwise the whole audience, at
 * once (`sendAt` null). `shards` are the snapshot shards that hold them.
 */
export interface CampaignSendGroup {
  sendAt: number | null;
  utcOffsetMinutes: number | null;
  devices: number;
  /** Its time plus the message's expiry had passed at the snapshot: never sent. */
  expired: boolean;
  shards: number[];
}

export type CampaignGroupState = 'waiting' | 'sending' | 'sent' | 'expired';

/** A local-time send's group as its run sees it. */
export interface CampaignRunGroup {
  utcOffsetMinutes: number | null;
  sendAt: number | null;
  devices: number;
  /** How many of the snapshot's shards hold its devices. */
  shards: number;
  state: CampaignGroupState;
}

/** How far ahead of playTime a send in local time starts (UTC+14:00 is the zone furthest ahead)... */
export const localTimeAheadMs = 14 * 3_600_000;
/** ...and how long after it its last group goes (UTC−12:00 is the furthest behind). */
export const localTimeBehindMs = 12 * 3_600_000;

/**
 * The last instant a send can start (epoch ms): playTime plus the message's expiry, and in local time the zone
 * furthest behind's playTime plus it. A send still waiting then ends EXPIRED; the API refuses a schedule already past it.
 */
export const sendDeadlineOf = (schedule: { playTime: number; sendInLocalTime: boolean }, expiryMinutes: number): number =>
  schedule.playTime + (schedule.sendInLocalTime ? localTimeBehindMs : 0) + expiryMinutes * 60_000;

/** Click-through rate: clicked / sent, when anything was sent. */
export const ctrOf = (counts: Pick<CampaignCounts, 'sent' | 'clicked'>): number | null => (counts.sent > 0 ? counts.clicked / counts.sent : null);

/** Conversion rate: conversions / sent, when anything was sent. */
export const conversionRateOf = (counts: Pick<CampaignCounts, 'sent' | 'conversions'>): number | null => (counts.sent > 0 ? counts.conversions / counts.sent : null);

/** What GET /notification/get shows as `send` (counts as of the run's last read), and the shards done. */
export interface CampaignRunState extends CampaignCounts {
  state: CampaignRunStateName;
  playTime: number | null;
  filterId: string | null;
  /** The throttle, in pushes a minute; null when unthrottled. */
  ratePerMinute: number | null;
  /** playTime is each device's local time. */
  sendInLocalTime: boolean;
  /** A send in local time: its groups, once the snapshot is taken. */
  groups: CampaignRunGroup[];
  /** clicked / sent, when anything was sent. */
  ctr: number | null;
  /** conversions / sent, when anything was sent. */
  conversionRate: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  reason: string | null;
  /** Shards of the audience done, of all. */
  shards: { done: number; total: number };
}

export type CampaignSendWorkflow = (input: CampaignSendInput) => Promise<CampaignRunState>;

export interface ScheduleCampaign {
  /** Epoch ms; a time in the past means as soon as possible. */
  playTime: number;
  filterId: string;
  /** Absent in the updates of runs scheduled before throttling existed. */
  ratePerMinute?: number | null | undefined;
  /** Absent in the updates of runs scheduled before local-time sends existed. */
  sendInLocalTime?: boolean | undefined;
}

export const campaignSendState = defineQuery<CampaignRunState>('state');
/** Sets or moves playTime and the segment. Refused once sending has started. */
export const scheduleCampaignSend = defineUpdate<CampaignRunState, [ScheduleCampaign]>('schedule');
/** Stops the send: nothing more goes out. Refused once it has ended. */
export const cancelCampaignSend = defineUpdate<CampaignRunState, []>('cancel');
/** The message became READY (its recording was accepted). */
export const messageReady = defineSignal('messageReady');

export const campaignSendWorkflowId = (notificationId: string) => `send:${notificationId}`;

export const campaignSendSearchAttributes = (input: CampaignSendInput) => [
  { key: AccountId, value: input.accountId },
  { key: AppId, value: input.appId },
  { key: EntityType, value: 'send' },
  { key: EntityId, value: input.notificationId },
  { key: NotificationId, value: [input.notificationId] },
  { key: SendState, value: 'SCHEDULED' },
];

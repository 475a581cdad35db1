import { z } from 'zod';
import { notificationStatuses, type Notification } from '../../persistence/entities/notification.ts';
import type { CampaignView } from '../../domain/campaigns/campaign-view.ts';
import { maxRatePerMinute, minRatePerMinute } from '../../domain/campaigns/campaign-throttle.ts';
import { formatUtcOffset } from '../../sandbox-safe/utc-offset.ts';
import { eventTypeMaxLength } from '../../domain/ingest/normalise/envelope.ts';
import { maxConversionHours } from '../../domain/sends/push-responses.ts';
import { pageOf, paginationQuery, timestamp, trimmedText } from '../shared-schemas.ts';

const conversionGoal = z
  .strictObject({
    eventType: z.string().trim().min(1).max(eventTypeMaxLength).meta({ description: 'The ingested event type that counts as a conversion (e.g. `purchase`).' }),
    withinHours: z.number().int().min(1).max(maxConversionHours).meta({ description: `Hours after a push within which its person's event counts (1 to ${maxConversionHours}).` }),
  })
  .nullable()
  .meta({
    id: 'ConversionGoal',
    description:
      'An ingested event of `eventType` from a person who got a push of this message within `withinHours` marks their latest such push converted (once per push). Counted in a send’s and an A/B arm’s `conversions`; an A/B test may pick its winner by it. Null or left out: none.',
  });

/**
 * The spec's push message fields, as its from-stock body lists them. Required fields, enums and limits are decisions
 * recorded in docs/spec-decisions.md ("Message fields").
 */
const fromStockFields = {
  appId: z.uuid(),
  title: trimmedText(200),
  subtitle: z.string().max(200).optional(),
  text: z.string().max(4000).optional(),
  action: z.enum(['Open', 'Close']).default('Open'),
  fbTitle: z.string().max(200).optional(),
  fbSubtitle: z.string().max(200).optional(),
  fbText: z.string().max(4000).optional(),
  expiry: z.number().int().min(1).max(43200).default(1440).meta({ description: 'Minutes the message stays deliverable (1 to 43200).' }),
  conversion: conversionGoal.optional(),
  playTime: z.number().int().min(0).max(8_640_000_000_000_000).optional().meta({ description: 'Epoch milliseconds.' }),
  about: z.array(z.unknown()).max(100).default([]),
  type: z.enum(['RICHPUSH', 'PUSH']).default('RICHPUSH'),
};

/**
 * Every field of a message body: the from-stock fields and the ones the spec sends on create only (filterId, priority,
 * favourite, channel). Both `POST /notification/create` and `POST /slot/create/fromStock` take these, with the same
 * rules and defaults, so a message made from stock can target a segment too.
 */
export const messageBodyFields = {
  ...fromStockFields,
  filterId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: 'The audience segment: the id of a segment of the same app (`POST /filter/create`); any other value is 422 `unknown_segment`.' }),
  priority: z.enum(['LOW', 'NORMAL', 'HIGH']).default('NORMAL'),
  favourite: z.union([z.literal(0), z.literal(1)]).default(0),
  channel: z.enum(['PUSH']).default('PUSH'),
};

export const createNotificationBody = z.strictObject(messageBodyFields).meta({ id: 'CreateNotification' });

export const notificationSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    title: z.string(),
    subtitle: z.string().nullable(),
    text: z.string().nullable(),
    action: z.string(),
    fbTitle: z.string().nullable(),
    fbSubtitle: z.string().nullable(),
    fbText: z.string().nullable(),
    expiry: z.number().int(),
    playTime: z.number().int().nullable(),
    about: z.array(z.unknown()),
    filterId: z.string().nullable(),
    priority: z.string(),
    favourite: z.number().int(),
    type: z.string(),
    channel: z.string(),
    status: z.enum(notificationStatuses),
    conversion: conversionGoal,
    recording: z
      .object({
        url: z.string().meta({ description: 'Where devices play it, without a key (the file’s `url`).' }),
        fileId: z.string().nullable(),
        stockId: z.uuid().nullable(),
        durationMs: z.number().int().nullable(),
        contentType: z.string().nullable().meta({ description: '`audio/mp4` for a file the service holds.' }),
      })
      .nullable()
      .meta({ description: 'What the message plays once READY: the accepted job recording or a stock recording.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Notification' });

export const notificationIdQuery = z.object({ id: z.uuid() });

/** The `?id=&appId=` of the send routes, as the spec's A/B routes take theirs. */
export const notificationAppQuery = z.object({ id: z.uuid(), appId: z.uuid() });

export const scheduleNotificationBody = z
  .strictObject({
    playTime: z
      .number()
      .int()
      .min(0)
      .max(8_640_000_000_000_000)
      .optional()
      .meta({
        description:
          'Epoch ms. Default: the waiting send’s own, else the message’s playTime, else now. A past time means now, unless it is more than the message’s `expiry` in the past: then the send could never go, and the call is 422 `play_time_expired`.',
      }),
    filterId: z.string().min(1).max(128).optional().meta({ description: 'A segment of the message’s app. Default: the waiting send’s own, else the message’s filterId.' }),
    ratePerMinute: z
      .number()
      .int()
      .min(minRatePerMinute)
      .max(maxRatePerMinute)
      .nullable()
      .optional()
      .meta({
        description: `Throttle: at most this many pushes a minute (${minRatePerMinute} to ${maxRatePerMinute}), spread evenly; the deployment's FCM_MAX_PER_MINUTE still holds when it is lower. Null: unthrottled. Default: the waiting send’s own, else unthrottled.`,
      }),
    sendInLocalTime: z.boolean().optional().meta({
      description:
        'Send at playTime’s wall-clock time in UTC in each device’s own time zone (its `timezone`, else the app’s `defaultTimezone`): 09:00 reaches a device in Europe/Berlin at 09:00 Berlin time. Devices are grouped by UTC offset; a group whose time has passed when the send starts goes at once unless that time plus the message’s expiry has passed too (then it counts as `expired`). Default: the waiting send’s own, else false.',
    }),
  })
  .meta({ id: 'ScheduleNotification' });

export const testNotificationBody = z
  .strictObject({ deviceIds: z.array(z.uuid()).min(1).max(20).meta({ description: '1 to 20 subscribed devices of the message’s app.' }) })
  .meta({ id: 'TestNotification' });

export const testSendsSchema = z
  .object({
    testId: z.uuid().meta({ description: 'The test send; its run is `push-test:<testId>`.' }),
    sends: z.array(z.object({ sendId: z.uuid(), deviceId: z.uuid() })).meta({ description: 'One push per device, each listed by GET /push/sends.' }),
  })
  .meta({ id: 'TestSends' });

export const campaignStateNames = ['UNSCHEDULED', 'WAITING_FOR_RECORDING', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED', 'EXPIRED', 'FAILED'] as const;

export const campaignSchema = z
  .object({
    state: z.enum(campaignStateNames),
    playTime: z.number().int().nullable(),
    filterId: z.string().nullable(),
    ratePerMinute: z.number().int().nullable().meta({ description: 'The throttle the send was scheduled with; null when unthrottled.' }),
    audience: z.number().int().nullable().meta({ description: 'Devices in the snapshot taken at send time.' }),
    sent: z.number().int(),
    failed: z.number().int().meta({ description: 'Refused by the provider, or unconfirmed: in flight when a worker died or timed out (never sent twice).' }),
    unregistered: z.number().int().meta({ description: 'Tokens the provider no longer knew; their devices are unsubscribed.' }),
    skipped: z.number().int().meta({ description: 'Devices that unsubscribed or were deleted between the snapshot and their turn.' }),
    cancelled: z.number().int().meta({ description: 'Pushes still waiting when the send was cancelled (or failed).' }),
    expired: z.number().int().meta({
      description: 'Devices of a local-time group whose time plus the message’s expiry had passed when the send started, and devices whose quiet hours (`delay`) ended after the message expired.',
    }),
    capped: z.number().int().meta({ description: 'Devices not sent to: they had had their app’s frequency cap of pushes (never sent later).' }),
    quiet: z.number().int().meta({ description: 'Devices not sent to: they were in their app’s quiet hours, whose action is `skip`.' }),
    clicked: z.number().int(),
    ctr: z.number().nullable().meta({ description: 'clicked / sent.' }),
    conversions: z.number().int().meta({ description: 'Sent pushes a conversion was attributed to (the message’s `conversion` goal).' }),
    conversionRate: z.number().nullable().meta({ description: 'conversions / sent.' }),
    sendInLocalTime: z.boolean(),
    groups: z
      .array(
        z
          .object({
            utcOffset: z.string().meta({ description: 'The group’s UTC offset on the day, e.g. `+01:00`.' }),
            sendAt: timestamp.meta({ description: 'When its devices’ clocks show playTime’s wall-clock time.' }),
            devices: z.number().int(),
            sent: z.number().int(),
            state: z.enum(['waiting', 'sending', 'sent', 'expired', 'cancelled']),
          })
          .meta({ id: 'NotificationSendGroup' }),
      )
      .meta({ description: 'A send in local time, once sending has started: one group per UTC offset, earliest first. Empty otherwise.' }),
    startedAt: timestamp.nullable(),
    finishedAt: timestamp.nullable(),
    reason: z.string().nullable(),
  })
  .meta({ id: 'NotificationSend', description: 'The message’s send to its segment, counted live while sending.' });

export const listNotificationsQuery = z.object({
  appId: z.uuid().optional(),
  status: z.enum(notificationStatuses).optional(),
  ...paginationQuery,
});

export const notificationPage = pageOf(notificationSchema).meta({ id: 'NotificationPage' });

export const notificationWithSendSchema = notificationSchema.extend({ send: campaignSchema }).meta({ id: 'NotificationWithSend' });

export const toCampaignResponse = ({ groups, ...view }: CampaignView): z.infer<typeof campaignSchema> => ({
  ...view,
  groups: groups.map(({ utcOffsetMinutes, sendAt, ...group }) => ({ ...group, utcOffset: formatUtcOffset(utcOffsetMinutes), sendAt: sendAt.toISOString() })),
  startedAt: view.startedAt?.toISOString() ?? null,
  finishedAt: view.finishedAt?.toISOString() ?? null,
});

export function toNotificationResponse(n: Notification): z.infer<typeof notificationSchema> {
  return {
    id: n.id,
    appId: n.appId,
    title: n.title,
    subtitle: n.subtitle ?? null,
    text: n.text ?? null,
    action: n.action,
    fbTitle: n.fbTitle ?? null,
    fbSubtitle: n.fbSubtitle ?? null,
    fbText: n.fbText ?? null,
    expiry: n.expiry,
    playTime: n.playTime ?? null,
    about: n.about,
    filterId: n.filterId ?? null,
    priority: n.priority,
    favourite: n.favourite,
    type: n.type,
    channel: n.channel,
    status: n.status,
    conversion: n.conversion ?? null,
    recording: n.recordingUrl
      ? {
          url: n.recordingUrl,
          fileId: n.recordingFileId ?? null,
          stockId: n.recordingStockId ?? null,
          durationMs: n.recordingDurationMs ?? null,
          contentType: n.recordingContentType ?? null,
        }
      : null,
    createdAt: n.createdAt.toISOString(),
    updatedAt: n.updatedAt.toISOString(),
  };
}

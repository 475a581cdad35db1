import type { Notification } from '../../persistence/entities/notification.ts';
import type { Slots } from '../../persistence/push-pace.ts';

/**
 * The push provider layer: what a send hands to a provider and what it gets back, one result per message.
 * Providers never throw for one message's trouble; each message gets its outcome.
 */

export type PushPlatform = 'ios' | 'android' | 'web';

/** What a device shows and plays: a push message's fields as stored, read by `pushNotificationOf`. */
export interface PushNotification {
  /** The push message's id, so the app can fetch the message. */
  notificationId: string;
  title: string;
  subtitle?: string | null;
  text?: string | null;
  /** What a tap does: `Open` or `Close`. */
  action: string;
  /** What a device shows when it cannot render the rich message (see docs/operations.md, "FCM message mapping"). */
  fbTitle?: string | null;
  fbSubtitle?: string | null;
  fbText?: string | null;
  /** `RICHPUSH` or `PUSH`. */
  type: string;
  /** `LOW`, `NORMAL` or `HIGH`. */
  priority: string;
  /** Minutes the message stays deliverable from the send on. */
  expiry: number;
  /** The recording the message plays; set only once the message is READY. */
  recordingUrl?: string | null;
  /** The recording job's level (e.g. `TORSO`), when the caller knows it. */
  richPushLevel?: string | null;
}

export interface PushMessage {
  /** The send record's id. Every push carries it as `data.sendId`, so a click can be attributed. */
  sendId: string;
  /** The device's push token (an FCM registration token). */
  token: string;
  platform: PushPlatform;
  notification: PushNotification;
  /** Extra string pairs for the app; the mapping's own keys (sendId, notificationId…) win over these. */
  data?: Record<string, string>;
}

/**
 * - `sent`: the provider accepted it (`providerMessageId` when the provider names it);
 * - `unregistered`: the token is no longer valid; the caller unsubscribes the device;
 * - `failed`: final, retrying will not help (`error` says why; a configuration problem says so);
 * - `unconfirmed`: the request left but no answer came (a timeout, an abort mid-flight): the provider may have it,
 *   so it is never sent again;
 * - `retry`: transient and certainly not delivered (rate limit, provider down, refused connection, aborted before
 *   it left); `retryAfterMs` is the provider's Retry-After when it gave one.
 */
export type PushOutcome = 'sent' | 'unregistered' | 'failed' | 'unconfirmed' | 'retry';

export interface PushResult {
  sendId: string;
  outcome: PushOutcome;
  providerMessageId?: string;
  error?: string;
  retryAfterMs?: number;
}

export interface PushProvider {
  name: 'log' | 'fcm';
  /**
   * Messages the send engine claims and hands over at once: what the provider has in flight together. A worker that
   * dies mid-wave leaves at most this many pushes unconfirmed (src/domain/sends/deliver-pushes.ts).
   */
  waveSize: number;
  /**
   * Waits until the first of `count` more messages may go at the provider's pace (FCM_MAX_PER_MINUTE across the
   * deployment) and answers when their slots began and how long each is: the i-th goes i slots after the first. The
   * engine calls it before it claims each wave. Rejects when `signal` aborts.
   */
  pace?: (count: number, signal?: AbortSignal) => Promise<Slots>;
  /** One result per message, in the messages' order. `signal` stops the batch: what was not sent comes back `retry`. */
  sendBatch(messages: PushMessage[], signal?: AbortSignal): Promise<PushResult[]>;
  close: () => Promise<void>;
}

/** A stored push message as a device gets it: the recording only once the message is READY. */
export function pushNotificationOf(notification: Notification, richPushLevel?: string | null): PushNotification {
  return {
    notificationId: notification.id,
    title: notification.title,
    subtitle: notification.subtitle ?? null,
    text: notification.text ?? null,
    action: notification.action,
    fbTitle: notification.fbTitle ?? null,
    fbSubtitle: notification.fbSubtitle ?? null,
    fbText: notification.fbText ?? null,
    type: notification.type,
    priority: notification.priority,
    expiry: notification.expiry,
    recordingUrl: notification.status === 'READY' ? (notification.recordingUrl ?? null) : null,
    richPushLevel: richPushLevel ?? null,
  };
}

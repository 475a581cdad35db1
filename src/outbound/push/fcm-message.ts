import { parseRetryAfter } from '../../domain/deliveries/classify-response.ts';
import type { PushMessage, PushNotification, PushResult } from './push-provider.ts';

/**
 * Firebase Cloud Messaging's HTTP v1 API, pure: the request for one message and what an answer means. The
 * mapping is documented in docs/operations.md ("FCM message mapping"); the tests check it as tables.
 */

export const fcmScope = 'https://www.googleapis.com/auth/firebase.messaging';

/** `POST {base}/v1/projects/{projectId}/messages:send`; the base may carry a path (a proxy). */
export const fcmSendUrl = (baseUrl: string, projectId: string) =>
  `${baseUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(projectId)}/messages:send`;

interface FcmAlert {
  title: string;
  subtitle?: string;
  body?: string;
}

/** The subset of FCM's `Message` the service sends. */
export interface FcmMessage {
  token: string;
  notification: { title: string; body?: string };
  data: Record<string, string>;
  android?: { priority: 'NORMAL' | 'HIGH'; ttl: string };
  apns?: { headers: Record<string, string>; payload: { aps: { alert: FcmAlert; 'mutable-content'?: 1 } } };
  webpush?: { headers: Record<string, string> };
}

/** An empty field counts as unset, so an empty fallback falls back to the message's own text. */
const present = (value: string | null | undefined): string | undefined => (value ? value : undefined);

/** A rich message plays a recording; until it has one (not READY), it is shown as a plain push. */
export const isRich = (notification: PushNotification) => notification.type === 'RICHPUSH' && present(notification.recordingUrl) !== undefined;

/**
 * What the operating system shows by itself. For a RICHPUSH message that is the fallback (fb*) texts, each one
 * falling back to the message's own: iOS shows them when the app's notification service extension cannot attach
 * the recording in time, Android when the app does not render the message itself, and every device when the
 * message has no recording yet (a test send before READY). A plain push shows its texts.
 */
function shownAlert(notification: PushNotification): FcmAlert {
  const rich = notification.type === 'RICHPUSH';
  const title = (rich && present(notification.fbTitle)) || notification.title;
  const subtitle = (rich && present(notification.fbSubtitle)) || present(notification.subtitle);
  const body = (rich && present(notification.fbText)) || present(notification.text);
  return { title, ...(subtitle ? { subtitle } : {}), ...(body ? { body } : {}) };
}

/** The string pairs the app reads: ids for attribution, and what the rich renderer needs. */
function dataOf(message: PushMessage): Record<string, string> {
  const { notification } = message;
  const optional = (pairs: Record<string, string | null | undefined>) =>
    Object.fromEntries(Object.entries(pairs).filter((pair): pair is [string, string] => present(pair[1]) !== undefined));
  return {
    ...message.data,
    sendId: message.sendId,
    notificationId: notification.notificationId,
    type: notification.type,
    action: notification.action,
    // Only APNs has a place for a subtitle; Android and web apps find it here.
    ...optional({ subtitle: notification.subtitle }),
    ...(isRich(notification)
      ? optional({ title: notification.title, text: notification.text, recordingUrl: notification.recordingUrl, richPushLevel: notification.richPushLevel })
      : {}),
  };
}

/** The `message` of a send request. `now` (epoch ms) dates the APNs expiration. Only the device's platform block is sent. */
export function buildFcmMessage(message: PushMessage, now: number): FcmMessage {
  const { notification } = message;
  const alert = shownAlert(notification);
  const ttlSeconds = notification.expiry * 60;
  const priority = notification.priority;
  const base = {
    token: message.token,
    notification: { title: alert.title, ...(alert.body ? { body: alert.body } : {}) },
    data: dataOf(message),
  };
  switch (message.platform) {
    case 'android':
      return { ...base, android: { priority: priority === 'HIGH' ? 'HIGH' : 'NORMAL', ttl: `${ttlSeconds}s` } };
    case 'ios':
      return {
        ...base,
        apns: {
          headers: {
            'apns-push-type': 'alert',
            'apns-priority': priority === 'LOW' ? '5' : '10',
            'apns-expiration': String(Math.floor(now / 1000) + ttlSeconds),
          },
          // mutable-content wakes the app's notification service extension, which attaches the recording.
          payload: { aps: { alert, ...(isRich(notification) ? { 'mutable-content': 1 as const } : {}) } },
        },
      };
    case 'web':
      return { ...base, webpush: { headers: { TTL: String(ttlSeconds), Urgency: priority === 'LOW' ? 'low' : priority === 'HIGH' ? 'high' : 'normal' } } };
  }
}

export interface FcmAnswer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

interface FcmError {
  status?: string;
  message?: string;
  errorCode?: string;
}

const errorTextLimit = 300;

/** FCM's error body: `{ error: { code, message, status, details: [{ errorCode }] } }`; anything else is kept as text. */
function fcmErrorOf(body: string): FcmError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim().slice(0, errorTextLimit);
    return text ? { message: text } : {};
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const { status, message, details } = error as { status?: unknown; message?: unknown; details?: unknown };
  const errorCode = Array.isArray(details)
    ? details.map((detail: { errorCode?: unknown } | null) => detail?.errorCode).find((code) => typeof code === 'string')
    : undefined;
  return {
    ...(typeof status === 'string' ? { status } : {}),
    ...(typeof message === 'string' ? { message: message.slice(0, errorTextLimit) } : {}),
    ...(typeof errorCode === 'string' ? { errorCode } : {}),
  };
}

function describe(status: number, error: FcmError): string {
  const codes = [error.status, error.errorCode && error.errorCode !== error.status ? `(${error.errorCode})` : undefined].filter(Boolean).join(' ');
  return `FCM answered HTTP ${status}${codes ? ` ${codes}` : ''}${error.message ? `: ${error.message}` : ''}`;
}

/**
 * What FCM's answer to one message means (`now` reads an HTTP-date Retry-After):
 * - 2xx: sent, with FCM's message name as `providerMessageId`;
 * - 404, or the error code UNREGISTERED: unregistered (the token is gone; the caller unsubscribes the device);
 * - 401 and 403: failed, a configuration problem (credentials, project, or the platform's APNs/web push keys),
 *   except SENDER_ID_MISMATCH, a token of another project;
 * - 408, 429 and 5xx: retry, after Retry-After when given;
 * - anything else (400 INVALID_ARGUMENT, a redirect…): failed.
 */
export function classifyFcmAnswer(answer: FcmAnswer, now: number): Omit<PushResult, 'sendId'> {
  const { status } = answer;
  if (status >= 200 && status < 300) {
    const name = parseName(answer.body);
    return { outcome: 'sent', ...(name ? { providerMessageId: name } : {}) };
  }
  const error = fcmErrorOf(answer.body);
  const described = describe(status, error);
  if (status === 404 || error.errorCode === 'UNREGISTERED') return { outcome: 'unregistered', error: described };
  if (error.errorCode === 'SENDER_ID_MISMATCH') return { outcome: 'failed', error: `${described} (the token belongs to another Firebase project)` };
  if (status === 401 || status === 403) {
    return {
      outcome: 'failed',
      error: `${described} (a configuration problem: check FCM_SERVICE_ACCOUNT_FILE, that its service account may send for its project_id, and the project's APNs and web push credentials)`,
    };
  }
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(answer.retryAfter, now);
    return { outcome: 'retry', error: described, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  return { outcome: 'failed', error: described };
}

function parseName(body: string): string | undefined {
  try {
    const name = (JSON.parse(body) as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

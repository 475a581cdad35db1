import { describe, expect, it } from 'vitest';
import { buildFcmMessage, classifyFcmAnswer, fcmSendUrl, type FcmAnswer } from '../../src/outbound/push/fcm-message.ts';
import { pushNotificationOf, type PushMessage, type PushNotification, type PushResult } from '../../src/outbound/push/push-provider.ts';
import type { Notification } from '../../src/persistence/entities/notification.ts';
import { fcmErrorBody } from '../support/fcm.ts';

const now = Date.parse('2026-11-23T12:00:00.000Z');
const nowSeconds = now / 1000;

const richNotification: PushNotification = {
  notificationId: '7d3c1a52-3f0e-4c1e-9a51-6b2f0f1d2e10',
  title: 'Your song is ready',
  subtitle: 'Recorded for you',
  text: 'Tap to listen',
  action: 'Open',
  fbTitle: 'A message for you',
  fbSubtitle: null,
  fbText: 'Open the app to listen',
  type: 'RICHPUSH',
  priority: 'LOW',
  expiry: 1440,
  recordingUrl: 'https://cdn.example.com/r/1.mp4',
  richPushLevel: 'TORSO',
};

const messageTo = (platform: PushMessage['platform'], notification: PushNotification = richNotification, data?: Record<string, string>): PushMessage => ({
  sendId: 'send-1',
  token: 'device-token-1',
  platform,
  notification,
  ...(data ? { data } : {}),
});

describe('the FCM send request', () => {
  it('posts to /v1/projects/{projectId}/messages:send under the base URL, path prefix included', () => {
    expect(fcmSendUrl('https://fcm.googleapis.com', 'richpush-prod')).toBe('https://fcm.googleapis.com/v1/projects/richpush-prod/messages:send');
    expect(fcmSendUrl('https://proxy.internal/fcm/', 'p 1')).toBe('https://proxy.internal/fcm/v1/projects/p%201/messages:send');
  });

  it('shows a rich message’s fallback texts on iOS, wakes the service extension and carries the rich parts in data', () => {
    expect(buildFcmMessage(messageTo('ios'), now)).toEqual({
      token: 'device-token-1',
      notification: { title: 'A message for you', body: 'Open the app to listen' },
      data: {
        sendId: 'send-1',
        notificationId: richNotification.notificationId,
        type: 'RICHPUSH',
        action: 'Open',
        subtitle: 'Recorded for you',
        title: 'Your song is ready',
        text: 'Tap to listen',
        recordingUrl: 'https://cdn.example.com/r/1.mp4',
        richPushLevel: 'TORSO',
      },
      apns: {
        headers: { 'apns-push-type': 'alert', 'apns-priority': '5', 'apns-expiration': String(nowSeconds + 86_400) },
        // No fbSubtitle: the fallback keeps the message's own subtitle.
        payload: { aps: { alert: { title: 'A message for you', subtitle: 'Recorded for you', body: 'Open the app to listen' }, 'mutable-content': 1 } },
      },
    });
  });

  it('sends only the device’s platform block: Android priority and TTL, web TTL and Urgency', () => {
    const android = buildFcmMessage(messageTo('android', { ...richNotification, priority: 'HIGH', expiry: 60 }), now);
    expect(android.android).toEqual({ priority: 'HIGH', ttl: '3600s' });
    expect(android).not.toHaveProperty('apns');
    expect(android).not.toHaveProperty('webpush');

    const web = buildFcmMessage(messageTo('web', { ...richNotification, priority: 'NORMAL', expiry: 1 }), now);
    expect(web.webpush).toEqual({ headers: { TTL: '60', Urgency: 'normal' } });
    expect(web).not.toHaveProperty('android');
    expect(web).not.toHaveProperty('apns');
  });

  it.each([
    ['LOW', 'NORMAL', '5', 'low'],
    ['NORMAL', 'NORMAL', '10', 'normal'],
    ['HIGH', 'HIGH', '10', 'high'],
  ])('maps priority %s to Android %s, apns-priority %s and Urgency %s', (priority, android, apns, urgency) => {
    const notification = { ...richNotification, priority };
    expect(buildFcmMessage(messageTo('android', notification), now).android?.priority).toBe(android);
    expect(buildFcmMessage(messageTo('ios', notification), now).apns?.headers['apns-priority']).toBe(apns);
    expect(buildFcmMessage(messageTo('web', notification), now).webpush?.headers.Urgency).toBe(urgency);
  });

  it('shows a plain push’s own texts, ignores its fallbacks and adds no rich parts', () => {
    const plain = { ...richNotification, type: 'PUSH' };
    const message = buildFcmMessage(messageTo('ios', plain), now);
    expect(message.notification).toEqual({ title: 'Your song is ready', body: 'Tap to listen' });
    expect(message.apns?.payload.aps).toEqual({ alert: { title: 'Your song is ready', subtitle: 'Recorded for you', body: 'Tap to listen' } });
    expect(message.data).toEqual({ sendId: 'send-1', notificationId: richNotification.notificationId, type: 'PUSH', action: 'Open', subtitle: 'Recorded for you' });
  });

  it('shows a rich message without a recording (not READY) with its fallback texts and no rich parts', () => {
    const message = buildFcmMessage(messageTo('ios', { ...richNotification, recordingUrl: null }), now);
    expect(message.notification.title).toBe(richNotification.fbTitle);
    expect(message.apns?.payload.aps).not.toHaveProperty('mutable-content');
    expect(message.data).not.toHaveProperty('recordingUrl');
  });

  it('treats empty texts as unset: an empty fallback falls back, an empty text is left out', () => {
    const message = buildFcmMessage(messageTo('ios', { ...richNotification, fbTitle: '', fbText: '', text: '', subtitle: '' }), now);
    expect(message.notification).toEqual({ title: 'Your song is ready' });
    expect(message.apns?.payload.aps.alert).toEqual({ title: 'Your song is ready' });
    expect(message.data).not.toHaveProperty('text');
    expect(message.data).not.toHaveProperty('subtitle');
  });

  it('keeps the caller’s data, but sendId and the message’s own keys win', () => {
    const message = buildFcmMessage(messageTo('android', richNotification, { variant: 'B', sendId: 'forged', abTestId: 'ab-1' }), now);
    expect(message.data).toMatchObject({ variant: 'B', abTestId: 'ab-1', sendId: 'send-1' });
  });
});

describe('pushNotificationOf', () => {
  const fields = { title: 'T', text: 'x', action: 'Close', fbTitle: 'F', fbSubtitle: null, fbText: null, type: 'RICHPUSH', priority: 'HIGH', expiry: 30 };
  const stored = { ...fields, id: 'n-1', subtitle: undefined, status: 'RECORDING', recordingUrl: 'https://cdn.example.com/r/2.mp4' } as unknown as Notification;

  it('reads a stored message, with the recording only once the message is READY', () => {
    expect(pushNotificationOf(stored)).toEqual({ ...fields, notificationId: 'n-1', subtitle: null, recordingUrl: null, richPushLevel: null });
    expect(pushNotificationOf({ ...stored, status: 'READY' }, 'TORSO')).toMatchObject({ recordingUrl: 'https://cdn.example.com/r/2.mp4', richPushLevel: 'TORSO' });
  });
});

describe('what an FCM answer means', () => {
  it.each<[string, FcmAnswer, Omit<PushResult, 'sendId'>]>([
    ['200 with the message name', { status: 200, retryAfter: undefined, body: '{"name":"projects/p/messages/0:17"}' }, { outcome: 'sent', providerMessageId: 'projects/p/messages/0:17' }],
    ['200 without a readable body', { status: 200, retryAfter: undefined, body: '' }, { outcome: 'sent' }],
    [
      '404 UNREGISTERED',
      { status: 404, retryAfter: undefined, body: fcmErrorBody(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED') },
      { outcome: 'unregistered', error: 'FCM answered HTTP 404 NOT_FOUND (UNREGISTERED): Requested entity was not found.' },
    ],
    [
      'UNREGISTERED under another status',
      { status: 400, retryAfter: undefined, body: fcmErrorBody(400, 'INVALID_ARGUMENT', 'gone', 'UNREGISTERED') },
      { outcome: 'unregistered', error: 'FCM answered HTTP 400 INVALID_ARGUMENT (UNREGISTERED): gone' },
    ],
    ['a bare 404', { status: 404, retryAfter: undefined, body: '' }, { outcome: 'unregistered', error: 'FCM answered HTTP 404' }],
    [
      '400 INVALID_ARGUMENT',
      { status: 400, retryAfter: undefined, body: fcmErrorBody(400, 'INVALID_ARGUMENT', 'Message too big', 'INVALID_ARGUMENT') },
      { outcome: 'failed', error: 'FCM answered HTTP 400 INVALID_ARGUMENT: Message too big' },
    ],
    [
      '403 SENDER_ID_MISMATCH',
      { status: 403, retryAfter: undefined, body: fcmErrorBody(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH') },
      { outcome: 'failed', error: 'FCM answered HTTP 403 PERMISSION_DENIED (SENDER_ID_MISMATCH): SenderId mismatch (the token belongs to another Firebase project)' },
    ],
    ['429 with Retry-After seconds', { status: 429, retryAfter: '7', body: fcmErrorBody(429, 'RESOURCE_EXHAUSTED', 'quota', 'QUOTA_EXCEEDED') }, { outcome: 'retry', retryAfterMs: 7000, error: 'FCM answered HTTP 429 RESOURCE_EXHAUSTED (QUOTA_EXCEEDED): quota' }],
    ['503 with an HTTP-date Retry-After', { status: 503, retryAfter: 'Mon, 23 Nov 2026 12:01:00 GMT', body: '' }, { outcome: 'retry', retryAfterMs: 60_000, error: 'FCM answered HTTP 503' }],
    ['500 without Retry-After', { status: 500, retryAfter: undefined, body: fcmErrorBody(500, 'INTERNAL', 'oops', 'INTERNAL') }, { outcome: 'retry', error: 'FCM answered HTTP 500 INTERNAL: oops' }],
    ['a proxy’s 502 page', { status: 502, retryAfter: undefined, body: '<html>Bad Gateway</html>' }, { outcome: 'retry', error: 'FCM answered HTTP 502: <html>Bad Gateway</html>' }],
    ['a redirect', { status: 302, retryAfter: undefined, body: '' }, { outcome: 'failed', error: 'FCM answered HTTP 302' }],
  ])('%s', (_name, answer, expected) => {
    expect(classifyFcmAnswer(answer, now)).toEqual(expected);
  });

  it.each([401, 403])('calls a %i a configuration problem', (status) => {
    const verdict = classifyFcmAnswer({ status, retryAfter: undefined, body: fcmErrorBody(status, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.', 'THIRD_PARTY_AUTH_ERROR') }, now);
    expect(verdict.outcome).toBe('failed');
    expect(verdict.error).toMatch(new RegExp(`^FCM answered HTTP ${status} UNAUTHENTICATED \\(THIRD_PARTY_AUTH_ERROR\\): Request had invalid authentication credentials\\. \\(a configuration problem: check FCM_SERVICE_ACCOUNT_FILE`));
  });

  it('keeps at most 300 characters of FCM’s words', () => {
    const verdict = classifyFcmAnswer({ status: 400, retryAfter: undefined, body: fcmErrorBody(400, 'INVALID_ARGUMENT', 'x'.repeat(5000)) }, now);
    expect(verdict.error).toBe(`FCM answered HTTP 400 INVALID_ARGUMENT: ${'x'.repeat(300)}`);
  });
});

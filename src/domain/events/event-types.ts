/**
 * The outbound event types an endpoint can subscribe to, each with what it means and an example of its
 * `data.result`. GET /event-types serves this list; `eventTypes` on an endpoint must name entries of it.
 */
export interface EventTypeInfo {
  description: string;
  exampleResult: Record<string, unknown>;
}

export const eventTypeCatalogue = {
  'webhook.test': {
    description: 'Sent by POST /accounts/{accountId}/endpoints/{endpointId}/test to check a receiver.',
    exampleResult: { message: 'This is a test event from the rich push service.' },
  },
  'endpoint.disabled': {
    description: 'An endpoint was disabled: its deliveries all failed for too long, or it answered 410 Gone.',
    exampleResult: { endpointId: 'ep_5Qb7…', url: 'https://example.com/hooks', reason: 'every delivery failed for 120 hours' },
  },
  'job.assigned': {
    description:
      'A recording job was assigned to its artist (executeJob, or a new artist while ASSIGNED): `artistLink` is the link to send them, `{ url, expiresAt }` (null when the artist changed again before the event went out: the next event carries the live link).',
    exampleResult: {
      jobId: '…',
      notificationId: '…',
      title: 'Weekend sale voice-over',
      artist: 'artist@example.com',
      script: '…',
      dueDate: 1767225600000,
      artistDueDate: 1767139200000,
      artistLink: { url: 'https://push.example.com/artist/art_Zk3v…', expiresAt: '2026-01-03T00:00:00.000Z' },
    },
  },
  'job.recording_submitted': {
    description: 'A take was submitted for a job (it may still be processing: GET /file/get tells when it is ready).',
    exampleResult: { jobId: '…', fileId: 'fil_…', url: 'https://push.example.com/recordings/fil_…/….m4a', fileName: 'take-1.wav' },
  },
  'job.accepted': {
    description: 'A job was accepted; its message now carries the selected recording and is READY.',
    exampleResult: { jobId: '…', notificationId: '…', fileId: 'fil_…', url: 'https://push.example.com/recordings/fil_…/….m4a' },
  },
  'job.cancelled': {
    description: 'A job was cancelled; its message is back in DRAFT.',
    exampleResult: { jobId: '…', notificationId: '…' },
  },
  'job.artist_overdue': {
    description: 'The artist due date passed and nothing was submitted.',
    exampleResult: { jobId: '…', artist: 'artist@example.com', artistDueDate: 1767139200000 },
  },
  'job.overdue': {
    description: 'The job due date passed and the job is not accepted.',
    exampleResult: { jobId: '…', status: 'SUBMITTED', dueDate: 1767225600000 },
  },
  'experience.action': {
    description:
      'A webhook node of an experience (flow) fired: `data.result` is the node’s rendered `result` plus `nodeId`. A node with an `endpointId` sends it to that endpoint only.',
    exampleResult: { step: 'welcome', plan: 'pro', nodeId: 'welcome' },
  },
  'experience.goal.reached': {
    description: 'A run of an experience reached one of its goals, whatever node it was on.',
    exampleResult: { goal: 'purchased', eventType: 'purchase', eventId: 'iev_…' },
  },
  'experience.ended': {
    description:
      'A run of an identified person ended. `reason` is completed, goal_reached, max_duration, cancelled or failed; `nodeId` is the node it ended on.',
    exampleResult: { reason: 'goal_reached', nodeId: 'await' },
  },
  'experience.completed': {
    description: 'A run that never identified a person ended (the generic completion event): its `data` has no `clientUserId`.',
    exampleResult: { reason: 'completed', nodeId: 'done' },
  },
  'abtest.started': {
    description: 'An A/B test started at its playTime: its audience was snapshotted and split into arms A, B and the remainder.',
    exampleResult: { abTestId: '…', appId: '…', audience: 12, arms: { A: 3, B: 3, remainder: 6 }, playTime: '2026-11-20T10:00:00.000+0100', expiry: 1440 },
  },
  'abtest.completed': {
    description: 'An A/B test was decided by click-through rate (and the winner sent to the rest of the segment).',
    exampleResult: { abTestId: '…', appId: '…', winner: 'B', ctrA: 0.021, ctrB: 0.034, pValue: 0.012 },
  },
  'message.sending': {
    description: 'A scheduled message started going out: its segment was snapshotted (`audience` devices) at playTime.',
    exampleResult: { notificationId: '…', appId: '…', audience: 20000, playTime: 1767225600000 },
  },
  'message.sent': {
    description: 'A scheduled message went out to its whole snapshot: the pushes FCM accepted, refused, and found unregistered.',
    exampleResult: { notificationId: '…', appId: '…', audience: 20000, sent: 19870, failed: 12, unregistered: 118 },
  },
  'message.expired': {
    description: 'A scheduled message could not start before playTime + expiry (its recording was accepted too late): nothing was sent.',
    exampleResult: { notificationId: '…', appId: '…', audience: 0, sent: 0, failed: 0, unregistered: 0, playTime: 1767225600000 },
  },
} as const satisfies Record<string, EventTypeInfo>;

export type EventType = keyof typeof eventTypeCatalogue;
export const eventTypeNames = Object.keys(eventTypeCatalogue) as [EventType, ...EventType[]];

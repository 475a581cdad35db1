import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { beginCampaignSend, finishCampaignSend, readCampaignMessage } from './campaign-send-activities.ts';
import {
  cancelCampaignSend,
  campaignSendState,
  localTimeAheadMs,
  messageReady,
  scheduleCampaignSend,
  sendDeadlineOf,
  type CampaignEnd,
  type CampaignRunState,
  type CampaignSendInput,
  type ScheduleCampaign,
} from './campaign-send.contract.ts';
import { describeEnd, showRun } from './campaign-send-details.ts';
import { applyCounts, sendSnapshot } from './campaign-send-snapshot.ts';
import { failureReason } from './failure-reason.ts';

const defaultHistoryLimit = 10_000;
const maxTimerMs = 7 * 24 * 3_600_000;

/** A send run's state, shared by its handlers and its steps. */
interface SendRun {
  input: CampaignSendInput;
  /** What the `state` query and the updates answer. */
  view: CampaignRunState;
  /** The message can be sent (READY): read at the start, or signalled. */
  ready: boolean;
  /** Counts the schedule's moves, so a wait wakes when the schedule moves. */
  scheduleChanges: number;
  cancelled: boolean;
  ended: boolean;
  /** The scope of the send's activities: the cancel update cancels it. */
  work: CancellationScope;
}

/** When a send can start, and when it can start no more. */
interface SendWindow {
  startAt: number;
  deadline: number;
}

/**
 * A message's send, `send:<notificationId>`, as a state machine: SCHEDULED (or WAITING_FOR_RECORDING) until the
 * message is READY and playTime has come, the schedule free to move meanwhile; EXPIRED, saying why, if that cannot
 * happen before playTime + expiry. Then SENDING: it snapshots the segment and sends its shards a few at a time (each
 * one activity), and ends SENT, or FAILED when a shard fails for good. Cancelling stops the send within a wave: the API
 * marks it CANCELLED in Postgres, which every wave checks, and this run cancels its activities.
 */
export async function campaignSend(input: CampaignSendInput): Promise<CampaignRunState> {
  const send = newSendRun(input);
  handleMessages(send);
  const message = await readCampaignMessage({ notificationId: input.notificationId });
  send.ready ||= message.ready;
  const waited = await untilSendTime(send, message.expiryMinutes);
  const outcome = waited === 'send' ? await sendToSegment(send) : waited;
  await end(send, send.cancelled ? { state: 'CANCELLED', reason: outcome.reason } : outcome);
  return send.view;
}

function newSendRun(input: CampaignSendInput): SendRun {
  const { carried } = input;
  const view: CampaignRunState = {
    state: 'SCHEDULED',
    playTime: carried?.playTime ?? null,
    filterId: carried?.filterId ?? null,
    ratePerMinute: carried?.ratePerMinute ?? null,
    sendInLocalTime: carried?.sendInLocalTime ?? false,
    groups: [],
    audience: null,
    sent: 0,
    failed: 0,
    unregistered: 0,
    skipped: 0,
    cancelled: 0,
    expired: 0,
    capped: 0,
    quiet: 0,
    clicked: 0,
    conversions: 0,
    ctr: null,
    conversionRate: null,
    startedAt: null,
    finishedAt: null,
    reason: null,
    shards: { done: 0, total: 0 },
  };
  return { input, view, ready: carried?.ready ?? false, scheduleChanges: 0, cancelled: false, ended: false, work: new CancellationScope() };
}

function handleMessages(send: SendRun): void {
  setHandler(campaignSendState, () => send.view);
  setHandler(scheduleCampaignSend, (schedule) => onSchedule(send, schedule), { validator: (_schedule: ScheduleCampaign) => refuseOnceSending(send) });
  setHandler(cancelCampaignSend, () => onCancel(send), { validator: () => refuseOnceEnded(send) });
  setHandler(messageReady, () => {
    send.ready = true;
  });
}

/** Sets or moves playTime and the segment; the wait follows. Each schedule names the whole schedule. */
function onSchedule(send: SendRun, { playTime, filterId, ratePerMinute, sendInLocalTime }: ScheduleCampaign): CampaignRunState {
  Object.assign(send.view, { playTime, filterId, ratePerMinute: ratePerMinute ?? null, sendInLocalTime: sendInLocalTime ?? false });
  send.scheduleChanges++;
  return send.view;
}

function refuseOnceSending({ view }: SendRun): void {
  if (view.state !== 'SCHEDULED' && view.state !== 'WAITING_FOR_RECORDING') {
    throw ApplicationFailure.create({ type: 'invalid_state', message: `The send is ${view.state}; its schedule can no longer change`, nonRetryable: true });
  }
}

/** Stops whatever the run is doing, and answers once it has ended. */
async function onCancel(send: SendRun): Promise<CampaignRunState> {
  send.cancelled = true;
  send.work.cancel();
  await condition(() => send.ended);
  return send.view;
}

function refuseOnceEnded({ ended, view }: SendRun): void {
  if (ended) throw ApplicationFailure.create({ type: 'invalid_state', message: `The send has ended (${view.state})`, nonRetryable: true });
}

/**
 * Waits until the message is READY and playTime has come ('send'), or the send expired or was cancelled, following
 * the schedule as it moves. In local time the send starts when the zone furthest ahead reaches playTime's wall-clock
 * time, and expires only when the zone furthest behind would be past it plus expiry.
 */
async function untilSendTime(send: SendRun, expiryMinutes: number): Promise<'send' | CampaignEnd> {
  for (;;) {
    if (send.cancelled) return { state: 'CANCELLED', reason: null };
    const { playTime, sendInLocalTime } = send.view;
    if (playTime === null) {
      await condition(() => send.view.playTime !== null || send.cancelled);
      continue;
    }
    const window: SendWindow = {
      startAt: sendInLocalTime ? playTime - localTimeAheadMs : playTime,
      deadline: sendDeadlineOf({ playTime, sendInLocalTime }, expiryMinutes),
    };
    if (Date.now() >= window.deadline) return { state: 'EXPIRED', reason: expiredReason(send) };
    if (send.ready && Date.now() >= window.startAt) return 'send';
    await untilScheduleChanges(send, window);
    await continueAsNewIfLong(send);
  }
}

/** Why a send that never started expired. */
function expiredReason({ ready, view }: SendRun): string {
  if (!ready) return 'the message’s recording was not accepted before playTime + expiry';
  return `playTime + expiry passed${view.sendInLocalTime ? ' in every time zone' : ''} before the send could start`;
}

/** Waits for the window's next instant, or for the schedule, the message or a cancel to change what it is. */
async function untilScheduleChanges(send: SendRun, { startAt, deadline }: SendWindow): Promise<void> {
  const { ready, scheduleChanges } = send;
  showRun(send.view, ready ? 'SCHEDULED' : 'WAITING_FOR_RECORDING', ready ? `sends at ${new Date(startAt).toISOString()}` : 'waiting for the message’s recording to be accepted');
  // At most a week per timer: a playTime centuries ahead is a valid epoch ms but not a valid timer.
  const wakeInMs = Math.min(maxTimerMs, Math.max(1, (ready ? startAt : deadline) - Date.now()));
  await condition(() => send.scheduleChanges !== scheduleChanges || send.ready !== ready || send.cancelled, wakeInMs);
}

/** A schedule moved again and again: hands the wait to a fresh history. */
async function continueAsNewIfLong(send: SendRun): Promise<void> {
  const info = workflowInfo();
  const long = info.continueAsNewSuggested || info.historyLength > (send.input.historyLimit ?? defaultHistoryLimit);
  const { playTime, filterId, ratePerMinute, sendInLocalTime } = send.view;
  if (!long || send.cancelled || !allHandlersFinished() || playTime === null || filterId === null) return;
  const carried = { version: 1 as const, playTime, filterId, ready: send.ready, ratePerMinute, sendInLocalTime };
  await continueAsNew<typeof campaignSend>({ ...send.input, version: 1, carried });
}

/** SENDING: takes the segment's snapshot and sends it, in the scope the cancel update cancels. */
async function sendToSegment(send: SendRun): Promise<CampaignEnd> {
  try {
    return await send.work.run(() => snapshotAndSend(send));
  } catch (error) {
    if (isCancellation(error)) return { state: 'CANCELLED', reason: null };
    if (error instanceof ActivityFailure) return { state: 'FAILED', reason: failureReason(error) };
    // A bug in this code: fail the workflow task, so a fixed worker resumes the run.
    throw error;
  }
}

async function snapshotAndSend(send: SendRun): Promise<CampaignEnd> {
  showRun(send.view, 'SENDING', 'taking the segment’s snapshot');
  const { notificationId } = send.input;
  const begun = await beginCampaignSend({ notificationId, filterId: send.view.filterId!, playTime: send.view.playTime! });
  if (begun.outcome === 'failed') return { state: 'FAILED', reason: begun.reason };
  // The send ended in Postgres before its snapshot (cancelled through the API meanwhile): it ends as the row says.
  if (begun.outcome === 'not-scheduled') return begun.state === 'EXPIRED' ? { state: 'EXPIRED', reason: 'expired before its snapshot' } : { state: begun.state, reason: null };
  await sendSnapshot(send.view, notificationId, begun);
  return { state: 'SENT', reason: null };
}

/** Records the end in Postgres (which keeps an end already recorded there), shows it, and answers the cancel update. */
async function end(send: SendRun, outcome: CampaignEnd): Promise<void> {
  send.view.reason = outcome.reason;
  const finished = await CancellationScope.nonCancellable(() => finishCampaignSend({ notificationId: send.input.notificationId, ...outcome }));
  applyCounts(send.view, finished.counts);
  Object.assign(send.view, { finishedAt: new Date(finished.finishedAt).toISOString(), reason: finished.reason });
  showRun(send.view, finished.state, describeEnd(finished.state, send.view));
  send.ended = true;
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
}

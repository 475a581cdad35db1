import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SendState } from '../src/sandbox-safe/search-attributes.ts';
import { formatUtcOffset } from '../src/sandbox-safe/utc-offset.ts';
import {
  cancelCampaignSend,
  campaignSendState,
  conversionRateOf,
  ctrOf,
  localTimeAheadMs,
  localTimeBehindMs,
  messageReady,
  scheduleCampaignSend,
  type CampaignCounts,
  type CampaignRunGroup,
  type CampaignSendGroup,
  type CampaignRunState,
  type CampaignEndState,
  type CampaignRunStateName,
  type CampaignSendInput,
  type ScheduleCampaign,
} from './campaign-send.contract.ts';
import { failureReason } from './failure-reason.ts';

const { readCampaignMessage, beginCampaignSend, readCampaignCounts, finishCampaignSend } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumInterval: '1 minute' },
});
// A shard is sent wave by wave in one activity; its heartbeat carries the last wave done, so a retry resumes there.
const { sendCampaignShard, sendHeldCampaignPushes } = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});

// Sends go group by group, each at its own time (a send in local time), and send the pushes quiet hours held when
// they are due; earlier runs sent every shard at once, and held nothing.
const deliveryControlsPatch = 'campaign-send-delivery-controls';
const defaultHistoryLimit = 10_000;
const maxTimerMs = 7 * 24 * 3_600_000;
/** How often a sending run reads its counts for the `state` query and its details. */
const refreshEveryMs = 15_000;

/**
 * A message's send, `send:<notificationId>`. Waits until the message is READY and playTime has come (the schedule may
 * move meanwhile); ends EXPIRED if that cannot happen before playTime + expiry. Then snapshots the segment, sends its
 * shards a few at a time (each one activity), and ends SENT. Cancelling stops the send within a wave: the API marks it
 * CANCELLED in Postgres, which every wave checks, and this run cancels its activities.
 */
export async function campaignSend(input: CampaignSendInput): Promise<CampaignRunState> {
  const { notificationId } = input;
  const run: CampaignRunState = {
    state: 'SCHEDULED',
    playTime: input.carried?.playTime ?? null,
    filterId: input.carried?.filterId ?? null,
    ratePerMinute: input.carried?.ratePerMinute ?? null,
    sendInLocalTime: input.carried?.sendInLocalTime ?? false,
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
  let ready = input.carried?.ready ?? false;
  let scheduleChanges = 0;
  let cancelled = false;
  let ended = false;
  const work = new CancellationScope();

  const show = (state: CampaignRunStateName, details: string) => {
    if (state !== run.state) upsertSearchAttributes([{ key: SendState, value: state }]);
    run.state = state;
    setCurrentDetails(
      [
        `**${state}** · ${details}`,
        `audience: ${run.audience ?? '—'} · sent ${run.sent} · failed ${run.failed} · unregistered ${run.unregistered} · shards ${run.shards.done}/${run.shards.total}`,
        run.playTime === null
          ? 'not scheduled'
          : `playTime: ${new Date(run.playTime).toISOString()}${run.sendInLocalTime ? ' in each device’s local time' : ''} · segment ${run.filterId}`,
        ...run.groups.map(describeGroup),
      ].join('\n'),
    );
  };
  const counted = (counts: CampaignCounts) => Object.assign(run, counts, { ctr: ctrOf(counts), conversionRate: conversionRateOf(counts) });

  setHandler(campaignSendState, () => run);
  setHandler(
    scheduleCampaignSend,
    ({ playTime, filterId, ratePerMinute, sendInLocalTime }) => {
      Object.assign(run, { playTime, filterId, ratePerMinute: ratePerMinute ?? null, sendInLocalTime: sendInLocalTime ?? false });
      scheduleChanges++;
      return run;
    },
    {
      validator: (_schedule: ScheduleCampaign) => {
        if (run.state !== 'SCHEDULED' && run.state !== 'WAITING_FOR_RECORDING') {
          throw ApplicationFailure.create({ type: 'invalid_state', message: `The send is ${run.state}; its schedule can no longer change`, nonRetryable: true });
        }
      },
    },
  );
  setHandler(
    cancelCampaignSend,
    async () => {
      cancelled = true;
      work.cancel();
      await condition(() => ended);
      return run;
    },
    {
      validator: () => {
        if (ended) throw ApplicationFailure.create({ type: 'invalid_state', message: `The send has ended (${run.state})`, nonRetryable: true });
      },
    },
  );
  setHandler(messageReady, () => {
    ready = true;
  });

  const message = await readCampaignMessage({ notificationId });
  ready ||= message.ready;

  /**
   * Waits until the message is READY and playTime has come: 'send', or 'expired', or 'cancelled'. In local time the
   * send starts when the zone furthest ahead reaches playTime's wall-clock time, and expires only when the zone
   * furthest behind would be past it plus expiry.
   */
  async function untilSendTime(): Promise<'send' | 'expired' | 'cancelled'> {
    for (;;) {
      if (cancelled) return 'cancelled';
      if (run.playTime === null) {
        await condition(() => run.playTime !== null || cancelled);
        continue;
      }
      const startAt = run.sendInLocalTime ? run.playTime - localTimeAheadMs : run.playTime;
      const deadline = (run.sendInLocalTime ? run.playTime + localTimeBehindMs : run.playTime) + message.expiryMinutes * 60_000;
      const now = Date.now();
      if (now >= deadline) return 'expired';
      if (ready && now >= startAt) return 'send';
      show(ready ? 'SCHEDULED' : 'WAITING_FOR_RECORDING', ready ? `sends at ${new Date(startAt).toISOString()}` : 'waiting for the message’s recording to be accepted');
      const seen = { changes: scheduleChanges, ready };
      // At most a week per timer: a playTime centuries ahead is a valid epoch ms but not a valid timer.
      const wakeInMs = Math.min(maxTimerMs, Math.max(1, (ready ? startAt : deadline) - now));
      await condition(() => scheduleChanges !== seen.changes || ready !== seen.ready || cancelled, wakeInMs);
      // A schedule moved again and again: hand the wait to a fresh history.
      const info = workflowInfo();
      if ((info.continueAsNewSuggested || info.historyLength > (input.historyLimit ?? defaultHistoryLimit)) && !cancelled && allHandlersFinished()) {
        const carried = { version: 1 as const, playTime: run.playTime, filterId: run.filterId!, ready, ratePerMinute: run.ratePerMinute, sendInLocalTime: run.sendInLocalTime };
        await continueAsNew<typeof campaignSend>({ ...input, version: 1, carried });
      }
    }
  }

  async function send(): Promise<CampaignEndState> {
    show('SENDING', 'taking the segment’s snapshot');
    const begun = await beginCampaignSend({ notificationId, filterId: run.filterId!, playTime: run.playTime! });
    if (begun.outcome !== 'started') return begun.outcome === 'failed' ? fail(begun.reason) : begun.state;
    const allShards = Array.from({ length: begun.shards }, (_, shard) => shard);
    const controlled = patched(deliveryControlsPatch);
    const groups: CampaignSendGroup[] =
      controlled && begun.groups ? begun.groups : [{ sendAt: null, utcOffsetMinutes: null, devices: begun.audience, expired: false, shards: allShards }];
    const inLocalTime = groups.some((group) => group.sendAt !== null);
    if (inLocalTime) run.groups = groups.map((group) => ({ utcOffsetMinutes: group.utcOffsetMinutes, sendAt: group.sendAt, devices: group.devices, state: group.expired ? 'expired' : 'waiting' }));
    Object.assign(run, { audience: begun.audience, startedAt: new Date(begun.startedAt).toISOString(), shards: { done: 0, total: begun.shards } });
    const throttle = run.ratePerMinute ? `, at most ${run.ratePerMinute} a minute` : '';
    const timing = inLocalTime ? ` in ${groups.length} local-time group(s)` : '';
    show('SENDING', `sending ${begun.audience} devices in ${begun.shards} shard(s)${timing}, ${begun.lanes} at a time${throttle}`);
    // A shard that fails for good stops the send: no lane takes another, the shards under way are cancelled, and
    // groups still waiting for their time are not sent.
    const shardWork = new CancellationScope();
    let failure: ActivityFailure | undefined;
    let sending = 0;
    let groupsDone = false;
    // When the next push quiet hours held is due, as the last activity to look said; held pushes exist once one did.
    let nextHeld: number | null = null;
    let sawHeld = false;
    const noteHeld = (result: { nextHeld: number | null } | undefined) => {
      if (!controlled || !result) return;
      nextHeld = result.nextHeld;
      sawHeld ||= result.nextHeld !== null;
    };
    /** Runs `step` unless another lane's failure cancelled it: then quietly answers false. */
    const unlessFailed = async (step: () => Promise<unknown>): Promise<boolean> => {
      try {
        await step();
        return true;
      } catch (error) {
        if (isCancellation(error) && failure !== undefined) return false;
        throw error;
      }
    };
    const sendGroup = async (group: CampaignSendGroup, view: CampaignRunGroup | undefined) => {
      if (group.expired) return;
      const waitMs = group.sendAt === null ? 0 : group.sendAt - Date.now();
      if (waitMs > 0 && !(await unlessFailed(() => sleep(waitMs)))) return;
      sending++;
      if (view) view.state = 'sending';
      let next = 0;
      const lane = async () => {
        while (failure === undefined && next < group.shards.length) {
          const shard = group.shards[next++]!;
          try {
            noteHeld(await sendCampaignShard({ notificationId, shard }));
            run.shards.done++;
          } catch (error) {
            if (isCancellation(error)) {
              // Cancelled by another lane's failure: stop quietly. Cancelled from outside: the send is cancelled.
              if (failure !== undefined) return;
              throw error;
            }
            if (!(error instanceof ActivityFailure)) throw error;
            failure = error;
            shardWork.cancel();
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(begun.lanes, group.shards.length) }, lane));
      } finally {
        sending--;
      }
      if (view && failure === undefined) view.state = 'sent';
    };
    /**
     * Sends the pushes quiet hours held, each batch when it is due (a timer, woken early when an earlier one is held),
     * until every group is done and nothing is held. The last look comes after every group: an answer that arrived
     * out of order cannot make it stop early.
     */
    const sendHeld = async () => {
      if (!controlled) return;
      for (;;) {
        await condition(() => nextHeld !== null || groupsDone);
        if (nextHeld === null) {
          if (!sawHeld) return;
          sawHeld = false;
          noteHeld(await sendHeldCampaignPushes({ notificationId }));
          if (nextHeld === null) return;
          continue;
        }
        const due: number = nextHeld;
        const waitMs = due - Date.now();
        // The operator sees what the run waits for (details only: no command, so replay is unchanged).
        if (waitMs > 0 && sending === 0) show('SENDING', `waiting for pushes held by quiet hours, the next due at ${new Date(due).toISOString()}`);
        if (waitMs > 0 && (await condition(() => nextHeld !== null && nextHeld < due, waitMs))) continue;
        sending++;
        try {
          noteHeld(await sendHeldCampaignPushes({ notificationId }));
        } finally {
          sending--;
        }
      }
    };
    const allGroups = async () => {
      await Promise.all(groups.map((group, index) => sendGroup(group, run.groups[index])));
      groupsDone = true;
    };
    const lanes = shardWork.run(() => Promise.all([allGroups(), unlessFailed(sendHeld)]));
    let allSent = false;
    void lanes.then(() => (allSent = true), () => (allSent = true));
    while (!allSent) {
      // Between local-time groups nothing moves: wait for the next group's timer without reading counts.
      if (sending === 0) {
        await condition(() => allSent || sending > 0);
        continue;
      }
      if (await condition(() => allSent, refreshEveryMs)) break;
      counted(await readCampaignCounts({ notificationId }));
      show('SENDING', `${run.shards.done} of ${run.shards.total} shard(s) sent`);
    }
    await lanes;
    if (failure !== undefined) throw failure;
    return 'SENT';
  }

  const fail = (reason: string): CampaignEndState => {
    run.reason = reason;
    return 'FAILED';
  };

  let outcome: CampaignEndState;
  const waited = await untilSendTime();
  if (waited === 'send') {
    try {
      outcome = await work.run(send);
    } catch (error) {
      if (isCancellation(error)) outcome = 'CANCELLED';
      else if (error instanceof ActivityFailure) outcome = fail(failureReason(error));
      // A bug in this code: fail the workflow task, so a fixed worker resumes the run.
      else throw error;
    }
  } else {
    outcome = waited === 'expired' ? 'EXPIRED' : 'CANCELLED';
  }
  if (cancelled) outcome = 'CANCELLED';
  const finished = await CancellationScope.nonCancellable(() =>
    finishCampaignSend({ notificationId, state: outcome, reason: run.reason }),
  );
  counted(finished.counts);
  Object.assign(run, { finishedAt: new Date(finished.finishedAt).toISOString(), reason: finished.reason });
  show(finished.state, describeEnd(finished.state, run));
  ended = true;
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return run;
}

function describeGroup(group: CampaignRunGroup): string {
  const offset = group.utcOffsetMinutes === null ? '' : `UTC${formatUtcOffset(group.utcOffsetMinutes)} `;
  const at = group.sendAt === null ? 'now' : new Date(group.sendAt).toISOString();
  return `- ${offset}at ${at}: ${group.devices} devices, ${group.state}`;
}

function describeEnd(state: CampaignEndState, run: CampaignRunState): string {
  switch (state) {
    case 'SENT':
      return `sent to ${run.sent} of ${run.audience ?? 0} devices`;
    case 'EXPIRED':
      return 'expired: the send could not start before playTime + expiry; nothing was sent';
    case 'CANCELLED':
      return 'cancelled: nothing more is sent';
    default:
      return `ended ${state}${run.reason ? `: ${run.reason}` : ''}`;
  }
}

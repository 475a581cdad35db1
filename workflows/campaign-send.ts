import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SendState } from '../src/sandbox-safe/search-attributes.ts';
import {
  cancelCampaignSend,
  campaignSendState,
  ctrOf,
  messageReady,
  scheduleCampaignSend,
  type CampaignCounts,
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
const { sendCampaignShard } = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});

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
    audience: null,
    sent: 0,
    failed: 0,
    unregistered: 0,
    skipped: 0,
    cancelled: 0,
    clicked: 0,
    ctr: null,
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
        run.playTime === null ? 'not scheduled' : `playTime: ${new Date(run.playTime).toISOString()} · segment ${run.filterId}`,
      ].join('\n'),
    );
  };
  const counted = (counts: CampaignCounts) => Object.assign(run, counts, { ctr: ctrOf(counts) });

  setHandler(campaignSendState, () => run);
  setHandler(
    scheduleCampaignSend,
    ({ playTime, filterId, ratePerMinute }) => {
      Object.assign(run, { playTime, filterId, ratePerMinute: ratePerMinute ?? null });
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

  /** Waits until the message is READY and playTime has come: 'send', or 'expired', or 'cancelled'. */
  async function untilSendTime(): Promise<'send' | 'expired' | 'cancelled'> {
    for (;;) {
      if (cancelled) return 'cancelled';
      if (run.playTime === null) {
        await condition(() => run.playTime !== null || cancelled);
        continue;
      }
      const deadline = run.playTime + message.expiryMinutes * 60_000;
      const now = Date.now();
      if (now >= deadline) return 'expired';
      if (ready && now >= run.playTime) return 'send';
      show(ready ? 'SCHEDULED' : 'WAITING_FOR_RECORDING', ready ? `sends at ${new Date(run.playTime).toISOString()}` : 'waiting for the message’s recording to be accepted');
      const seen = { changes: scheduleChanges, ready };
      // At most a week per timer: a playTime centuries ahead is a valid epoch ms but not a valid timer.
      const wakeInMs = Math.min(maxTimerMs, Math.max(1, (ready ? run.playTime : deadline) - now));
      await condition(() => scheduleChanges !== seen.changes || ready !== seen.ready || cancelled, wakeInMs);
      // A schedule moved again and again: hand the wait to a fresh history.
      const info = workflowInfo();
      if ((info.continueAsNewSuggested || info.historyLength > (input.historyLimit ?? defaultHistoryLimit)) && !cancelled && allHandlersFinished()) {
        await continueAsNew<typeof campaignSend>({ ...input, version: 1, carried: { version: 1, playTime: run.playTime, filterId: run.filterId!, ready, ratePerMinute: run.ratePerMinute } });
      }
    }
  }

  async function send(): Promise<CampaignEndState> {
    show('SENDING', 'taking the segment’s snapshot');
    const begun = await beginCampaignSend({ notificationId, filterId: run.filterId!, playTime: run.playTime! });
    if (begun.outcome !== 'started') return begun.outcome === 'failed' ? fail(begun.reason) : begun.state;
    Object.assign(run, { audience: begun.audience, startedAt: new Date(begun.startedAt).toISOString(), shards: { done: 0, total: begun.shards } });
    const throttle = run.ratePerMinute ? `, at most ${run.ratePerMinute} a minute` : '';
    show('SENDING', `sending ${begun.audience} devices in ${begun.shards} shard(s), ${begun.lanes} at a time${throttle}`);
    // A shard that fails for good stops the send: no lane takes another, and the shards under way are cancelled.
    const shardWork = new CancellationScope();
    let failure: ActivityFailure | undefined;
    let next = 0;
    const lane = async () => {
      while (failure === undefined && next < begun.shards) {
        const shard = next++;
        try {
          await sendCampaignShard({ notificationId, shard });
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
    const lanes = shardWork.run(() => Promise.all(Array.from({ length: Math.min(begun.lanes, begun.shards) }, lane)));
    let allSent = false;
    void lanes.then(() => (allSent = true), () => (allSent = true));
    while (!allSent) {
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

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
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { AbTestState as AbTestStateKey } from '../src/sandbox-safe/search-attributes.ts';
import { winnerMetricLabel } from '../src/sandbox-safe/winner-metric.ts';
import { abTestState, cancelAbTest, scheduleAbTest, withdrawAbTest, type AbTestInput, type AbTestRunState, type AbTestState } from './ab-test.contract.ts';
import { failureReason } from './failure-reason.ts';

// They heartbeat while they run: a worker that dies mid-step is seen within 10 s, not at the 2 minutes.
const { beginAbTest, readAbTestResults, decideAbTest, completeAbTest, endAbTest } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumInterval: '1 minute' },
});
// One activity sends a whole arm page by page; the heartbeat carries the last page done, so a retry resumes there.
const { sendAbTestArm } = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/** How often a running test reads its provisional results for the `state` query: about 100 times per window. */
const refreshEveryMs = (expiryMinutes: number) => Math.max(60_000, (expiryMinutes * 60_000) / 100);
const defaultHistoryLimit = 10_000;

/** Each arm's counts as the run last read them. */
type ArmFigures = Awaited<ReturnType<Activities['readAbTestResults']>>['arms'];

/** What decides the test, once it has begun, and the arms' figures last read: the run's details show both. */
interface Decision {
  metric: string | null;
  arms: ArmFigures | null;
}

type Show = (state: AbTestState, details: string) => void;

/**
 * One A/B test, `abtest:<testId>`. Before playTime the schedule may move or be withdrawn (updates); at playTime the
 * run snapshots the audience, sends A's message to arm A and B's to arm B, keeps the test RUNNING for `expiry`
 * minutes, decides the winner by its metric (click-through or conversion rate), sends it to the rest of the segment
 * and completes. Cancelling stops whatever it is doing: nothing more is sent and no winner is declared.
 */
export async function abTest(input: AbTestInput): Promise<AbTestRunState> {
  const { testId } = input;
  const run: AbTestRunState = {
    state: 'SCHEDULED',
    playTime: input.carried?.playTime ?? null,
    phase: input.carried?.playTime ? 'scheduled' : 'waiting',
    audience: null,
    sent: { A: 0, B: 0, remainder: 0 },
    winner: null,
    provisional: null,
  };
  let cancelled = false;
  let ended = false;
  const decision: Decision = { metric: null, arms: null };
  const work = new CancellationScope();

  const show: Show = (state, details) => {
    if (state !== run.state) upsertSearchAttributes([{ key: AbTestStateKey, value: [state] }]);
    run.state = state;
    setCurrentDetails(
      [
        `**${state}** · ${details}`,
        `audience: ${run.audience ?? '—'} · sent A ${run.sent.A} · B ${run.sent.B} · remainder ${run.sent.remainder} · winner: ${run.winner ?? '—'}`,
        run.playTime ? `playTime: ${new Date(run.playTime).toISOString()}` : 'not scheduled',
        ...(decision.metric ? [describeMetric(decision.metric, decision.arms)] : []),
      ].join('\n'),
    );
  };
  const refuseOnceStarted = (..._args: unknown[]) => {
    if (run.phase !== 'waiting' && run.phase !== 'scheduled') {
      throw ApplicationFailure.create({ type: 'invalid_state', message: `The test is ${run.state}; its schedule can no longer change`, nonRetryable: true });
    }
  };

  setHandler(abTestState, () => run);
  setHandler(
    scheduleAbTest,
    ({ playTime }) => {
      run.playTime = playTime;
      run.phase = 'scheduled';
      show('SCHEDULED', `starts at ${new Date(playTime).toISOString()}`);
      return run;
    },
    { validator: refuseOnceStarted },
  );
  setHandler(
    withdrawAbTest,
    () => {
      run.playTime = null;
      run.phase = 'waiting';
      show('SCHEDULED', 'schedule withdrawn; waiting to be scheduled again');
      return run;
    },
    { validator: refuseOnceStarted },
  );
  setHandler(
    cancelAbTest,
    async () => {
      cancelled = true;
      work.cancel();
      await condition(() => ended);
      return run;
    },
    {
      validator: () => {
        if (ended) throw ApplicationFailure.create({ type: 'invalid_state', message: `The test has ended (${run.state})`, nonRetryable: true });
      },
    },
  );

  /** Waits for playTime, following the schedule as it moves; false when the test was cancelled first. */
  async function untilPlayTime(): Promise<boolean> {
    for (;;) {
      if (cancelled) return false;
      const at = run.playTime;
      if (at === null) {
        await condition(() => run.playTime !== null || cancelled);
        continue;
      }
      const changed = await condition(() => run.playTime !== at || cancelled, Math.max(1, at - Date.now()));
      if (!changed) return true;
      // A schedule moved again and again: hand the wait, with the current playTime, to a fresh history.
      const info = workflowInfo();
      if ((info.continueAsNewSuggested || info.historyLength > (input.historyLimit ?? defaultHistoryLimit)) && !cancelled && allHandlersFinished()) {
        await continueAsNew<typeof abTest>({ ...input, version: 1, carried: { version: 1, playTime: run.playTime } });
      }
    }
  }

  if (await untilPlayTime()) {
    try {
      await work.run(() => runTest(testId, run, show, decision));
    } catch (error) {
      if (isCancellation(error) && cancelled) {
        // Cancelled through the API: ended below.
      } else if (isCancellation(error)) {
        cancelled = true;
      } else if (error instanceof ActivityFailure) {
        await CancellationScope.nonCancellable(() => endAbTest({ testId, state: 'FAILED', reason: failureReason(error) }));
        show('FAILED', failureReason(error));
      } else {
        // A bug in this code: fail the workflow task, so a fixed worker resumes the run.
        throw error;
      }
    }
  }
  if (cancelled) {
    await CancellationScope.nonCancellable(() => endAbTest({ testId, state: 'CANCELLED', reason: 'cancelled' }));
    show('CANCELLED', 'cancelled: nothing more is sent and no winner is declared');
  }
  run.phase = 'ended';
  ended = true;
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return run;
}

/**
 * From playTime on: snapshots the audience, sends arms A and B, collects clicks or conversions for `expiry` minutes,
 * decides and sends the winner to the rest, and completes.
 */
async function runTest(testId: string, run: AbTestRunState, show: Show, decision: Decision): Promise<void> {
  run.phase = 'sending';
  const begun = await beginAbTest({ testId });
  if (begun.outcome === 'failed') {
    show('FAILED', begun.reason);
    return;
  }
  if (begun.outcome === 'not-scheduled') {
    // The schedule never committed in Postgres (the API's transaction failed after starting this run).
    show(begun.state, 'not scheduled in the database; nothing to do');
    return;
  }
  run.audience = begun.audience;
  decision.metric = winnerMetricLabel(begun.metric);
  show('RUNNING', `sending to arms A and B (${begun.arms.A} and ${begun.arms.B} devices)`);
  for (const arm of ['A', 'B'] as const) {
    run.sent[arm] = (await sendAbTestArm({ testId, arm })).sent;
    show('RUNNING', `sent arm ${arm}`);
  }
  run.phase = 'running';
  const windowEnds = Date.now() + begun.expiryMinutes * 60_000;
  const collecting = `collecting ${begun.metric === 'conversion' ? 'conversions' : 'clicks'} until ${new Date(windowEnds).toISOString()}`;
  show('RUNNING', collecting);
  while (Date.now() < windowEnds) {
    await sleep(Math.min(refreshEveryMs(begun.expiryMinutes), windowEnds - Date.now()));
    const provisional = await readAbTestResults({ testId });
    run.provisional = provisional;
    decision.arms = provisional.arms;
    show('RUNNING', collecting);
  }
  run.phase = 'deciding';
  const decided = await decideAbTest({ testId });
  run.winner = decided.winner;
  run.provisional = null;
  decision.arms = decided.results.arms;
  if (decided.winner && begun.arms.remainder > 0) {
    run.phase = 'sending-winner';
    show('RUNNING', `sending the winner (${decided.winner}) to the remaining ${begun.arms.remainder} devices`);
    run.sent.remainder = (await sendAbTestArm({ testId, arm: 'remainder' })).sent;
  }
  await completeAbTest({ testId });
  show('COMPLETED', decided.winner ? `winner ${decided.winner} by ${decision.metric}` : `no winner: equal ${decision.metric}s`);
}

/** `decided by conversion rate · A: 2 of 3 sent clicked, 1 converted · B: …`, the arms once counted. */
function describeMetric(metric: string, arms: ArmFigures | null): string {
  if (!arms) return `decided by ${metric}`;
  const arm = (name: 'A' | 'B') => `${name}: ${arms[name].clicks} of ${arms[name].sent} sent clicked, ${arms[name].conversions ?? 0} converted`;
  return [`decided by ${metric}`, arm('A'), arm('B')].join(' · ');
}

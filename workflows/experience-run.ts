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
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RunRef } from '../src/domain/experiences/run-ref.ts';
import type { GoalReached } from '../src/domain/experiences/run-steps.ts';
import { nodeById, takeSplit } from '../src/sandbox-safe/experiences/definition-graph.ts';
import type { Condition, ExperienceNode } from '../src/domain/experiences/definition-schema.ts';
import { CurrentNode, RunStatus } from '../src/sandbox-safe/search-attributes.ts';
import {
  cancelRun,
  runEvent,
  runEvents,
  runState,
  type BufferedEvent,
  type CarriedRunState,
  type ExperienceEndReason,
  type ExperienceRunStatus,
  type PathStep,
  type ExperienceRunInput,
  type ExperienceRunState,
  type RunEvent,
  type RunPosition,
} from './experience-run.contract.ts';
import { failureReason } from './failure-reason.ts';

// The run's own database steps: the run's row, its progress, and the events it publishes (written to the delivery
// outbox, which deliverBatch runs send). Short and idempotent, so they run as local activities, inside the workflow
// task that reaches them (docs/adr/0061-an-experience-run-s-database-steps-are-local-activities.md), the end too
// (ADR 0062): the task that completes a run fails when an event came in meanwhile, and its local steps then run
// again, which changes nothing. Runs started before keep the steps they began with: every step an activity, or
// every step but the end local.
const localStepsPatch = 'experience-run-local-steps';
const localEndPatch = 'experience-run-local-end';
// A run may start where routing's first steps left it (ADR 0066).
const walkedPatch = 'experience-run-walked-by-routing';
// An exit goal is announced by the end's own step, and the flow saves no progress while received events are still
// being checked against the goals (ADR 0073): a hand-over that ends a run costs one local step, not three.
const exitInEndPatch = 'experience-run-exit-goal-in-end';
const remoteSteps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});
const localSteps = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});
// A push node's send: FCM's pace and its retries live inside the activity, which heartbeats after each wave.
const { sendExperiencePush } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});
// A provider's API may be down for a while: back off up to 10 minutes, then record the failure and go on.
const { callExperienceProvider } = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 12 },
});
// Conditions read the visitor and the events from Postgres: a quick local read, no task queue round trip.
const { evaluateExperienceCondition } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/** The received events a run keeps for its waitForEvent nodes, and the event ids it remembers to drop repeats. */
const bufferLimit = 100;
const seenLimit = 500;
const defaultHistoryLimit = 10_000;

const statusOf: Record<ExperienceEndReason, ExperienceRunStatus> = {
  completed: 'completed',
  goal_reached: 'goal_reached',
  max_duration: 'cancelled',
  cancelled: 'cancelled',
  failed: 'failed',
};

/**
 * One person's run through one version of an experience, `experience:<experienceId>:<visitorId>[:<n>]`. The main
 * flow walks the nodes from `start`; beside it, every event the run receives is checked against the goals (whatever
 * node the run is on) and kept in a bounded buffer that waitForEvent nodes look at, so an event that arrives
 * between steps is not lost. A goal with `exit`, the cancel update, or maxDurationSeconds ends the flow early.
 */
export async function experienceRun(input: ExperienceRunInput): Promise<ExperienceRunState> {
  // One marker for a new run: the newest patch implies the older ones.
  const exitInEnd = patched(exitInEndPatch);
  const endLocal = exitInEnd || patched(localEndPatch);
  const { enterExperienceRun, saveExperienceRunProgress, fireExperienceWebhook, publishExperienceGoal } = endLocal || patched(localStepsPatch) ? localSteps : remoteSteps;
  const { endExperienceRun } = endLocal ? localSteps : remoteSteps;
  const { definition } = input;
  const carried = input.carried;
  const walked = !carried && input.walked && (exitInEnd || patched(walkedPatch)) ? input.walked : undefined;
  const run: RunRef = {
    runId: input.runId,
    accountId: input.accountId,
    experienceId: input.experienceId,
    visitorId: input.visitorId,
    clientUserId: input.clientUserId,
    triggerEventId: input.trigger.eventId,
  };
  const path: PathStep[] = carried?.path ?? walked?.path ?? [];
  const buffer: BufferedEvent[] = carried?.buffer ?? [];
  const seen: string[] = carried?.seen ?? [input.trigger.eventId];
  const goalsReached: string[] = carried?.goalsReached ?? [];
  const inbox: RunEvent[] = carried?.inbox ?? [];
  let nextSeq = carried?.nextSeq ?? 1;
  let currentNodeId: string | null = carried?.position.nodeId ?? walked?.nodeId ?? definition.start;
  let requestedEnd: { reason: ExperienceEndReason; detail: string | null } | undefined;
  /** Goals reached as the run ends, which the end announces. */
  const goalsAtEnd: GoalReached[] = [];
  let ended: { reason: ExperienceEndReason; endedAt: string } | undefined;
  let pumpBusy = false;

  const flow = new CancellationScope();
  const timers = new CancellationScope();
  const requestEnd = (reason: ExperienceEndReason, detail: string | null) => {
    if (requestedEnd || ended) return;
    requestedEnd = { reason, detail };
    flow.cancel();
  };

  const view = (): ExperienceRunState => ({
    status: ended ? statusOf[ended.reason] : 'running',
    currentNodeId,
    path,
    endReason: ended?.reason ?? null,
    endedAt: ended?.endedAt ?? null,
    bufferedEvents: buffer.length,
  });

  const showDetails = () => {
    const steps = path.map((step) => `- \`${step.nodeId}\` (${step.type}): ${step.outcome}`);
    const head = ended ? `**${statusOf[ended.reason]}** (${ended.reason})` : `**running** · at \`${currentNodeId}\``;
    setCurrentDetails([head, `events received: ${nextSeq - 1} · goals reached: ${goalsReached.join(', ') || '—'}`, ...steps].join('\n'));
  };

  const record = (node: { id: string; type: string }, outcome: string) => {
    path.push({ nodeId: node.id, type: node.type, at: new Date(Date.now()).toISOString(), outcome });
    showDetails();
  };

  const evaluate = (condition: Condition, eventId: string) => evaluateExperienceCondition({ run, condition, eventId });

  setHandler(runState, view);
  const take = (event: RunEvent) => {
    if (ended || seen.includes(event.eventId)) return;
    seen.push(event.eventId);
    if (seen.length > seenLimit) seen.splice(0, seen.length - seenLimit);
    inbox.push(event);
  };
  setHandler(runEvents, (events) => events.forEach(take));
  setHandler(runEvent, take);
  setHandler(
    cancelRun,
    async () => {
      requestEnd('cancelled', 'cancelled through the API');
      await condition(() => ended !== undefined);
      return view();
    },
    {
      validator: () => {
        if (ended) throw ApplicationFailure.create({ type: 'invalid_state', message: `The run has ended (${ended.reason})`, nonRetryable: true });
      },
    },
  );

  /** Checks one received event against every goal not yet reached, then keeps it for waitForEvent nodes. */
  async function receive(event: RunEvent): Promise<void> {
    for (const goal of definition.goals) {
      if (goalsReached.includes(goal.id) || goal.eventType !== event.eventType) continue;
      if (goal.conditions && !(await evaluate(goal.conditions, event.eventId))) continue;
      goalsReached.push(goal.id);
      record({ id: `goal:${goal.id}`, type: 'goal' }, `reached on ${event.eventType} ${event.eventId}${goal.exit ? '; exit' : ''}`);
      const reached = { goalId: goal.id, eventType: event.eventType, eventId: event.eventId };
      if (exitInEnd && (goal.exit || requestedEnd)) goalsAtEnd.push(reached);
      else await publishExperienceGoal({ run, ...reached });
      if (goal.exit) requestEnd('goal_reached', `goal ${goal.id}`);
    }
    buffer.push({ ...event, seq: nextSeq++, consumed: false });
    if (buffer.length > bufferLimit) buffer.splice(0, buffer.length - bufferLimit);
  }

  /** Handles received events one at a time, in order, until the run ends. */
  async function pumpEvents(): Promise<void> {
    try {
      for (;;) {
        await condition(() => inbox.length > 0 || requestedEnd !== undefined);
        if (requestedEnd) return;
        pumpBusy = true;
        try {
          await receive(inbox.shift()!);
        } finally {
          pumpBusy = false;
        }
      }
    } catch (error) {
      // The workflow itself was cancelled (from the Temporal UI, say): the main flow ends the run.
      if (!isCancellation(error)) throw error;
    }
  }

  /** Hands the run to a fresh one when its history is long; only while it waits and nothing is in flight. */
  async function continueIfLong(position: RunPosition): Promise<void> {
    const info = workflowInfo();
    if (!info.continueAsNewSuggested && info.historyLength <= (input.historyLimit ?? defaultHistoryLimit)) return;
    if (requestedEnd || pumpBusy || !allHandlersFinished()) return;
    const state: CarriedRunState = { version: 1, position, path, buffer, seen, goalsReached, inbox, nextSeq };
    await continueAsNew<typeof experienceRun>({ ...input, version: 1, carried: state });
  }

  let savedAt = '';
  /**
   * Persists where the run is before it waits (once per change), so the API shows it while the run sleeps, and hands
   * a long history to a fresh run unless the node cannot be resumed from its position alone (a push held by quiet
   * hours: a fresh run would not know which pushes were its own).
   */
  async function block(position: RunPosition, mayContinue = true): Promise<void> {
    // Events handed over together may still end the run (an exit goal): a run about to end saves no progress.
    if (exitInEnd) await condition(() => !pumpBusy && inbox.length === 0);
    const progress = `${currentNodeId}:${path.length}`;
    if (progress !== savedAt) {
      await saveExperienceRunProgress({ runId: run.runId, currentNodeId, path });
      savedAt = progress;
    }
    if (mayContinue) await continueIfLong(position);
  }

  async function waitForEvent(node: Extract<ExperienceNode, { type: 'waitForEvent' }>, until: number): Promise<BufferedEvent | undefined> {
    let checkedSeq = 0;
    for (;;) {
      for (const event of buffer) {
        if (event.consumed || event.seq <= checkedSeq || event.eventType !== node.eventType) continue;
        checkedSeq = event.seq;
        if (node.conditions && !(await evaluate(node.conditions, event.eventId))) continue;
        event.consumed = true;
        return event;
      }
      checkedSeq = Math.max(checkedSeq, nextSeq - 1);
      const seqBefore = nextSeq;
      await block({ nodeId: node.id, waitUntil: until });
      if (!(await condition(() => nextSeq !== seqBefore, Math.max(1, until - Date.now())))) return undefined;
    }
  }

  async function walk(from: RunPosition): Promise<void> {
    let nodeId = from.nodeId;
    let resumeUntil = from.waitUntil;
    for (;;) {
      const node = nodeById(definition, nodeId);
      // Publishing checked every edge; a missing node is a bug, which fails the workflow task rather than the run.
      if (!node) throw new Error(`experience ${input.experienceId} v${input.experienceVersion} has no node ${nodeId}`);
      currentNodeId = node.id;
      upsertSearchAttributes([{ key: CurrentNode, value: node.id }]);
      showDetails();
      const until = resumeUntil;
      resumeUntil = undefined;
      switch (node.type) {
        case 'webhook': {
          const { eventId } = await fireExperienceWebhook({ run, nodeId: node.id, endpointId: node.endpointId ?? null, result: node.result });
          record(node, `sent ${eventId}`);
          nodeId = node.next;
          break;
        }
        case 'wait': {
          const wakeAt = until ?? Date.now() + node.seconds * 1000;
          await block({ nodeId: node.id, waitUntil: wakeAt });
          await sleep(Math.max(1, wakeAt - Date.now()));
          record(node, `waited ${node.seconds} s`);
          nodeId = node.next;
          break;
        }
        case 'condition': {
          const holds = await evaluate(node.if, run.triggerEventId);
          record(node, holds ? 'then' : 'else');
          nodeId = holds ? node.then : node.else;
          break;
        }
        case 'provider': {
          let outcome: string;
          try {
            const call = await callExperienceProvider({
              run,
              nodeId: node.id,
              connectionId: node.connectionId,
              call: node.call,
              event: node.call === 'track' ? node.event : null,
              properties: node.properties ?? {},
            });
            outcome = call.sent ? `sent (HTTP ${call.status})` : `failed: ${call.reason}`;
          } catch (error) {
            // Out of attempts: the failure is recorded and the flow goes on.
            if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
            outcome = `failed: ${failureReason(error)}`;
          }
          record(node, outcome);
          nodeId = node.next;
          break;
        }
        case 'push': {
          // Quiet hours may hold some of it: the path says until when, and the run sends the rest then.
          const step = path.length;
          let pushed = await sendExperiencePush({ run, nodeId: node.id, notificationId: node.notificationId, step });
          while (pushed.heldUntil !== null) {
            record(node, pushed.summary);
            const heldUntil = pushed.heldUntil;
            await block({ nodeId: node.id, waitUntil: heldUntil }, false);
            await sleep(Math.max(1, heldUntil - Date.now()));
            pushed = await sendExperiencePush({ run, nodeId: node.id, notificationId: node.notificationId, step });
          }
          record(node, pushed.summary);
          nodeId = node.next;
          break;
        }
        case 'waitForEvent': {
          const matched = await waitForEvent(node, until ?? Date.now() + node.timeoutSeconds * 1000);
          record(node, matched ? `${matched.eventType} ${matched.eventId}` : 'timeout');
          nodeId = matched ? node.next : node.timeoutNext;
          break;
        }
        case 'split': {
          const split = takeSplit(node, run);
          record(node, split.outcome);
          nodeId = split.next;
          break;
        }
        case 'exit': {
          record(node, 'exit');
          return;
        }
      }
    }
  }

  if (!carried) {
    // Archiving may have cancelled the run between routing's decision and this start.
    const entered = await enterExperienceRun({ runId: run.runId });
    if (entered.status !== 'running') requestEnd('cancelled', 'cancelled before the run started');
  }
  const deadline = input.enteredAt + definition.maxDurationSeconds * 1000;
  void timers
    .run(() => sleep(Math.max(1, deadline - Date.now())))
    .then(
      () => requestEnd('max_duration', `${definition.maxDurationSeconds} s passed`),
      () => undefined,
    );
  const pump = pumpEvents();
  try {
    if (!requestedEnd) await flow.run(() => walk(carried?.position ?? { nodeId: walked?.nodeId ?? definition.start }));
    requestEnd('completed', null);
  } catch (error) {
    if (isCancellation(error)) requestEnd('cancelled', 'the workflow was cancelled');
    else if (error instanceof ActivityFailure) requestEnd('failed', failureReason(error));
    // Anything else is a bug in this code: it fails the workflow task, and a fixed worker resumes the run.
    else throw error;
  }
  timers.cancel();
  await pump;

  const end = requestedEnd!;
  const endedAt = new Date(Date.now()).toISOString();
  // The end is recorded and announced even when the workflow itself is being cancelled.
  return CancellationScope.nonCancellable(async () => {
    await endExperienceRun({ run, status: statusOf[end.reason], endReason: end.reason, detail: end.detail, currentNodeId, path, endedAt, goals: goalsAtEnd });
    ended = { reason: end.reason, endedAt };
    upsertSearchAttributes([{ key: RunStatus, value: statusOf[end.reason] }]);
    showDetails();
    await condition(allHandlersFinished);
    return view();
  });
}

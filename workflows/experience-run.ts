import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { Condition } from '../src/domain/experiences/definition-schema.ts';
import type { RunRef } from '../src/domain/experiences/run-ref.ts';
import type { GoalReached } from '../src/domain/experiences/run-steps.ts';
import {
  follow,
  goalEntry,
  goalsToCheck,
  stepAt,
  type CarriedStep,
  type RunPosition,
  type RunStep,
  type Heard,
  type PathEntry,
  type ProviderAnswer,
} from '../src/sandbox-safe/experiences/experience-interpreter.ts';
import { CurrentNode, RunStatus } from '../src/sandbox-safe/search-attributes.ts';
import {
  cancelRun,
  runEvents,
  runState,
  type BufferedEvent,
  type CarriedRunState,
  type ExperienceEndReason,
  type ExperienceRunInput,
  type ExperienceRunState,
  type ExperienceRunStatus,
  type PathStep,
  type RunEvent,
} from './experience-run.contract.ts';
import { failureReason } from './failure-reason.ts';

/**
 * A local step (ADR 0061): the run's own database steps run inside the workflow task that reaches them. One is
 * started only while the scope that asks for it is not cancelled, and once started it is never cancelled: the SDK's
 * core fails the workflow task (TMPRL1100) when a cancel reaches a local activity whose result it holds and the
 * workflow has not seen yet. An end that comes meanwhile takes effect once the step is done
 * (docs/adr/0061-an-experience-run-s-database-steps-are-local-activities.md).
 */
function localStep<A extends unknown[], R>(step: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const asking = CancellationScope.current();
    if (asking.consideredCancelled) await asking.cancelRequested;
    return CancellationScope.nonCancellable(() => step(...args));
  };
}

// Short and idempotent: the end's task fails when an event comes in meanwhile, and its local steps then run again,
// which changes nothing (ADR 0061).
const databaseSteps = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });
const enterExperienceRun = localStep(databaseSteps.enterExperienceRun);
const saveExperienceRunProgress = localStep(databaseSteps.saveExperienceRunProgress);
const fireExperienceWebhook = localStep(databaseSteps.fireExperienceWebhook);
const publishExperienceGoal = localStep(databaseSteps.publishExperienceGoal);
const endExperienceRun = localStep(databaseSteps.endExperienceRun);
// Conditions read the visitor and the events from Postgres: a quick local read, no task queue round trip.
const evaluateExperienceCondition = localStep(
  proxyLocalActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumInterval: '10 seconds' } }).evaluateExperienceCondition,
);
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

type EndRequest = { reason: ExperienceEndReason; detail: string | null };

/**
 * One person's run through one version of an experience, `experience:<experienceId>:<visitorId>[:<n>]`. The walk
 * walks the nodes through the interpreter (src/sandbox-safe/experiences/experience-interpreter.ts) from `start`, or from
 * where routing's first steps (ADR 0066) or the run before a continue-as-new left it; beside it, every event the run
 * receives is checked against the goals (whatever node the run is on) and kept in a bounded buffer that waitForEvent
 * nodes look at, so an event that arrives between steps is not lost. A goal with `exit`, the cancel update, or
 * maxDurationSeconds ends the walk early; the end is recorded and announced in one local step.
 */
export async function experienceRun(input: ExperienceRunInput): Promise<ExperienceRunState> {
  const run = new RunMachine(input);
  run.listen();
  return run.live();
}

class RunMachine {
  readonly input: ExperienceRunInput;
  readonly ref: RunRef;
  readonly path: PathStep[];
  readonly buffer: BufferedEvent[];
  readonly seen: string[];
  readonly goalsReached: string[];
  readonly inbox: RunEvent[];
  nextSeq: number;
  currentNodeId: string | null;
  /** Where the walk starts: where the run before it, or routing's first steps, left it. */
  readonly from: RunPosition;
  /** Cancelled to end the run early: its timers, waits and activities stop; a local step in flight finishes first. */
  readonly walkScope = new CancellationScope();
  /** The maxDurationSeconds timer. */
  readonly timers = new CancellationScope();
  requestedEnd: EndRequest | undefined;
  /** Goals reached as the run ends (an exit goal), which the end announces (ADR 0061). */
  readonly goalsAtEnd: GoalReached[] = [];
  ended: { reason: ExperienceEndReason; endedAt: string } | undefined;
  /** While a received event is being checked against the goals. */
  pumpBusy = false;
  /** The progress last saved, `<node>:<path length>`. */
  savedAt = '';
  /** The step (path length) at which the push node being sent began: its second send, after quiet hours, is the same. */
  pushStep = 0;

  constructor(input: ExperienceRunInput) {
    this.input = input;
    const { carried } = input;
    const walked = carried ? undefined : input.walked;
    this.ref = {
      runId: input.runId,
      accountId: input.accountId,
      experienceId: input.experienceId,
      visitorId: input.visitorId,
      clientUserId: input.clientUserId,
      triggerEventId: input.trigger.eventId,
    };
    this.path = carried?.path ?? walked?.path ?? [];
    this.buffer = carried?.buffer ?? [];
    this.seen = carried?.seen ?? [input.trigger.eventId];
    this.goalsReached = carried?.goalsReached ?? [];
    this.inbox = carried?.inbox ?? [];
    this.nextSeq = carried?.nextSeq ?? 1;
    this.from = carried?.position ?? { nodeId: walked?.nodeId ?? input.definition.start };
    this.currentNodeId = this.from.nodeId;
  }

  /** The `state` query, the `events` signal and the `cancel` update. */
  listen(): void {
    setHandler(runState, () => this.view());
    setHandler(runEvents, (events) => events.forEach((event) => this.take(event)));
    setHandler(cancelRun, () => this.cancel(), {
      validator: () => {
        if (this.ended) throw ApplicationFailure.create({ type: 'invalid_state', message: `The run has ended (${this.ended.reason})`, nonRetryable: true });
      },
    });
  }

  /** The run's life: entered, the walk and the goals side by side, then its end. */
  async live(): Promise<ExperienceRunState> {
    if (!this.input.carried) {
      // Archiving may have cancelled the run between routing's decision and this start.
      const entered = await enterExperienceRun({ runId: this.ref.runId });
      if (entered.status !== 'running') this.requestEnd('cancelled', 'cancelled before the run started');
    }
    this.startDeadline();
    const pump = this.pumpEvents();
    await this.walkToEnd();
    this.timers.cancel();
    await pump;
    return this.end(this.requestedEnd!);
  }

  view(): ExperienceRunState {
    return {
      status: this.ended ? statusOf[this.ended.reason] : 'running',
      currentNodeId: this.currentNodeId,
      path: this.path,
      endReason: this.ended?.reason ?? null,
      endedAt: this.ended?.endedAt ?? null,
      bufferedEvents: this.buffer.length,
    };
  }

  /** An event handed over: dropped when seen before or once the run has ended, else queued for the goals. */
  take(event: RunEvent): void {
    if (this.ended || this.seen.includes(event.eventId)) return;
    this.seen.push(event.eventId);
    if (this.seen.length > seenLimit) this.seen.splice(0, this.seen.length - seenLimit);
    this.inbox.push(event);
  }

  async cancel(): Promise<ExperienceRunState> {
    this.requestEnd('cancelled', 'cancelled through the API');
    await condition(() => this.ended !== undefined);
    return this.view();
  }

  /** Ends the walk early (the first request wins): its waits and activities are cancelled, its local steps finish. */
  requestEnd(reason: ExperienceEndReason, detail: string | null): void {
    if (this.requestedEnd || this.ended) return;
    this.requestedEnd = { reason, detail };
    this.walkScope.cancel();
  }

  startDeadline(): void {
    const { enteredAt, definition } = this.input;
    const deadline = enteredAt + definition.maxDurationSeconds * 1000;
    void this.timers
      .run(() => sleep(Math.max(1, deadline - Date.now())))
      .then(
        () => this.requestEnd('max_duration', `${definition.maxDurationSeconds} s passed`),
        () => undefined,
      );
  }

  showDetails(): void {
    const steps = this.path.map((step) => `- \`${step.nodeId}\` (${step.type}): ${step.outcome}`);
    const head = this.ended ? `**${statusOf[this.ended.reason]}** (${this.ended.reason})` : `**running** · at \`${this.currentNodeId}\``;
    setCurrentDetails([head, `events received: ${this.nextSeq - 1} · goals reached: ${this.goalsReached.join(', ') || '—'}`, ...steps].join('\n'));
  }

  record(entry: PathEntry): void {
    this.path.push({ ...entry, at: new Date(Date.now()).toISOString() });
    this.showDetails();
  }

  evaluate(condition: Condition, eventId: string): Promise<boolean> {
    return evaluateExperienceCondition({ run: this.ref, condition, eventId });
  }

  // The goals ===================================================================================================

  /** Handles received events one at a time, in order, until the run ends. */
  async pumpEvents(): Promise<void> {
    try {
      for (;;) {
        await condition(() => this.inbox.length > 0 || this.requestedEnd !== undefined);
        if (this.requestedEnd) return;
        this.pumpBusy = true;
        try {
          await this.receive(this.inbox.shift()!);
        } finally {
          this.pumpBusy = false;
        }
      }
    } catch (error) {
      // The workflow itself was cancelled (from the Temporal UI, say): the walk ends the run.
      if (!isCancellation(error)) throw error;
    }
  }

  /** Checks one received event against every goal not yet reached, then keeps it for waitForEvent nodes. */
  async receive(event: RunEvent): Promise<void> {
    for (const goal of goalsToCheck(this.input.definition, event.eventType, this.goalsReached)) {
      if (goal.conditions && !(await this.evaluate(goal.conditions, event.eventId))) continue;
      this.goalsReached.push(goal.id);
      this.record(goalEntry(goal, event));
      const reached = { goalId: goal.id, eventType: event.eventType, eventId: event.eventId };
      // An exit goal, and any goal reached as the run ends, is announced by the end's own step (ADR 0061).
      if (goal.exit || this.requestedEnd) this.goalsAtEnd.push(reached);
      else await publishExperienceGoal({ run: this.ref, ...reached });
      if (goal.exit) this.requestEnd('goal_reached', `goal ${goal.id}`);
    }
    this.buffer.push({ ...event, seq: this.nextSeq++, consumed: false });
    if (this.buffer.length > bufferLimit) this.buffer.splice(0, this.buffer.length - bufferLimit);
  }

  // The walk ====================================================================================================

  /** Walks the steps until it exits or is ended early, and settles how the run ends. */
  async walkToEnd(): Promise<void> {
    try {
      if (!this.requestedEnd) {
        const exited = await this.walkScope.run(() => this.walk(this.from));
        // A walk stopped between steps without a request: the workflow itself was cancelled.
        if (!exited) this.requestEnd('cancelled', 'the workflow was cancelled');
      }
      this.requestEnd('completed', null);
    } catch (error) {
      if (isCancellation(error)) this.requestEnd('cancelled', 'the workflow was cancelled');
      else if (error instanceof ActivityFailure) this.requestEnd('failed', failureReason(error));
      // Anything else is a bug in this code (or a continue-as-new): it leaves the run, and a fixed worker resumes it.
      else throw error;
    }
  }

  /** Steps from `from` until the exit (true), or until the walk is cancelled between steps (false). */
  async walk(from: RunPosition): Promise<boolean> {
    let step = stepAt(this.input.definition, this.ref, from);
    let arrivedAt: string | undefined;
    for (;;) {
      // A push held by quiet hours stays on its node: it is not arrived at again.
      if (step.node.id !== arrivedAt) {
        arrivedAt = step.node.id;
        this.arrive(arrivedAt);
      }
      const move = step.kind === 'takeSplit' || step.kind === 'exit' ? step.move : follow(step, await this.carryOut(step));
      this.record(move.entry);
      if (!move.next) return true;
      if (this.walkScope.consideredCancelled) return false;
      step = stepAt(this.input.definition, this.ref, move.next);
    }
  }

  arrive(nodeId: string): void {
    this.currentNodeId = nodeId;
    upsertSearchAttributes([{ key: CurrentNode, value: nodeId }]);
    this.showDetails();
  }

  carryOut(step: CarriedStep): Promise<Heard> {
    switch (step.kind) {
      case 'fireWebhook':
        return this.fireWebhook(step);
      case 'evaluateCondition':
        return this.evaluate(step.node.if, this.ref.triggerEventId).then((holds) => ({ kind: 'conditionEvaluated', holds }));
      case 'wait':
        return this.waitOut(step);
      case 'callProvider':
        return this.callProvider(step);
      case 'sendPush':
        return this.sendPush(step);
      case 'waitForEvent':
        return this.waitForEvent(step);
    }
  }

  async fireWebhook({ node }: Extract<RunStep, { kind: 'fireWebhook' }>): Promise<Heard> {
    const { eventId } = await fireExperienceWebhook({ run: this.ref, nodeId: node.id, endpointId: node.endpointId ?? null, result: node.result });
    return { kind: 'webhookFired', eventId };
  }

  async waitOut({ node, until }: Extract<RunStep, { kind: 'wait' }>): Promise<Heard> {
    const wakeAt = until ?? Date.now() + node.seconds * 1000;
    await this.block({ nodeId: node.id, waitUntil: wakeAt });
    await sleep(Math.max(1, wakeAt - Date.now()));
    return { kind: 'timerFired' };
  }

  async callProvider({ node }: Extract<RunStep, { kind: 'callProvider' }>): Promise<Heard> {
    let answer: ProviderAnswer;
    try {
      const event = node.call === 'track' ? node.event : null;
      answer = await callExperienceProvider({ run: this.ref, nodeId: node.id, connectionId: node.connectionId, call: node.call, event, properties: node.properties ?? {} });
    } catch (error) {
      // Out of attempts: the failure is recorded and the walk goes on.
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      answer = { sent: false, reason: failureReason(error) };
    }
    return { kind: 'providerAnswered', answer };
  }

  /** Sends the push; when quiet hours held part of it, waits until then (with no continue-as-new) and sends the rest. */
  async sendPush({ node, heldUntil }: Extract<RunStep, { kind: 'sendPush' }>): Promise<Heard> {
    if (heldUntil === undefined) this.pushStep = this.path.length;
    else {
      // A fresh run would not know which pushes were its own.
      await this.block({ nodeId: node.id, waitUntil: heldUntil }, false);
      await sleep(Math.max(1, heldUntil - Date.now()));
    }
    const pushed = await sendExperiencePush({ run: this.ref, nodeId: node.id, notificationId: node.notificationId, step: this.pushStep });
    return { kind: 'pushSent', summary: pushed.summary, heldUntil: pushed.heldUntil };
  }

  /** The first buffered event of the node's type (not taken yet) that passes its conditions, or a timeout. */
  async waitForEvent({ node, until }: Extract<RunStep, { kind: 'waitForEvent' }>): Promise<Heard> {
    const timeoutAt = until ?? Date.now() + node.timeoutSeconds * 1000;
    let checkedSeq = 0;
    for (;;) {
      for (const event of this.buffer) {
        if (event.consumed || event.seq <= checkedSeq || event.eventType !== node.eventType) continue;
        checkedSeq = event.seq;
        if (node.conditions && !(await this.evaluate(node.conditions, event.eventId))) continue;
        event.consumed = true;
        return { kind: 'eventTaken', event };
      }
      checkedSeq = Math.max(checkedSeq, this.nextSeq - 1);
      const seqBefore = this.nextSeq;
      await this.block({ nodeId: node.id, waitUntil: timeoutAt });
      if (!(await condition(() => this.nextSeq !== seqBefore, Math.max(1, timeoutAt - Date.now())))) return { kind: 'timedOut' };
    }
  }

  /**
   * Persists where the run is before it waits (once per change), so the API shows it while the run sleeps, and hands
   * a long history to a fresh run when it may.
   */
  async block(position: RunPosition, mayContinue = true): Promise<void> {
    // Events handed over together may still end the run (an exit goal): a run about to end saves no progress.
    await condition(() => !this.pumpBusy && this.inbox.length === 0);
    const progress = `${this.currentNodeId}:${this.path.length}`;
    if (progress !== this.savedAt) {
      await saveExperienceRunProgress({ runId: this.ref.runId, currentNodeId: this.currentNodeId, path: this.path });
      this.savedAt = progress;
    }
    if (mayContinue) await this.continueIfLong(position);
  }

  /** Hands the run to a fresh one when its history is long; only while it waits and nothing is in flight. */
  async continueIfLong(position: RunPosition): Promise<void> {
    const info = workflowInfo();
    if (!info.continueAsNewSuggested && info.historyLength <= (this.input.historyLimit ?? defaultHistoryLimit)) return;
    if (this.requestedEnd || this.pumpBusy || !allHandlersFinished()) return;
    const { path, buffer, seen, goalsReached, inbox, nextSeq } = this;
    const carried: CarriedRunState = { version: 1, position, path, buffer, seen, goalsReached, inbox, nextSeq };
    await continueAsNew<typeof experienceRun>({ ...this.input, version: 1, carried });
  }

  // The end =====================================================================================================

  /** Records and announces the end, even when the workflow itself is being cancelled, and waits for its handlers. */
  end({ reason, detail }: EndRequest): Promise<ExperienceRunState> {
    const endedAt = new Date(Date.now()).toISOString();
    const status = statusOf[reason];
    return CancellationScope.nonCancellable(async () => {
      const { ref: run, currentNodeId, path, goalsAtEnd: goals } = this;
      await endExperienceRun({ run, status, endReason: reason, detail, currentNodeId, path, endedAt, goals });
      this.ended = { reason, endedAt };
      upsertSearchAttributes([{ key: RunStatus, value: status }]);
      this.showDetails();
      await condition(allHandlersFinished);
      return this.view();
    });
  }
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { ExperienceRun, type ExperienceEndReason, type ExperienceRunStatus, type PathStep } from '../../persistence/entities/experience-run.ts';
import { derivedId } from '../../security/ids.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import type { Condition } from './definition-schema.ts';
import type { ExperienceContext } from '../../sandbox-safe/experiences/context-fields.ts';
import { evaluateCondition } from '../../sandbox-safe/experiences/evaluate-condition.ts';
import { experienceEventData, loadRunContext } from './run-context.ts';
import type { RunRef } from './run-ref.ts';
import { renderTemplate } from '../../sandbox-safe/experiences/render-template.ts';

/**
 * The writes and reads an experience run's workflow makes, one function per activity. Each is idempotent: an
 * outbound event's id derives from (run, node or goal), and row updates only apply to a run still `running`.
 */

/** The run's status as stored: anything but `running` means it was cancelled before its workflow started. */
export async function enterExperienceRun(em: EntityManager, runId: string): Promise<{ status: ExperienceRunStatus }> {
  const row = await em.findOneOrFail(ExperienceRun, { id: runId }, { fields: ['status'] });
  return { status: row.status };
}

export async function saveExperienceRunProgress(em: EntityManager, input: { runId: string; currentNodeId: string | null; path: PathStep[] }): Promise<void> {
  await em.nativeUpdate(ExperienceRun, { id: input.runId, status: 'running' }, { currentNodeId: input.currentNodeId, path: input.path });
}

export async function evaluateRunCondition(em: EntityManager, input: { run: RunRef; condition: Condition; eventId: string }): Promise<boolean> {
  return evaluateCondition(input.condition, await loadRunContext(em, input.run, input.eventId));
}

/**
 * A webhook node: `experience.action` with the node's rendered result, to its endpoint or to every subscriber. The
 * context is read unless the caller has it (routing, which walks a new run's first steps with the event in hand).
 */
export async function fireExperienceWebhook(
  deps: PublishDeps,
  input: { run: RunRef; nodeId: string; endpointId: string | null; result: Record<string, unknown> },
  known?: ExperienceContext,
): Promise<{ eventId: string }> {
  const { run } = input;
  const context = known ?? (await loadRunContext(deps.em, run));
  const rendered = renderTemplate(input.result, context) as Record<string, unknown>;
  return publishEvent(deps, {
    eventId: derivedId('evt_', run.runId, 'node', input.nodeId),
    accountId: run.accountId,
    experienceId: run.experienceId,
    type: 'experience.action',
    onlyEndpointId: input.endpointId ?? undefined,
    data: experienceEventData(run, context, { ...rendered, nodeId: input.nodeId }),
  });
}

/** A goal a run reached: which goal, on which received event. */
export interface GoalReached {
  goalId: string;
  eventType: string;
  eventId: string;
}

/** `experience.goal.reached`; the context is read unless the caller has it (the end, announcing its exit goal). */
export async function publishExperienceGoal(deps: PublishDeps, input: { run: RunRef } & GoalReached, known?: ExperienceContext): Promise<{ eventId: string }> {
  const { run } = input;
  const context = known ?? (await loadRunContext(deps.em, run));
  return publishEvent(deps, {
    eventId: derivedId('evt_', run.runId, 'goal', input.goalId),
    accountId: run.accountId,
    experienceId: run.experienceId,
    type: 'experience.goal.reached',
    data: experienceEventData(run, context, { goal: input.goalId, eventType: input.eventType, eventId: input.eventId }),
  });
}

export interface EndRunInput {
  run: RunRef;
  status: ExperienceRunStatus;
  endReason: ExperienceEndReason;
  detail: string | null;
  currentNodeId: string | null;
  path: PathStep[];
  endedAt: string;
  /** Goals the run reached as it ended (an exit goal), announced before the end (ADR 0061); none is an empty list. */
  goals: GoalReached[];
}

/**
 * Records the end and announces it: first the goals it ended on, then `experience.ended` for a person,
 * `experience.completed` (without clientUserId) for an anonymous run. An `after_exit` entry key is released, so the
 * person may enter again.
 */
export async function endExperienceRun(deps: PublishDeps, input: EndRunInput): Promise<{ eventId: string }> {
  const { run } = input;
  const context = await loadRunContext(deps.em, run);
  // One transaction: a run that reads as ended has announced its end and the goals it ended on.
  return deps.em.transactional(async (tx) => {
    const row = await tx.findOneOrFail(ExperienceRun, { id: run.runId });
    if (row.status === 'running') {
      row.status = input.status;
      row.endReason = input.endReason;
      row.endDetail = input.detail;
      row.endedAt = new Date(input.endedAt);
      row.currentNodeId = input.currentNodeId;
      row.path = input.path;
    } else {
      // Cancelled before its workflow started: keep the stored end, but the path is the workflow's.
      row.path = input.path.length ? input.path : row.path;
    }
    if (row.entryKey?.startsWith('live:')) row.entryKey = null;
    const inTransaction = { ...deps, em: tx };
    for (const goal of input.goals) await publishExperienceGoal(inTransaction, { run, ...goal }, context);
    return announceRunEnd(inTransaction, run, context, input.endReason, input.currentNodeId);
  });
}

/** `experience.ended` for a person's run, `experience.completed` (without clientUserId) for an anonymous one. */
export function announceRunEnd(
  deps: PublishDeps,
  run: RunRef,
  context: ExperienceContext,
  reason: ExperienceEndReason,
  nodeId: string | null,
): Promise<{ eventId: string }> {
  return publishEvent(deps, {
    eventId: derivedId('evt_', run.runId, 'ended'),
    accountId: run.accountId,
    experienceId: run.experienceId,
    type: run.clientUserId ? 'experience.ended' : 'experience.completed',
    data: experienceEventData(run, context, { reason, nodeId }),
  });
}

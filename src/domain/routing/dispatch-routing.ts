import type { EntityManager } from '@mikro-orm/postgresql';
import pMap from 'p-map';
import { Experience } from '../../persistence/entities/experience.ts';
import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import { ExperienceVersion } from '../../persistence/entities/experience-version.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import type { ExperienceRunInput, RunEvent } from '../../../workflows/experience-run.contract.ts';
import { deliverEventToRun, startExperienceRun } from '../../temporal/starters/experience-run.ts';
import type { RoutingOutcome } from './route-event.ts';

/** Temporal calls one event's dispatch has in flight at once. */
const callsInParallel = 16;

/**
 * Carries out a stored routing decision on Temporal: starts the runs it started and hands the event to the live runs
 * it reached. Idempotent, so it runs after every attempt of routing, the first and any retry: a run that exists is
 * not started again (its id is taken), a run that has ended is skipped, and a run drops an event it has already seen.
 */
export async function dispatchRouting(deps: { em: EntityManager; temporal: TemporalAccess }, eventId: string, outcome: RoutingOutcome): Promise<void> {
  const ids = [...outcome.startedRuns, ...outcome.deliveredTo];
  if (ids.length === 0) return;
  const inputs = await runInputs(deps.em, ids);
  const event = await deps.em.findOneOrFail(InboundEvent, { id: eventId }, { fields: ['id', 'eventType', 'occurredAt'] });
  const runEvent: RunEvent = { eventId: event.id, eventType: event.eventType, occurredAt: event.occurredAt.toISOString() };
  // Each call is one round trip to Temporal for a run of its own, so they go side by side: an event entering 99
  // experiences waits for a few round trips, not 99. The starts still come before the deliveries, as before.
  await pMap(outcome.startedRuns, async (runId) => {
    const run = inputs.get(runId);
    if (run) await startExperienceRun(deps.temporal, run.workflowId, run.input);
  }, { concurrency: callsInParallel });
  await pMap(outcome.deliveredTo, async (runId) => {
    const run = inputs.get(runId);
    // Not yet started (routing of its trigger has not dispatched): this starts it, with the event already in.
    if (run) await deliverEventToRun(deps.temporal, run.workflowId, run.input, runEvent);
  }, { concurrency: callsInParallel });
}

/** Each run's workflow input, from its row, its experience's name, its version's definition and its trigger event. */
async function runInputs(em: EntityManager, ids: string[]): Promise<Map<string, { workflowId: string; input: ExperienceRunInput }>> {
  const runs = await em.find(ExperienceRun, { id: { $in: ids } });
  const [experiences, versions, triggers] = await Promise.all([
    em.find(Experience, { id: { $in: [...new Set(runs.map((run) => run.experienceId))] } }, { fields: ['id', 'name'] }),
    em.find(ExperienceVersion, { $or: runs.map((run) => ({ experienceId: run.experienceId, version: run.version })) }),
    em.find(InboundEvent, { id: { $in: [...new Set(runs.map((run) => run.triggerEventId))] } }, { fields: ['id', 'eventType', 'occurredAt'] }),
  ]);
  const inputs = new Map<string, { workflowId: string; input: ExperienceRunInput }>();
  for (const run of runs) {
    const version = versions.find((candidate) => candidate.experienceId === run.experienceId && candidate.version === run.version)!;
    const trigger = triggers.find((candidate) => candidate.id === run.triggerEventId)!;
    inputs.set(run.id, {
      workflowId: run.workflowId,
      input: {
        version: 1,
        runId: run.id,
        accountId: run.accountId,
        experienceId: run.experienceId,
        experienceName: experiences.find((candidate) => candidate.id === run.experienceId)?.name ?? run.experienceId,
        experienceVersion: run.version,
        definition: version.definition,
        visitorId: run.visitorId ?? null,
        clientUserId: run.clientUserId ?? null,
        trigger: { eventId: trigger.id, eventType: trigger.eventType, occurredAt: trigger.occurredAt.toISOString() },
        enteredAt: run.enteredAt.getTime(),
      },
    });
  }
  return inputs;
}

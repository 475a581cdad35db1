import type { EntityManager } from '@mikro-orm/postgresql';
import pMap from 'p-map';
import { Experience } from '../../persistence/entities/experience.ts';
import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import { ExperienceVersion } from '../../persistence/entities/experience-version.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import type { ExperienceRunInput, RunEvent } from '../../../workflows/experience-run.contract.ts';
import { deliverEventsToRun, startExperienceRun } from '../../temporal/starters/experience-run.ts';
import { versionKey } from './route-event.ts';
import type { RoutingOutcome } from './routing-outcome.ts';

/** Temporal calls a dispatch has in flight at once. */
const callsInParallel = 16;

/** An event whose routing decision is stored, to be carried out. */
export interface RoutedEvent {
  eventId: string;
  outcome: RoutingOutcome;
}

/**
 * Carries out stored routing decisions on Temporal, for one event or a chunk of them given in order of arrival:
 * starts the runs they started, then hands each live run every event that reached it, in that order, in one signal
 * (events of one person arriving together cost the run one workflow task, not one each). Idempotent, so it runs after
 * every attempt of routing, the first and any retry: a run that exists is not started again (its id is taken), a run
 * that has ended is skipped, and a run drops an event it has already seen.
 */
export async function dispatchRouting(deps: { em: EntityManager; temporal: TemporalAccess; signal?: AbortSignal | undefined }, routed: RoutedEvent[]): Promise<void> {
  const started = [...new Set(routed.flatMap(({ outcome }) => outcome.startedRuns))];
  const handOvers = new Map<string, string[]>();
  for (const { eventId, outcome } of routed) for (const runId of outcome.deliveredTo) handOvers.set(runId, [...(handOvers.get(runId) ?? []), eventId]);
  // Each call is one round trip to Temporal for a run of its own, so they go side by side: an event entering 99
  // experiences waits for a few round trips, not 99. The starts come before the hand-overs.
  for (const page of pagesOf(started)) {
    // An attempt that timed out or was cancelled stops here: its retry carries the rest out, and two attempts do not
    // start the same runs side by side.
    deps.signal?.throwIfAborted();
    const inputs = await runInputs(deps.em.fork(), page);
    await pMap(page, async (runId) => {
      const run = inputs.get(runId);
      if (run) await startExperienceRun(deps.temporal, run.workflowId, run.input);
    }, { concurrency: callsInParallel });
  }
  for (const page of pagesOf([...handOvers])) {
    deps.signal?.throwIfAborted();
    const em = deps.em.fork();
    const inputs = await runInputs(em, page.map(([runId]) => runId));
    const events = await runEvents(em, [...new Set(page.flatMap(([, eventIds]) => eventIds))]);
    await pMap(page, async ([runId, eventIds]) => {
      const run = inputs.get(runId);
      // Not yet started (routing of its trigger has not dispatched): this starts it, with the events already in.
      if (run) await deliverEventsToRun(deps.temporal, run.workflowId, run.input, eventIds.map((eventId) => events.get(eventId)!));
    }, { concurrency: callsInParallel });
  }
}

/**
 * Runs a dispatch reads and calls at a time. A chunk of 25 events that each enter 98 experiences starts 2,450 runs,
 * and a backlog keeps dozens of chunks in flight while Temporal starts runs at its own pace: read all at once, their
 * rows stayed in memory until the last start, and a worker routing 100,000 runs ran out of heap (bench:flows).
 */
const pageSize = 200;

function pagesOf<T>(items: T[]): T[][] {
  const pages: T[][] = [];
  for (let start = 0; start < items.length; start += pageSize) pages.push(items.slice(start, start + pageSize));
  return pages;
}

/** The events as a run receives them: ids, type and time only. */
async function runEvents(em: EntityManager, ids: string[]): Promise<Map<string, RunEvent>> {
  if (ids.length === 0) return new Map();
  const rows = await em.find(InboundEvent, { id: { $in: ids } }, { fields: ['id', 'eventType', 'occurredAt'] });
  return new Map(rows.map((row) => [row.id, { eventId: row.id, eventType: row.eventType, occurredAt: row.occurredAt.toISOString() }]));
}

/**
 * Each run's workflow input, from its row, its experience's name, its version's definition and its trigger event; with
 * the steps routing walked when it entered the run. A run that ended there has no workflow and no input.
 */
async function runInputs(em: EntityManager, ids: string[]): Promise<Map<string, { workflowId: string; input: ExperienceRunInput }>> {
  const runs = await em.find(ExperienceRun, { id: { $in: ids } });
  if (runs.length === 0) return new Map();
  const versionsNeeded = new Map(runs.map((run) => [versionKey(run), { experienceId: run.experienceId, version: run.version }]));
  const [experiences, versionRows, triggers] = await Promise.all([
    em.find(Experience, { id: { $in: [...new Set(runs.map((run) => run.experienceId))] } }, { fields: ['id', 'name'] }),
    em.find(ExperienceVersion, { $or: [...versionsNeeded.values()] }),
    runEvents(em, [...new Set(runs.map((run) => run.triggerEventId))]),
  ]);
  const names = new Map(experiences.map((experience) => [experience.id, experience.name]));
  const versions = new Map(versionRows.map((version) => [versionKey(version), version]));
  const inputs = new Map<string, { workflowId: string; input: ExperienceRunInput }>();
  for (const run of runs) {
    // Ended in routing's first steps: it has no workflow to start or hand anything to.
    if (!run.workflowId) continue;
    const version = versions.get(versionKey(run))!;
    inputs.set(run.id, {
      workflowId: run.workflowId,
      input: {
        version: 1,
        runId: run.id,
        accountId: run.accountId,
        experienceId: run.experienceId,
        experienceName: names.get(run.experienceId) ?? run.experienceId,
        experienceVersion: run.version,
        definition: version.definition,
        visitorId: run.visitorId ?? null,
        clientUserId: run.clientUserId ?? null,
        trigger: triggers.get(run.triggerEventId)!,
        enteredAt: run.enteredAt.getTime(),
        ...(run.path.length > 0 && run.currentNodeId ? { walked: { nodeId: run.currentNodeId, path: run.path } } : {}),
      },
    });
  }
  return inputs;
}

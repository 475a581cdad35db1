import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Experience } from '../../persistence/entities/experience.ts';
import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import { ExperienceVersion } from '../../persistence/entities/experience-version.ts';
import type { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { Visitor } from '../../persistence/entities/visitor.ts';
import { derivedId } from '../../security/ids.ts';
import { experienceRunWorkflowId } from '../../../workflows/experience-run.contract.ts';
import type { ExperienceContext } from '../../sandbox-safe/experiences/context-fields.ts';
import { conditionsMet } from '../../sandbox-safe/experiences/evaluate-condition.ts';
import type { ExperienceDefinition } from '../experiences/definition-schema.ts';
import { eventTypesHeard } from '../../sandbox-safe/experiences/definition-graph.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import { walkFirstSteps } from '../experiences/walk-first-steps.ts';
import type { RoutingOutcome } from './routing-outcome.ts';

/** The person an event is routed for: the visitor, with the attributes conditions read. */
export interface RoutedPerson {
  id: string;
  clientUserId: string;
  attributes: Record<string, unknown>;
}

/** What routing needs to publish a new run's first actions into the delivery outbox (its transaction brings the rest). */
export type RoutingPublish = Omit<PublishDeps, 'em'>;

const triggerKey = (accountId: string, eventType: string) => `${accountId}\u0000${eventType}`;

/**
 * The current versions of the active experiences each (account, eventType) triggers, by `triggerKey`. The experience
 * rows are read FOR SHARE, so an archive waits for the caller's transaction and then sees every run it started.
 */
export async function loadTriggeredVersions(tx: EntityManager, triggers: Array<{ accountId: string; eventType: string }>): Promise<Map<string, ExperienceVersion[]>> {
  const byTrigger = new Map<string, ExperienceVersion[]>();
  if (triggers.length === 0) return byTrigger;
  const candidates = await tx.find(
    Experience,
    { status: 'active', $or: triggers.map(({ accountId, eventType }) => ({ accountId, triggerEventType: eventType })) },
    { fields: ['id', 'version', 'accountId', 'triggerEventType'], lockMode: LockMode.PESSIMISTIC_READ },
  );
  const versions = candidates.length
    ? await tx.find(ExperienceVersion, { $or: candidates.map((candidate) => ({ experienceId: candidate.id, version: candidate.version! })) })
    : [];
  for (const candidate of candidates) {
    const key = triggerKey(candidate.accountId, candidate.triggerEventType ?? '');
    const version = versions.find((row) => row.experienceId === candidate.id && row.version === candidate.version);
    if (version) byTrigger.set(key, [...(byTrigger.get(key) ?? []), version]);
  }
  return byTrigger;
}

/** The versions `loadTriggeredVersions` found for this event's account and type. */
export const versionsTriggeredBy = (byTrigger: Map<string, ExperienceVersion[]>, event: Pick<InboundEvent, 'accountId' | 'eventType'>) =>
  byTrigger.get(triggerKey(event.accountId, event.eventType)) ?? [];

/** A live run, with the event types it hears (`eventTypesHeard` of its version's definition). */
export interface LiveRun {
  id: string;
  heard: ReadonlySet<string>;
}

// A version's definition never changes once published, so what it hears is kept per version; bounded, since only
// the versions of live runs are ever looked up.
const eventTypesHeardCache = new Map<string, ReadonlySet<string>>();
const eventTypesHeardCacheLimit = 10_000;
/** A version's key: its experience and number. */
export const versionKey = (version: { experienceId: string; version: number }) => `${version.experienceId}\u0000${version.version}`;

/** What runs of this version hear, remembered for the next lookup. */
export function cachedEventTypesHeard(version: Pick<ExperienceVersion, 'experienceId' | 'version' | 'definition'>): ReadonlySet<string> {
  const key = versionKey(version);
  let heard = eventTypesHeardCache.get(key);
  if (!heard) {
    heard = eventTypesHeard(version.definition);
    if (eventTypesHeardCache.size >= eventTypesHeardCacheLimit) eventTypesHeardCache.delete(eventTypesHeardCache.keys().next().value!);
    eventTypesHeardCache.set(key, heard);
  }
  return heard;
}

/** Each visitor's running runs (of the account), by visitor id. */
export async function loadLiveRuns(tx: EntityManager, accountId: string, visitorIds: string[]): Promise<Map<string, LiveRun[]>> {
  const live = new Map<string, LiveRun[]>();
  if (visitorIds.length === 0) return live;
  const runs = await tx.find(ExperienceRun, { accountId, visitorId: { $in: visitorIds }, status: 'running' }, { fields: ['id', 'visitorId', 'experienceId', 'version'] });
  // Held here, not read back from the cache, which may have let some go meanwhile.
  const heard = new Map<string, ReadonlySet<string>>();
  const unknown = new Map<string, { experienceId: string; version: number }>();
  for (const run of runs) {
    const known = eventTypesHeardCache.get(versionKey(run));
    if (known) heard.set(versionKey(run), known);
    else unknown.set(versionKey(run), { experienceId: run.experienceId, version: run.version });
  }
  if (unknown.size > 0) for (const version of await tx.find(ExperienceVersion, { $or: [...unknown.values()] })) heard.set(versionKey(version), cachedEventTypesHeard(version));
  for (const run of runs) live.set(run.visitorId!, [...(live.get(run.visitorId!) ?? []), { id: run.id, heard: heard.get(versionKey(run))! }]);
  return live;
}

/**
 * Decides, inside the caller's transaction, which runs an event starts and which live runs it reaches. Only
 * indexed queries: active experiences by (account, eventType), runs by person. The caller holds the person's lock, so
 * two events of one person never decide an entry at the same time. The Temporal side (starting the runs, signalling
 * the live ones) happens after the commit, in `dispatchRouting`.
 */
export async function routeEvent(tx: EntityManager, event: InboundEvent, visitorId: string | null, publish: RoutingPublish): Promise<RoutingOutcome> {
  const versions = versionsTriggeredBy(await loadTriggeredVersions(tx, [event]), event);
  const visitor = visitorId ? await tx.findOne(Visitor, { id: visitorId }, { fields: ['clientUserId', 'attributes'] }) : null;
  const person = visitor ? { id: visitorId!, clientUserId: visitor.clientUserId, attributes: visitor.attributes } : null;
  const live = person ? ((await loadLiveRuns(tx, event.accountId, [person.id])).get(person.id) ?? []) : [];
  return (await decideRouting(tx, event, person, versions, live, publish)).outcome;
}

/**
 * The decision of `routeEvent` from what it read: the triggered versions and the person's live runs (which must
 * include the runs started by the person's earlier events in the same transaction, `entered`). Writes the runs it
 * starts and takes their first steps (`walkFirstSteps`): a run that ends there is not live. The event reaches the
 * live runs that hear its type.
 */
export async function decideRouting(
  tx: EntityManager,
  event: InboundEvent,
  person: RoutedPerson | null,
  versions: ExperienceVersion[],
  liveRuns: LiveRun[],
  publish: RoutingPublish,
): Promise<{ outcome: RoutingOutcome; entered: LiveRun[] }> {
  const own = { eventType: event.eventType, attributes: event.attributes ?? {} };
  const context: ExperienceContext = { event: own, trigger: own, visitor: person ? { clientUserId: person.clientUserId, attributes: person.attributes } : null };

  const matchedExperiences: string[] = [];
  const startedRuns: string[] = [];
  const entered: LiveRun[] = [];
  /** Experiences the event's type triggers whose trigger conditions did not hold for it. */
  const conditionsFailed: ExperienceVersion[] = [];
  for (const version of versions) {
    const definition = version.definition;
    if (!conditionsMet(definition.trigger.conditions, context)) {
      conditionsFailed.push(version);
      continue;
    }
    matchedExperiences.push(version.experienceId);
    const run = await enterRun(tx, event, version.experienceId, version.version, definition, person);
    if (!run) continue;
    startedRuns.push(run.runId);
    if (run.entryKey !== undefined) {
      const ref = { runId: run.runId, accountId: event.accountId, experienceId: version.experienceId, visitorId: person?.id ?? null, clientUserId: person?.clientUserId ?? null, triggerEventId: event.id };
      const first = await walkFirstSteps({ ...publish, em: tx }, { run: ref, entryKey: run.entryKey }, definition, context);
      if (first.ended) continue; // no later event can reach it
    }
    entered.push({ id: run.runId, heard: cachedEventTypesHeard(version) });
  }

  const deliveredTo = liveRuns.filter((run) => run.heard.has(event.eventType) && !startedRuns.includes(run.id)).map((run) => run.id);
  const reason = routingReason(event.eventType, matchedExperiences, startedRuns, deliveredTo, conditionsFailed);
  return { outcome: { matchedExperiences, startedRuns, deliveredTo, reason }, entered };
}

/**
 * The routing decision in words. An experience the event's type triggers but whose trigger conditions did not hold is
 * named (name and id), so "nothing happened" is told apart from "nothing listens to this event type".
 */
function routingReason(eventType: string, matched: string[], started: string[], deliveredTo: string[], conditionsFailed: ExperienceVersion[]): string {
  const failed = conditionsFailed.length
    ? `the trigger conditions of ${conditionsFailed.length === 1 ? 'experience' : 'experiences'} ${listed(conditionsFailed.map(named))} did not hold`
    : undefined;
  if (matched.length || deliveredTo.length) {
    const routed = `started ${started.length} run(s) of ${matched.length} matching experience(s); handed to ${deliveredTo.length} live run(s)`;
    return failed ? `${routed}; ${failed}` : routed;
  }
  return failed
    ? `${failed} for this ${eventType} event, and the person has no live run`
    : `no experience is triggered by ${eventType}, and the person has no live run`;
}

const named = (version: ExperienceVersion) => `${JSON.stringify(version.definition.name)} (${version.experienceId})`;
const listed = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * Writes a new run unless the entry rule forbids it; returns its id, with its `entryKey` when this call wrote it (its
 * first steps are then still to take), or null. The run id derives from (experience, event), so deciding again for the
 * same event finds the same run; `entryKey` is unique per experience, so the database refuses a second entry the rule
 * forbids even if a check were to race.
 */
async function enterRun(
  tx: EntityManager,
  event: InboundEvent,
  experienceId: string,
  version: number,
  definition: ExperienceDefinition,
  person: { id: string; clientUserId: string } | null,
): Promise<{ runId: string; entryKey?: string } | null> {
  const runId = derivedId('run_', experienceId, event.id);
  let entryKey: string;
  let runNumber = 1;
  let workflowId: string;
  if (!person) {
    // Nobody to follow: a run of its own for this event, which no later event can reach.
    entryKey = `event:${event.id}`;
    workflowId = experienceRunWorkflowId(experienceId, { eventId: event.id });
  } else {
    const earlier = await tx.find(ExperienceRun, { experienceId, visitorId: person.id }, { fields: ['id', 'status'] });
    if (earlier.some((run) => run.id === runId)) return { runId };
    const reentry = definition.entry.reentry;
    if (reentry === 'never' && earlier.length > 0) return null;
    if (reentry === 'after_exit' && earlier.some((run) => run.status === 'running')) return null;
    entryKey = reentry === 'never' ? `person:${person.id}` : reentry === 'after_exit' ? `live:${person.id}` : `event:${event.id}`;
    runNumber = earlier.length + 1;
    workflowId = experienceRunWorkflowId(experienceId, { visitorId: person.id, runNumber });
  }
  const now = new Date();
  const inserted = await tx
    .createQueryBuilder(ExperienceRun)
    .insert({
      id: runId,
      accountId: event.accountId,
      experienceId,
      version,
      visitorId: person?.id ?? null,
      clientUserId: person?.clientUserId ?? null,
      triggerEventId: event.id,
      entryKey,
      runNumber,
      workflowId,
      status: 'running',
      currentNodeId: definition.start,
      path: [],
      enteredAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .onConflict()
    .ignore()
    .execute<{ affectedRows: number }>('run');
  return inserted.affectedRows > 0 ? { runId, entryKey } : null;
}

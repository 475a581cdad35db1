import type { EntityManager } from '@mikro-orm/postgresql';
import pMap from 'p-map';
import type { Logger } from '../../logger.ts';
import { Connection } from '../../persistence/entities/connection.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { personKey } from '../../persistence/person-lock.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { ingestWorkflowId, type AcceptedEvent, type IngestState } from '../../../workflows/ingest-event.contract.ts';
import { startIngestRun } from '../../temporal/starters/ingest-event.ts';
import { DomainError } from '../errors.ts';
import type { InboundEnvelope } from './normalise/envelope.ts';
import { linkInboundEvent } from './link-inbound-event.ts';
import { finishInboundEvent, routeInboundEvent } from './route-inbound-event.ts';
import { linkAndRouteChunk } from './link-and-route-chunk.ts';
import { dispatchRouting } from '../routing/dispatch-routing.ts';
import type { PublishDeps } from '../events/publish-event.ts';

export interface ProcessedEvent {
  eventId: string;
  state: IngestState;
}

/** Persons processed side by side within one call; each person's events one after another. */
const personsInParallel = 4;
/** Held events' runs started side by side when a chunk is carried out. */
const heldStartsInParallel = 16;

/**
 * The work of one chunk of an `ingestBatch` run: every event still RECEIVED is linked to its visitor and routed, in
 * order of arrival per person (the relay never lets a person's newer event into a batch while an older one is still
 * being processed elsewhere). A held event gets its own `ingestEvent` run, which waits for its person.
 *
 * Most events are decided together, in one transaction (`linkAndRouteChunk`); the events of a person with something
 * held, and every event if that transaction fails, go one by one through the steps an `ingestEvent` run takes. What
 * was decided together is carried out on Temporal together, first: one dispatch for the chunk, in which a run
 * reached by several events gets them in one signal. Idempotent: a retry skips what an earlier attempt decided and
 * carries its decision out again. A business failure marks that event FAILED and the others go on; any other
 * failure of the per-event path is thrown once every person has been tried, so the activity retries only what is
 * left (a failure to carry out the chunk's decisions is thrown at once: the retry carries them out again).
 */
export async function processInboundEvents(
  deps: PublishDeps & { logger?: Logger; signal?: AbortSignal | undefined },
  eventIds: string[],
): Promise<ProcessedEvent[]> {
  const rows = await deps.em.find(InboundEvent, { id: { $in: eventIds } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const connections = new Map(
    (await deps.em.find(Connection, { id: { $in: [...new Set(rows.map((row) => row.connectionId))] } })).map((connection) => [connection.id, connection]),
  );
  const decided = await decideTogether(deps, rows, connections);
  const current = rows.map((row) => decided.get(row.id) ?? row);
  // What is decided (now, or by an earlier attempt) is carried out together, before the events still open: those
  // are a person's later events, or events of persons with something held.
  const outcomes = await carryOut(deps, current.filter((row) => row.status !== 'RECEIVED'), connections);
  const persons = new Map<string, InboundEvent[]>();
  for (const row of current.filter((candidate) => candidate.status === 'RECEIVED')) {
    const key = row.clientUserId ? personKey({ accountId: row.accountId, clientUserId: row.clientUserId }) : row.id;
    persons.set(key, [...(persons.get(key) ?? []), row]);
  }

  let failure: { error: unknown } | undefined;
  const queue = [...persons.values()];
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      for (const row of group) {
        const connection = connections.get(row.connectionId)!;
        try {
          const state = await processOne(deps, row, connection);
          outcomes.push({ eventId: row.id, state });
        } catch (error) {
          if (!(error instanceof DomainError)) {
            failure ??= { error };
            break; // the person's later events wait for the retry, so their order holds
          }
          await finishInboundEvent(deps.em.fork(), { eventId: row.id, status: 'FAILED', reason: error.message });
          outcomes.push({ eventId: row.id, state: { status: 'FAILED', visitorId: null, reason: error.message } });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: personsInParallel }, worker));
  if (failure) throw failure.error;
  return outcomes;
}

/**
 * The events `linkAndRouteChunk` decided and committed, as it left them. If its transaction fails (a deadlock, a bad row), nothing of it
 * was written, and every event takes the per-event path, which isolates a failing event from the others.
 */
async function decideTogether(
  deps: PublishDeps & { logger?: Logger },
  rows: InboundEvent[],
  connections: Map<string, Connection>,
): Promise<Map<string, InboundEvent>> {
  const received = rows.filter((row) => row.status === 'RECEIVED').map((row) => row.id);
  if (received.length === 0) return new Map();
  try {
    return await linkAndRouteChunk(deps.em.fork(), received, connections, deps);
  } catch (error) {
    deps.logger?.warn({ err: error, events: received.length }, 'deciding a chunk of events together failed; each event takes the per-event path');
    return new Map();
  }
}

/** The per-event path of an event still RECEIVED: the steps an `ingestEvent` run takes, one transaction each. */
async function processOne(deps: PublishDeps, row: InboundEvent, connection: Connection): Promise<IngestState> {
  const em = deps.em.fork();
  const accepted = acceptedOf(row);
  const config = connection.eventConfig;
  const link = await linkInboundEvent({ em, temporal: deps.temporal }, accepted, config);
  if (link.outcome === 'ignored') return { status: 'IGNORED', visitorId: null, reason: link.reason };
  if (link.outcome === 'held') {
    await startIngestRun(deps.temporal, { version: 1, accepted, config }, sourceOf(connection));
    return { status: 'HELD', visitorId: null, reason: `waiting for visitor ${row.clientUserId}` };
  }
  const visitorId = link.outcome === 'linked' ? link.visitorId : null;
  const outcome = await routeInboundEvent({ ...deps, em: em.fork() }, { eventId: row.id, visitorId, released: false });
  return { status: 'PROCESSED', visitorId, reason: outcome.reason };
}

/**
 * Carries out, on Temporal, what is stored for events that are no longer RECEIVED, and answers their states: a held
 * event's run is started (an attempt may have held it and failed before), the routed events' runs are started and
 * their live runs handed the events, all in one dispatch (each harmless to repeat).
 */
async function carryOut(
  deps: { em: EntityManager; temporal: TemporalAccess; signal?: AbortSignal | undefined },
  rows: InboundEvent[],
  connections: Map<string, Connection>,
): Promise<ProcessedEvent[]> {
  const startHeld = (row: InboundEvent) => {
    const connection = connections.get(row.connectionId)!;
    return startIngestRun(deps.temporal, { version: 1, accepted: acceptedOf(row), config: connection.eventConfig }, sourceOf(connection));
  };
  await pMap(rows.filter((row) => row.status === 'HELD'), startHeld, { concurrency: heldStartsInParallel });
  const routed = rows.flatMap((row) => (row.status === 'PROCESSED' && row.routingOutcome ? [{ eventId: row.id, outcome: row.routingOutcome }] : []));
  await dispatchRouting({ em: deps.em.fork(), temporal: deps.temporal, signal: deps.signal }, routed);
  return rows.map((row) => {
    const reason = row.status === 'PROCESSED' ? row.routingOutcome?.reason : row.statusReason;
    return { eventId: row.id, state: { status: row.status, visitorId: row.visitorId ?? null, ...(reason ? { reason } : {}) } };
  });
}

const sourceOf = (connection: Connection) => `${connection.label} (${connection.provider})`;

/** The event as its own `ingestEvent` run would carry it (a held event gets one). */
function acceptedOf(row: InboundEvent): AcceptedEvent {
  const event: InboundEnvelope = { version: '1', messageId: row.messageId, occurredAt: row.occurredAt.toISOString(), eventType: row.eventType };
  if (row.clientUserId) event.clientUserId = row.clientUserId;
  if (row.attributes) event.attributes = row.attributes;
  if (row.endpoints) event.endpoints = row.endpoints;
  if (row.raw) event.raw = row.raw;
  return { eventId: row.id, accountId: row.accountId, connectionId: row.connectionId, workflowId: ingestWorkflowId(row.connectionId, row.messageId), event };
}

/** Marks the events of a chunk that ran out of attempts FAILED, unless they got further. */
export async function failInboundEvents(em: EntityManager, eventIds: string[], reason: string): Promise<void> {
  await em.nativeUpdate(InboundEvent, { id: { $in: eventIds }, status: 'RECEIVED' }, { status: 'FAILED', statusReason: reason, processedAt: new Date() });
}

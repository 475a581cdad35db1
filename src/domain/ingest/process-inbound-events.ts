import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection } from '../../persistence/entities/connection.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { ingestWorkflowId, startIngestRun, type IngestState } from '../../../workflows/ingest-event.contract.ts';
import { DomainError } from '../errors.ts';
import type { InboundEnvelope } from './normalise/envelope.ts';
import { linkInboundEvent } from './record-inbound-event.ts';
import { finishInboundEvent, routeInboundEvent } from './route-inbound-event.ts';
import type { AcceptedEvent } from './store-inbound-event.ts';

export interface ProcessedEvent {
  eventId: string;
  state: IngestState;
}

/** Persons processed side by side within one call; each person's events one after another. */
const personsInParallel = 4;

/**
 * The work of one chunk of an `ingestBatch` run: every event still RECEIVED is linked to its visitor and routed, in
 * order of arrival per person (the relay never lets a person's newer event into a batch while an older one is still
 * being processed elsewhere). A held event gets its own `ingestEvent` run, which waits for its person. Idempotent: a
 * retry skips what an earlier attempt finished. A business failure marks that event FAILED and the others go on; any
 * other failure is thrown once every person has been tried, so the activity retries only what is left.
 */
export async function processInboundEvents(deps: { em: EntityManager; temporal: TemporalAccess }, eventIds: string[]): Promise<ProcessedEvent[]> {
  const rows = await deps.em.find(InboundEvent, { id: { $in: eventIds } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const connections = new Map(
    (await deps.em.find(Connection, { id: { $in: [...new Set(rows.map((row) => row.connectionId))] } })).map((connection) => [connection.id, connection]),
  );
  const persons = new Map<string, InboundEvent[]>();
  for (const row of rows) {
    const key = row.clientUserId ? `${row.accountId}:${row.clientUserId}` : row.id;
    persons.set(key, [...(persons.get(key) ?? []), row]);
  }

  const outcomes: ProcessedEvent[] = [];
  let failure: unknown;
  const queue = [...persons.values()];
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      for (const row of group) {
        try {
          const state = await processOne(deps, row, connections.get(row.connectionId)!);
          outcomes.push({ eventId: row.id, state });
        } catch (error) {
          if (!(error instanceof DomainError)) {
            failure ??= error;
            break; // the person's later events wait for the retry, so their order holds
          }
          await finishInboundEvent(deps.em.fork(), { eventId: row.id, status: 'FAILED', reason: error.message });
          outcomes.push({ eventId: row.id, state: { status: 'FAILED', visitorId: null, reason: error.message } });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: personsInParallel }, worker));
  if (failure) throw failure;
  return outcomes;
}

async function processOne(deps: { em: EntityManager; temporal: TemporalAccess }, row: InboundEvent, connection: Connection): Promise<IngestState> {
  const em = deps.em.fork();
  const accepted = acceptedOf(row);
  const config = connection.eventConfig;
  if (row.status === 'HELD') {
    // An earlier attempt held it; its own run may not have been started yet.
    await startIngestRun(deps.temporal, { version: 1, accepted, config }, `${connection.label} (${connection.provider})`);
    return { status: 'HELD', visitorId: null, reason: row.statusReason ?? undefined } as IngestState;
  }
  if (row.status !== 'RECEIVED') return { status: row.status, visitorId: row.visitorId ?? null, ...(row.statusReason ? { reason: row.statusReason } : {}) };

  const link = await linkInboundEvent({ em, temporal: deps.temporal }, accepted, config);
  if (link.outcome === 'ignored') return { status: 'IGNORED', visitorId: null, reason: link.reason };
  if (link.outcome === 'held') {
    await startIngestRun(deps.temporal, { version: 1, accepted, config }, `${connection.label} (${connection.provider})`);
    return { status: 'HELD', visitorId: null, reason: `waiting for visitor ${row.clientUserId}` };
  }
  const visitorId = link.outcome === 'linked' ? link.visitorId : null;
  const outcome = await routeInboundEvent({ em: em.fork(), temporal: deps.temporal }, { eventId: row.id, visitorId, released: false });
  return { status: 'PROCESSED', visitorId, reason: outcome.reason };
}

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

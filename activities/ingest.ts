import { finishInboundEvent, routeInboundEvent } from '../src/domain/ingest/route-inbound-event.ts';
import { failInboundEvents, processInboundEvents, type ProcessedEvent } from '../src/domain/ingest/process-inbound-events.ts';
import { recordInboundEvent, type LinkOutcome } from '../src/domain/ingest/record-inbound-event.ts';
import type { AcceptedEvent } from '../src/domain/ingest/store-inbound-event.ts';
import type { RoutingOutcome } from '../src/domain/routing/route-event.ts';
import type { EventConfig } from '../src/persistence/entities/connection.ts';
import { withDomainFailures } from './domain-failures.ts';
import type { ActivityDeps } from './deps.ts';

/** The ingest runs' I/O (ingestEvent and ingestBatch): the event row, visitors, held-event release and routing. */
export function createIngestActivities({ orm, temporal }: ActivityDeps) {
  return {
    recordInboundEvent(accepted: AcceptedEvent, config: EventConfig): Promise<LinkOutcome> {
      return withDomainFailures(() => recordInboundEvent({ em: orm.em.fork(), temporal }, accepted, config));
    },
    routeInboundEvent(input: { eventId: string; visitorId: string | null; released: boolean }): Promise<RoutingOutcome> {
      return withDomainFailures(() => routeInboundEvent({ em: orm.em.fork(), temporal }, input));
    },
    finishInboundEvent(input: { eventId: string; status: 'EXPIRED' | 'FAILED'; reason: string }): Promise<void> {
      return finishInboundEvent(orm.em.fork(), input);
    },
    /** A chunk of an ingestBatch run: business failures mark their event FAILED inside, so nothing to convert here. */
    processInboundEvents(input: { eventIds: string[] }): Promise<ProcessedEvent[]> {
      return processInboundEvents({ em: orm.em.fork(), temporal }, input.eventIds);
    },
    failInboundEvents(input: { eventIds: string[]; reason: string }): Promise<void> {
      return failInboundEvents(orm.em.fork(), input.eventIds, input.reason);
    },
  };
}

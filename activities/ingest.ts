import { Context } from '@temporalio/activity';
import { finishInboundEvent, routeInboundEvent } from '../src/domain/ingest/route-inbound-event.ts';
import { failInboundEvents, processInboundEvents, type ProcessedEvent } from '../src/domain/ingest/process-inbound-events.ts';
import { linkInboundEvent, type LinkOutcome } from '../src/domain/ingest/link-inbound-event.ts';
import type { RoutingOutcome } from '../src/domain/routing/routing-outcome.ts';
import type { EventConfig } from '../src/persistence/entities/connection.ts';
import type { AcceptedEvent } from '../workflows/ingest-event.contract.ts';
import { withDomainFailures } from './domain-failures.ts';
import type { ActivityDeps } from './deps.ts';
import { whileHeartbeating } from './heartbeat.ts';
import { withImmediateDelivery } from './immediate-delivery.ts';

/** What recordInboundEvent's outcome leaves the event's status at, when it is one the metric counts. */
const recordedStatus = { ignored: 'IGNORED', held: 'HELD' } as const;

/**
 * The ingest runs' I/O (ingestEvent and ingestBatch): the event row, visitors, held-event release and routing. Each step that moves an event to a
 * status counts it (richpush_ingest_events_processed_total) once it has returned: a step retried after its commit
 * counts again, so the counter is at least, not exactly, the number of events.
 */
export function createIngestActivities(deps: ActivityDeps) {
  const { orm, temporal, delivery, metrics, logger } = deps;
  return {
    async recordInboundEvent(accepted: AcceptedEvent, config: EventConfig): Promise<LinkOutcome> {
      const linked = await withDomainFailures(() => linkInboundEvent({ em: orm.em.fork(), temporal }, accepted, config));
      if (linked.outcome === 'ignored' || linked.outcome === 'held') metrics.eventProcessed(recordedStatus[linked.outcome]);
      return linked;
    },
    async routeInboundEvent(input: { eventId: string; visitorId: string | null; released: boolean }): Promise<RoutingOutcome> {
      const routed = await withDomainFailures(() => routeInboundEvent({ em: orm.em.fork(), temporal, delivery }, input));
      metrics.eventProcessed('PROCESSED');
      return routed;
    },
    async finishInboundEvent(input: { eventId: string; status: 'EXPIRED' | 'FAILED'; reason: string }): Promise<void> {
      await finishInboundEvent(orm.em.fork(), input);
      metrics.eventProcessed(input.status);
    },
    /**
     * A chunk of an ingestBatch run, heartbeating: business failures mark their event FAILED inside, so nothing to
     * convert here. The deliveries its routing writes (an experience's actions) are sent from here, immediately (ADR 0027).
     */
    async processInboundEvents(input: { eventIds: string[] }): Promise<ProcessedEvent[]> {
      const { cancellationSignal: signal } = Context.current();
      const processed = await whileHeartbeating(() =>
        withImmediateDelivery(deps, (takeDeliveries) => processInboundEvents({ em: orm.em.fork(), temporal, delivery, logger, signal, takeDeliveries }, input.eventIds)),
      );
      for (const event of processed) if (event.state.status !== 'RECEIVED') metrics.eventProcessed(event.state.status);
      return processed;
    },
    async failInboundEvents(input: { eventIds: string[]; reason: string }): Promise<void> {
      await whileHeartbeating(() => failInboundEvents(orm.em.fork(), input.eventIds, input.reason));
      for (const _ of input.eventIds) metrics.eventProcessed('FAILED');
    },
  };
}

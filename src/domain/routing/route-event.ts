import type { InboundEvent } from '../../persistence/entities/inbound-event.ts';

/**
 * The seam where flows (experiences) will plug in: given an accepted, linked event, decide which experiences it
 * starts or advances. No experiences exist yet, so every event is routed to none, and the outcome says so. The
 * outcome is stored on the event and shown by GET /accounts/{accountId}/events.
 */
export interface RoutingOutcome {
  matchedExperiences: string[];
  reason: string;
}

export async function routeEvent(event: InboundEvent): Promise<RoutingOutcome> {
  return { matchedExperiences: [], reason: `no experience is triggered by ${event.eventType}` };
}

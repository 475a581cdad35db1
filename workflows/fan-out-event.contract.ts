import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { AccountId, EntityId, EntityType, EventType } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';
import type { DeliveryRetry } from './deliver-webhook.contract.ts';

/**
 * The contract of the fan-out run of one published event (`event:<eventId>`): it records one delivery per
 * subscribed endpoint and starts a delivery run for each. Retired, kept for in-flight runs: `publishEvent` now writes
 * the event and its deliveries to the outbox in one statement, and the relay starts `deliverBatch` runs.
 */
export const fanOutEventWorkflowType = 'fanOutEvent';

export interface FanOutEventInputV1 {
  version: 1;
  eventId: string;
  accountId: string;
  eventType: string;
  /** Deliver only to this endpoint, subscribed or not (the endpoint test, and events aimed at one endpoint). */
  onlyEndpointId?: string | undefined;
  retry: DeliveryRetry;
}
export type FanOutEventInput = FanOutEventInputV1;

export type FanOutEventWorkflow = (input: FanOutEventInput) => Promise<{ deliveries: number }>;

export const fanOutWorkflowId = (eventId: string) => `event:${eventId}`;

export const fanOutSearchAttributes = (input: FanOutEventInput) => [
  { key: AccountId, value: input.accountId },
  { key: EntityType, value: 'outbound-event' },
  { key: EntityId, value: input.eventId },
  { key: EventType, value: input.eventType },
];

/**
 * Starts the fan-out unless this event already has one (REJECT_DUPLICATE: once an event has fanned out, publishing
 * it again must not deliver it again). Answers whether this call started it.
 */
export async function startFanOut(temporal: TemporalAccess, input: FanOutEventInput): Promise<boolean> {
  try {
    await temporal.client.workflow.start<FanOutEventWorkflow>(fanOutEventWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: fanOutWorkflowId(input.eventId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: fanOutSearchAttributes(input),
      staticSummary: `Fan out ${input.eventType} ${input.eventId}`,
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

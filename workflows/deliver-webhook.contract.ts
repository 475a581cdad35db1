import { defineQuery, startChild, type ActivityOptions } from '@temporalio/workflow';
import { AccountId, EntityId, EntityType, EventType } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';

/**
 * The contract of one delivery run: one outbound event to one endpoint, its HTTP attempts retried with exponential
 * backoff. Retired, kept for in-flight runs: deliveries now go through the outbox and `deliverBatch`
 * (deliver-batch.contract.ts). The retired fan-out run starts it as a child (`startDeliveryChild`); `startDelivery`
 * is left for the workflow tests. Its retry options (`attemptOptions`) and types are shared with `deliverBatch`.
 */
export const deliverWebhookWorkflowType = 'deliverWebhook';

/** The retry schedule of delivery attempts, fixed by the publisher from its settings. */
export interface DeliveryRetry {
  initialMs: number;
  backoff: number;
  maxAttempts: number;
  /** How long one HTTP attempt may take (DELIVERY_TIMEOUT_MS). Absent on runs started before it was carried. */
  timeoutMs?: number;
}

export interface DeliverWebhookInputV1 {
  version: 1;
  deliveryId: string;
  eventId: string;
  endpointId: string;
  accountId: string;
  retry: DeliveryRetry;
}
export type DeliverWebhookInput = DeliverWebhookInputV1;

export interface DeliveryState {
  status: 'pending' | 'succeeded' | 'failed';
  reason?: string;
}

export type DeliverWebhookWorkflow = (input: DeliverWebhookInput) => Promise<DeliveryState>;

export const deliveryState = defineQuery<DeliveryState>('state');

/** Error types after which another attempt cannot help; everything else is retried on the schedule. */
export const nonRetryableDeliveryErrors = ['DeliveryRejected', 'EndpointUnavailable'];

/** Room beyond the HTTP timeout for what an attempt does around the request: reads, signing, recording the attempt. */
const attemptOverheadMs = 15_000;
/** Runs started before the HTTP timeout was carried used a fixed 30 s per attempt. */
const legacyAttemptTimeoutMs = 30_000;

/** How a delivery's attempt activity runs and retries, in a `deliverWebhook` run and in a `deliverBatch` run alike. */
export const attemptOptions = (retry: DeliveryRetry): ActivityOptions => ({
  startToCloseTimeout: retry.timeoutMs === undefined ? legacyAttemptTimeoutMs : retry.timeoutMs + attemptOverheadMs,
  retry: {
    initialInterval: retry.initialMs,
    backoffCoefficient: retry.backoff,
    maximumInterval: '10 hours',
    maximumAttempts: retry.maxAttempts,
    nonRetryableErrorTypes: nonRetryableDeliveryErrors,
  },
});

export const deliveryWorkflowId = (eventId: string, endpointId: string) => `delivery:${eventId}:${endpointId}`;
export const redeliveryWorkflowId = (eventId: string, endpointId: string, deliveryId: string) =>
  `delivery:${eventId}:${endpointId}:redelivery:${deliveryId}`;

export const deliverySearchAttributes = (accountId: string, deliveryId: string, eventType: string) => [
  { key: AccountId, value: accountId },
  { key: EntityType, value: 'delivery' },
  { key: EntityId, value: deliveryId },
  { key: EventType, value: eventType },
];

/** What the operator sees of a delivery run, whoever starts it. */
export interface DeliveryLabel {
  workflowId: string;
  eventType: string;
  /** e.g. "Deliver job.assigned evt_… to https://…". */
  summary: string;
}

export function deliveryStartOptions(input: DeliverWebhookInput, label: DeliveryLabel) {
  return {
    workflowId: label.workflowId,
    args: [input] as [DeliverWebhookInput],
    typedSearchAttributes: deliverySearchAttributes(input.accountId, input.deliveryId, label.eventType),
    staticSummary: label.summary,
  };
}

/** From the API (a redelivery). */
export function startDelivery(temporal: TemporalAccess, input: DeliverWebhookInput, label: DeliveryLabel) {
  return temporal.client.workflow.start<DeliverWebhookWorkflow>(deliverWebhookWorkflowType, {
    taskQueue: temporal.taskQueue,
    ...deliveryStartOptions(input, label),
  });
}

/**
 * From workflow code (the fan-out). The delivery outlives its parent (ABANDON): a fan-out is done once every
 * delivery has started.
 */
export function startDeliveryChild(input: DeliverWebhookInput, label: DeliveryLabel) {
  return startChild<DeliverWebhookWorkflow>(deliverWebhookWorkflowType, {
    ...deliveryStartOptions(input, label),
    parentClosePolicy: 'ABANDON',
  });
}

import { defineQuery, type ActivityOptions } from '@temporalio/workflow';
import { DeliveryId, EntityId, EntityType } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of one batched delivery run (`deliveries:<batchId>`): the delivery relay claims the pending deliveries
 * it finds into a batch and starts this run for them. It sends each delivery side by side, each with its own HTTP
 * attempts retried with exponential backoff (Retry-After overrides the next delay), and ends once every one is final.
 */
export const deliverBatchWorkflowType = 'deliverBatch';

/** The retry schedule of delivery attempts, fixed by the relay from its settings. */
export interface DeliveryRetry {
  initialMs: number;
  backoff: number;
  maxAttempts: number;
  /** How long one HTTP attempt may take (DELIVERY_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface DeliveryState {
  status: 'pending' | 'succeeded' | 'failed';
  reason?: string;
}

/** Error types after which another attempt cannot help; everything else is retried on the schedule. */
export const nonRetryableDeliveryErrors = ['DeliveryRejected', 'EndpointUnavailable'];

/** Room beyond the HTTP timeout for what an attempt does around the request: reads, signing, recording the attempt. */
const attemptOverheadMs = 15_000;

/** How a delivery's attempt activity runs and retries. */
export const attemptOptions = (retry: DeliveryRetry): ActivityOptions => ({
  startToCloseTimeout: retry.timeoutMs + attemptOverheadMs,
  retry: {
    initialInterval: retry.initialMs,
    backoffCoefficient: retry.backoff,
    maximumInterval: '10 hours',
    maximumAttempts: retry.maxAttempts,
    nonRetryableErrorTypes: nonRetryableDeliveryErrors,
  },
});

export interface BatchedDelivery {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  eventType: string;
}

export interface DeliverBatchInput {
  version: 1;
  batchId: string;
  deliveries: BatchedDelivery[];
  retry: DeliveryRetry;
}

export interface BatchedDeliveryState extends DeliveryState {
  deliveryId: string;
}

export interface DeliverBatchResult {
  succeeded: number;
  failed: number;
}

export type DeliverBatchWorkflow = (input: DeliverBatchInput) => Promise<DeliverBatchResult>;

/** Every delivery of the run with its state, in the order of the input. */
export const batchDeliveries = defineQuery<BatchedDeliveryState[]>('deliveries');

export const deliveryBatchWorkflowId = (batchId: string) => `deliveries:${batchId}`;

/**
 * Temporal refuses a search attribute value over 2 KB (as JSON), and a refused start would leave the batch claimed
 * and unstartable: the relay's batch limit keeps the list under it (64 ids of 26 characters), and this cut keeps a
 * start possible whatever the ids. The run's deliveries query lists every one regardless.
 */
const deliveryIdsMaxBytes = 2000;

export function deliveryIdsAttribute(deliveryIds: string[]): string[] {
  const kept: string[] = [];
  let bytes = 2;
  for (const id of deliveryIds) {
    bytes += id.length + 3;
    if (bytes > deliveryIdsMaxBytes) break;
    kept.push(id);
  }
  return kept;
}

export const deliveryBatchSearchAttributes = (input: DeliverBatchInput) => [
  { key: EntityType, value: 'delivery-batch' },
  { key: EntityId, value: input.batchId },
  { key: DeliveryId, value: deliveryIdsAttribute(input.deliveries.map((delivery) => delivery.deliveryId)) },
];


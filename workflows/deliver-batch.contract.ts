import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';
import { DeliveryId, EntityId, EntityType } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';
import type { DeliveryRetry, DeliveryState } from './deliver-webhook.contract.ts';

/**
 * The contract of one batched delivery run (`deliveries:<batchId>`): the delivery relay claims the pending deliveries
 * it finds into a batch and starts this run for them. It sends each delivery side by side, each with its own HTTP
 * attempts retried with exponential backoff (Retry-After overrides the next delay), and ends once every one is final.
 */
export const deliverBatchWorkflowType = 'deliverBatch';

export interface BatchedDelivery {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  eventType: string;
}

export interface DeliverBatchInputV1 {
  version: 1;
  batchId: string;
  deliveries: BatchedDelivery[];
  retry: DeliveryRetry;
}
export type DeliverBatchInput = DeliverBatchInputV1;

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

/** e.g. "Deliver 1 event: job.assigned evt_…" or "Deliver 12 events: job.assigned ×10, webhook.test ×2". */
export function deliveryBatchSummary(input: DeliverBatchInput): string {
  const [first] = input.deliveries;
  if (input.deliveries.length === 1 && first) return `Deliver 1 event: ${first.eventType} ${first.eventId} to endpoint ${first.endpointId}`;
  const counts = new Map<string, number>();
  for (const delivery of input.deliveries) counts.set(delivery.eventType, (counts.get(delivery.eventType) ?? 0) + 1);
  const named = [...counts].slice(0, 5).map(([type, count]) => `${type} ×${count}`);
  const types = counts.size > named.length ? `${named.join(', ')}, …` : named.join(', ');
  return `Deliver ${input.deliveries.length} events: ${types}`;
}

/**
 * Starts the batch's run. Idempotent: a relay that restarts a batch it (or a crashed relay) claimed before finds the
 * run already started, or already finished (REJECT_DUPLICATE: a finished batch is never sent again), and that counts
 * as success. Answers whether this call started it.
 */
export async function startDeliveryBatch(temporal: TemporalAccess, input: DeliverBatchInput): Promise<boolean> {
  try {
    await temporal.client.workflow.start<DeliverBatchWorkflow>(deliverBatchWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: deliveryBatchWorkflowId(input.batchId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: deliveryBatchSearchAttributes(input),
      staticSummary: deliveryBatchSummary(input),
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

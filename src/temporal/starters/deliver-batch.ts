import {
  deliverBatchWorkflowType,
  deliveryBatchSearchAttributes,
  deliveryBatchWorkflowId,
  type DeliverBatchInput,
  type DeliverBatchWorkflow,
} from '../../../workflows/deliver-batch.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';
import { startOnce } from './start-once.ts';

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
export function startDeliveryBatch(temporal: TemporalAccess, input: DeliverBatchInput): Promise<boolean> {
  return startOnce(() =>
    temporal.client.workflow.start<DeliverBatchWorkflow>(deliverBatchWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: deliveryBatchWorkflowId(input.batchId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: deliveryBatchSearchAttributes(input),
      staticSummary: deliveryBatchSummary(input),
      requestEagerStart: temporal.eagerStart === true,
    }),
  );
}

import { ActivityFailure, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { attemptOptions, batchDeliveries, type BatchedDeliveryState, type DeliverBatchInput, type DeliverBatchResult } from './deliver-batch.contract.ts';
import { failureReason } from './failure-reason.ts';

const { finishDelivery } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

/**
 * One batch of deliveries (`deliveries:<batchId>`), claimed together by the delivery relay. Each delivery is sent side
 * by side with the others: its HTTP attempts are one activity, retried
 * with exponential backoff (a 429/503 Retry-After overrides the next delay) until one succeeds, the receiver rejects
 * it, or attempts run out. A delivered attempt marks its row itself; a failed delivery is marked by `finishDelivery`.
 * The run ends when every delivery is final.
 */
export async function deliverBatch(input: DeliverBatchInput): Promise<DeliverBatchResult> {
  const { attemptDelivery } = proxyActivities<Activities>(attemptOptions(input.retry));
  const states: BatchedDeliveryState[] = input.deliveries.map((delivery) => ({ deliveryId: delivery.deliveryId, status: 'pending' }));
  setHandler(batchDeliveries, () => states);
  setCurrentDetails(`Delivering ${input.deliveries.length} event(s); the \`deliveries\` query lists each delivery and its state.`);

  await Promise.all(
    input.deliveries.map(async ({ deliveryId }, index) => {
      let reason: string;
      try {
        const outcome = await attemptDelivery({ deliveryId });
        if (outcome.delivered) return void (states[index] = { deliveryId, status: 'succeeded' });
        reason = outcome.reason ?? 'not delivered';
      } catch (error) {
        // Only the attempts' own end fails the delivery; anything else (a bug) fails the workflow task.
        if (!(error instanceof ActivityFailure)) throw error;
        reason = failureReason(error);
      }
      await finishDelivery({ deliveryId, status: 'failed', reason });
      states[index] = { deliveryId, status: 'failed', reason };
    }),
  );
  const failed = states.filter((state) => state.status === 'failed').length;
  setCurrentDetails(`${states.length - failed} delivered, ${failed} failed; the \`deliveries\` query lists each.`);
  return { succeeded: states.length - failed, failed };
}

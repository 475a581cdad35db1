import { ActivityFailure, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { failureReason } from './failure-reason.ts';
import { attemptOptions, deliveryState, type DeliverWebhookInput, type DeliveryState } from './deliver-webhook.contract.ts';

const { finishDelivery } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

/**
 * One delivery (`delivery:<eventId>:<endpointId>`): HTTP attempts as an activity, retried with exponential backoff
 * (a 429/503 Retry-After overrides the next delay), until one succeeds, the receiver rejects it, or attempts run out.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryState> {
  const { retry } = input;
  const { attemptDelivery } = proxyActivities<Activities>(attemptOptions(retry));

  let state: DeliveryState = { status: 'pending' };
  setHandler(deliveryState, () => state);
  setCurrentDetails(`Delivering to endpoint ${input.endpointId}; attempts are listed under delivery ${input.deliveryId}.`);
  try {
    const outcome = await attemptDelivery({ deliveryId: input.deliveryId });
    state = outcome.delivered ? { status: 'succeeded' } : { status: 'failed', reason: outcome.reason };
  } catch (error) {
    // Only the attempts' own end (rejected, or out of attempts) fails the delivery. Anything else is a bug in this
    // code: it fails the workflow task, and the run resumes once a fixed worker is deployed.
    if (!(error instanceof ActivityFailure)) throw error;
    state = { status: 'failed', reason: failureReason(error) };
  }
  await finishDelivery({ deliveryId: input.deliveryId, ...state });
  setCurrentDetails(`Delivery ${input.deliveryId} ${state.status}${state.reason ? `: ${state.reason}` : ''}.`);
  return state;
}


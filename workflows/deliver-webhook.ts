import { ActivityFailure, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { failureReason } from './failure-reason.ts';
import { deliveryState, nonRetryableDeliveryErrors, type DeliverWebhookInput, type DeliveryState } from './deliver-webhook.contract.ts';

const { finishDelivery } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

/** Room beyond the HTTP timeout for what an attempt does around the request: reads, signing, recording the attempt. */
const attemptOverheadMs = 15_000;
/** Runs started before the HTTP timeout was carried used a fixed 30 s per attempt. */
const legacyAttemptTimeoutMs = 30_000;

/**
 * One delivery (`delivery:<eventId>:<endpointId>`): HTTP attempts as an activity, retried with exponential backoff
 * (a 429/503 Retry-After overrides the next delay), until one succeeds, the receiver rejects it, or attempts run out.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryState> {
  const { retry } = input;
  const { attemptDelivery } = proxyActivities<Activities>({
    startToCloseTimeout: retry.timeoutMs === undefined ? legacyAttemptTimeoutMs : retry.timeoutMs + attemptOverheadMs,
    retry: {
      initialInterval: retry.initialMs,
      backoffCoefficient: retry.backoff,
      maximumInterval: '10 hours',
      maximumAttempts: retry.maxAttempts,
      nonRetryableErrorTypes: nonRetryableDeliveryErrors,
    },
  });

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


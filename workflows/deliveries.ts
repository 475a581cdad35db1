import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { deliverySearchAttributes } from '../src/temporal/search-attributes.ts';
import { deliveryWorkflowId } from '../src/temporal/workflow-ids.ts';

/** The retry schedule of delivery attempts, fixed by the publisher from its settings. */
export interface DeliveryRetry {
  initialMs: number;
  backoff: number;
  maxAttempts: number;
}

export interface FanOutInput {
  eventId: string;
  accountId: string;
  eventType: string;
  /** Deliver only to this endpoint, subscribed or not (the endpoint test). */
  onlyEndpointId?: string | undefined;
  retry: DeliveryRetry;
}

export interface DeliverInput {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  accountId: string;
  retry: DeliveryRetry;
}

export interface DeliveryState {
  status: 'pending' | 'succeeded' | 'failed';
  reason?: string;
}

export const deliveryStateQuery = defineQuery<DeliveryState>('state');

/** Errors after which another attempt cannot help; everything else is retried on the schedule. */
export const nonRetryableDeliveryErrors = ['DeliveryRejected', 'EndpointUnavailable'];

const { prepareDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});

/**
 * One run per published event (`event:<eventId>`): records one delivery per subscribed, enabled endpoint and starts
 * a delivery run for each. Those outlive this run, which ends once they have all started.
 */
export async function fanOutEvent(input: FanOutInput): Promise<{ deliveries: number }> {
  const targets = await prepareDeliveries({ eventId: input.eventId, onlyEndpointId: input.onlyEndpointId });
  for (const target of targets) {
    await startChild(deliverWebhook, {
      workflowId: deliveryWorkflowId(input.eventId, target.endpointId),
      args: [{ deliveryId: target.deliveryId, eventId: input.eventId, endpointId: target.endpointId, accountId: input.accountId, retry: input.retry }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: deliverySearchAttributes(input.accountId, target.deliveryId, input.eventType),
      staticSummary: `Deliver ${input.eventType} ${input.eventId} to ${target.url}`,
    });
  }
  return { deliveries: targets.length };
}

function failureReason(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * One delivery (`delivery:<eventId>:<endpointId>`): HTTP attempts as an activity, retried with exponential backoff
 * (a 429/503 Retry-After overrides the next delay), until one succeeds, the receiver rejects it, or attempts run out.
 */
export async function deliverWebhook(input: DeliverInput): Promise<DeliveryState> {
  const { attemptDelivery } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: input.retry.initialMs,
      backoffCoefficient: input.retry.backoff,
      maximumInterval: '10 hours',
      maximumAttempts: input.retry.maxAttempts,
      nonRetryableErrorTypes: nonRetryableDeliveryErrors,
    },
  });
  const { finishDelivery } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

  let state: DeliveryState = { status: 'pending' };
  setHandler(deliveryStateQuery, () => state);
  setCurrentDetails(`Delivering to endpoint ${input.endpointId}; attempts are listed under delivery ${input.deliveryId}.`);
  try {
    const outcome = await attemptDelivery({ deliveryId: input.deliveryId });
    state = outcome.delivered ? { status: 'succeeded' } : { status: 'failed', reason: outcome.reason };
  } catch (error) {
    state = { status: 'failed', reason: failureReason(error) };
  }
  await finishDelivery({ deliveryId: input.deliveryId, ...state });
  setCurrentDetails(`Delivery ${input.deliveryId} ${state.status}${state.reason ? `: ${state.reason}` : ''}.`);
  return state;
}

import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { deliveryWorkflowId, startDeliveryChild } from './deliver-webhook.contract.ts';
import type { FanOutEventInput } from './fan-out-event.contract.ts';

const { prepareDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});

/**
 * One run per published event (`event:<eventId>`): records one delivery per subscribed, enabled endpoint and starts
 * a delivery run for each. Those outlive this run, which ends once they have all started.
 */
export async function fanOutEvent(input: FanOutEventInput): Promise<{ deliveries: number }> {
  const targets = await prepareDeliveries({ eventId: input.eventId, onlyEndpointId: input.onlyEndpointId });
  for (const target of targets) {
    await startDeliveryChild(
      { version: 1, deliveryId: target.deliveryId, eventId: input.eventId, endpointId: target.endpointId, accountId: input.accountId, retry: input.retry },
      {
        workflowId: deliveryWorkflowId(input.eventId, target.endpointId),
        eventType: input.eventType,
        summary: `Deliver ${input.eventType} ${input.eventId} to ${target.url}`,
      },
    );
  }
  return { deliveries: targets.length };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { newId } from '../../security/ids.ts';
import { AccountId, EntityId, EntityType, EventType } from '../../temporal/search-attributes.ts';
import { eventFanOutWorkflowId } from '../../temporal/workflow-ids.ts';
import type { FanOutInput } from '../../../workflows/deliveries.ts';
import { retryOf, type DeliverySettings } from '../deliveries/delivery-settings.ts';
import { buildEnvelope, type EventInput } from './envelope.ts';

export interface PublishDeps {
  em: EntityManager;
  temporal: { client: Client; taskQueue: string };
  delivery: DeliverySettings;
}

export interface PublishInput extends EventInput {
  /** Give the same id to publish the same event again: it is stored and delivered once. */
  eventId?: string | undefined;
  onlyEndpointId?: string | undefined;
}

/**
 * Emits an outbound event: stores its envelope, then starts its fan-out run, which delivers it to every subscribed,
 * enabled endpoint. Both steps are idempotent on the event id, so a caller that failed half-way can simply retry.
 */
export async function publishEvent(deps: PublishDeps, input: PublishInput): Promise<{ eventId: string }> {
  const eventId = input.eventId ?? newId('evt_');
  const createdAt = new Date();
  const body = JSON.stringify(buildEnvelope(eventId, input, createdAt));
  await deps.em
    .createQueryBuilder(OutboundEvent)
    .insert({ id: eventId, accountId: input.accountId, type: input.type, body, createdAt })
    .onConflict('id')
    .ignore()
    .execute();

  const fanOut: FanOutInput = {
    eventId,
    accountId: input.accountId,
    eventType: input.type,
    onlyEndpointId: input.onlyEndpointId,
    retry: retryOf(deps.delivery),
  };
  try {
    await deps.temporal.client.workflow.start('fanOutEvent', {
      taskQueue: deps.temporal.taskQueue,
      workflowId: eventFanOutWorkflowId(eventId),
      // Once an event has fanned out, publishing it again must not deliver it again.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [fanOut],
      typedSearchAttributes: [
        { key: AccountId, value: input.accountId },
        { key: EntityType, value: 'outbound-event' },
        { key: EntityId, value: eventId },
        { key: EventType, value: input.type },
      ],
      staticSummary: `Fan out ${input.type} ${eventId}`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return { eventId };
}

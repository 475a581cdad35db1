import type { EntityManager } from '@mikro-orm/postgresql';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { newId } from '../../security/ids.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { startFanOut } from '../../../workflows/fan-out-event.contract.ts';
import { retryOf, type DeliverySettings } from '../deliveries/delivery-settings.ts';
import { buildEnvelope, type EventInput } from './envelope.ts';

export interface PublishDeps {
  em: EntityManager;
  temporal: TemporalAccess;
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

  await startFanOut(deps.temporal, {
    version: 1,
    eventId,
    accountId: input.accountId,
    eventType: input.type,
    onlyEndpointId: input.onlyEndpointId,
    retry: retryOf(deps.delivery),
  });
  return { eventId };
}

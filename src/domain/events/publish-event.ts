import type { EntityManager } from '@mikro-orm/postgresql';
import { derivedId, newId } from '../../security/ids.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { deliveryOutboxChannel } from '../../persistence/outbox-channels.ts';
import type { DeliverySettings } from '../deliveries/delivery-settings.ts';
import { buildEnvelope, type EventInput } from './envelope.ts';

export interface PublishDeps {
  em: EntityManager;
  /** Its task queue names the relay (the workers on that queue) that sends the deliveries. */
  temporal: TemporalAccess;
  delivery: DeliverySettings;
  /**
   * Takes the ids of the deliveries a publish writes, in place of waking the relay: the caller sends them itself
   * once its transaction commits (a routing chunk, `deliverImmediately`). Should it die before, the relay's poll finds them.
   */
  takeDeliveries?: ((deliveryIds: string[]) => void) | undefined;
}

export interface PublishInput extends EventInput {
  /** Give the same id to publish the same event again: it is stored and delivered once. */
  eventId?: string | undefined;
  /** Deliver only to this endpoint, subscribed or not (the endpoint test, and events aimed at one endpoint). */
  onlyEndpointId?: string | undefined;
  /** Deliver to every subscribed endpoint but this one (`endpoint.disabled`, about the endpoint being disabled). */
  exceptEndpointId?: string | undefined;
}

/**
 * Emits an outbound event into the delivery outbox: one SQL statement stores its envelope and one pending delivery
 * per subscribed, enabled endpoint, and signals the relay (`pg_notify`, sent at commit), unless the caller takes the
 * deliveries to send itself (`takeDeliveries`). It answers as soon as that commits; the relay then claims the
 * deliveries into a batch and starts the run that sends them. Nothing here calls Temporal, so no failure can leave
 * an event without its deliveries or a delivery without a sender.
 *
 * Idempotent on the event id: the deliveries are written only with the event row, so publishing an event again
 * (a caller retrying after a lost answer) finds it stored and adds nothing.
 */
export async function publishEvent(deps: PublishDeps, input: PublishInput): Promise<{ eventId: string }> {
  const eventId = input.eventId ?? newId('evt_');
  const createdAt = new Date();
  const body = JSON.stringify(buildEnvelope(eventId, input, createdAt));
  const endpoints = await targetEndpoints(deps.em, input);

  const storeEvent = `insert into outbound_events (id, account_id, type, body, created_at) values (?, ?::uuid, ?, ?, ?::timestamptz)
      on conflict (id) do nothing returning id`;
  if (endpoints.length === 0) {
    await deps.em.execute(storeEvent, [eventId, input.accountId, input.type, body, createdAt.toISOString()]);
    return { eventId };
  }
  const rows = endpoints.map(() => '(?, ?)').join(', ');
  const deliveryIds = endpoints.map((endpoint) => derivedId('dlv_', eventId, endpoint.id));
  const { takeDeliveries } = deps;
  await deps.em.execute(
    `with event as (${storeEvent}),
     delivery as (
       insert into deliveries (id, account_id, event_id, endpoint_id, status, attempt_count, task_queue, created_at)
       select target.id, ?::uuid, event.id, target.endpoint_id, 'pending', 0, ?, ?::timestamptz
         from event, (values ${rows}) as target (id, endpoint_id)
       returning 1
     )
     select ${takeDeliveries ? 'count(*)' : `pg_notify(?, '')`} from (select 1 from delivery limit 1) as written`,
    [
      eventId,
      input.accountId,
      input.type,
      body,
      createdAt.toISOString(),
      input.accountId,
      deps.temporal.taskQueue,
      createdAt.toISOString(),
      ...endpoints.flatMap((endpoint, index) => [deliveryIds[index], endpoint.id]),
      ...(takeDeliveries ? [] : [deliveryOutboxChannel]),
    ],
  );
  takeDeliveries?.(deliveryIds);
  return { eventId };
}

/** The endpoints that receive the event now: enabled, not deleted, and subscribed to its type (or the one asked for). */
async function targetEndpoints(em: EntityManager, input: PublishInput): Promise<Array<{ id: string }>> {
  const which = input.onlyEndpointId ? 'id = ?' : 'event_types @> jsonb_build_array(?::text)';
  const except = input.exceptEndpointId ? ' and id <> ?' : '';
  return em.execute<Array<{ id: string }>>(
    `select id from endpoints where account_id = ?::uuid and status = 'enabled' and deleted_at is null and ${which}${except} order by id`,
    [input.accountId, input.onlyEndpointId ?? input.type, ...(input.exceptEndpointId ? [input.exceptEndpointId] : [])],
  );
}

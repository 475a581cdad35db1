import type { EntityManager } from '@mikro-orm/postgresql';

// The outboxes' NOTIFY channels. Writers (the domain, the API) and the relays that LISTEN (src/outbox/) both come
// here, so neither imports the other: the relays call the domain, the domain only writes rows and wakes them.

/** The NOTIFY channel a publish signals after writing delivery rows; the delivery relay LISTENs on it. */
export const deliveryOutboxChannel = 'delivery_outbox';

/** The NOTIFY channel the API signals after committing inbound events; the ingest relay LISTENs on it. */
export const inboundEventsChannel = 'inbound_events';

/**
 * Tells the delivery relays there are pending deliveries (sent when the caller's transaction commits). Only a
 * wake-up: were it lost, the relays' poll finds the rows all the same.
 */
export async function wakeDeliveryRelays(em: EntityManager): Promise<void> {
  await em.execute('select pg_notify(?, ?)', [deliveryOutboxChannel, '']);
}

/** Tells the ingest relays there are accepted events; as a wake-up, like `wakeDeliveryRelays`. */
export async function wakeIngestRelays(em: EntityManager): Promise<void> {
  await em.execute('select pg_notify(?, ?)', [inboundEventsChannel, '']);
}

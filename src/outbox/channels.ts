/** The NOTIFY channel a publish signals after writing delivery rows; the delivery relay LISTENs on it. */
export const deliveryOutboxChannel = 'delivery_outbox';

/** The NOTIFY channel the API signals after committing inbound events; the ingest relay LISTENs on it. */
export const inboundEventsChannel = 'inbound_events';

/** The NOTIFY channel a publish signals after writing delivery rows; the delivery relay LISTENs on it. */
export const deliveryOutboxChannel = 'delivery_outbox';

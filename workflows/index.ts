export { deliverWebhook, fanOutEvent } from './deliveries.ts';
export { selfTest } from './self-test.ts';

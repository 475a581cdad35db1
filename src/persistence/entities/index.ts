import { Account } from './account.ts';
import { App } from './app.ts';
import { Delivery } from './delivery.ts';
import { DeliveryAttempt } from './delivery-attempt.ts';
import { Endpoint } from './endpoint.ts';
import { Notification } from './notification.ts';
import { OutboundEvent } from './outbound-event.ts';

export { Account, App, Delivery, DeliveryAttempt, Endpoint, Notification, OutboundEvent };
export const entities = [Account, App, Notification, Endpoint, OutboundEvent, Delivery, DeliveryAttempt];

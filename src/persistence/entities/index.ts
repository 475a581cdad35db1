import { Account } from './account.ts';
import { App } from './app.ts';
import { Delivery } from './delivery.ts';
import { DeliveryAttempt } from './delivery-attempt.ts';
import { Endpoint } from './endpoint.ts';
import { Job } from './job.ts';
import { JobFile } from './job-file.ts';
import { Notification } from './notification.ts';
import { OutboundEvent } from './outbound-event.ts';
import { Slot } from './slot.ts';
import { Stock } from './stock.ts';

export { Account, App, Delivery, DeliveryAttempt, Endpoint, Job, JobFile, Notification, OutboundEvent, Slot, Stock };
export const entities = [Account, App, Notification, Endpoint, OutboundEvent, Delivery, DeliveryAttempt, Job, JobFile, Stock, Slot];

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { Endpoint } from './endpoint.ts';
import { OutboundEvent } from './outbound-event.ts';

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * One event sent to one endpoint, driven by the workflow `workflowId`. A redelivery is a delivery of its own. A row
 * written with a `taskQueue` is in the delivery outbox until that queue's relay claims it into a batch (`batchId`)
 * and names the batch's run in `workflowId`; until then `workflowId` is null.
 */
export const Delivery = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    eventId: () => p.manyToOne(OutboundEvent).mapToPk().fieldName('event_id'),
    endpointId: () => p.manyToOne(Endpoint).mapToPk().fieldName('endpoint_id'),
    redeliveryOf: p.string().length(40).nullable(),
    workflowId: p.string().length(200).nullable(),
    taskQueue: p.string().length(200).nullable(),
    batchId: p.string().length(40).nullable(),
    status: p.enum(deliveryStatuses),
    attemptCount: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    failureReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['endpointId', 'createdAt', 'id'] }, { properties: ['endpointId', 'status', 'createdAt', 'id'] }],
});

export type Delivery = InferEntity<typeof Delivery>;

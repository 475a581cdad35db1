import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { routingOutcomeSchema } from '../../domain/routing/routing-outcome.ts';
import { jsonObjectSchema, storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { Connection } from './connection.ts';

export const inboundEventStatuses = ['RECEIVED', 'HELD', 'PROCESSED', 'IGNORED', 'EXPIRED', 'FAILED'] as const;
export type InboundEventStatus = (typeof inboundEventStatuses)[number];

/**
 * An event a client posted, normalised to the ingest envelope, and the ingest outbox. (connection, messageId) is
 * unique: the insert that wins answers 202, every other 409. A relay claims RECEIVED rows into a batch
 * (`relayBatchId`), starts the batch's run and sets `workflowStartedAt`; `workflowId` names the run that processes
 * the event (the batch's, or `ingest:<connectionId>:<messageId>` once the event is held).
 */
export const InboundEvent = defineEntity({
  name: 'InboundEvent',
  tableName: 'inbound_events',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    connectionId: () => p.manyToOne(Connection).mapToPk().fieldName('connection_id'),
    messageId: p.string().length(255),
    eventType: p.string().length(200),
    occurredAt: p.datetime(),
    clientUserId: p.string().length(255).nullable(),
    attributes: storedJson(jsonObjectSchema).nullable(),
    endpoints: storedJson(z.object({ email: z.string().optional(), phone: z.string().optional() })).nullable(),
    raw: storedJson(jsonObjectSchema).nullable(),
    status: p.enum(inboundEventStatuses),
    statusReason: p.text().nullable(),
    visitorId: p.uuid().nullable(),
    workflowId: p.string().length(400),
    workflowStartedAt: p.datetime().nullable(),
    /** The relay's batch this event was claimed into; its run is `ingest-batch:<relayBatchId>`. */
    relayBatchId: p.string().length(40).nullable(),
    relayClaimedAt: p.datetime().nullable(),
    /** The task queue of the API that accepted the event: only that queue's relays claim it (null: before the outbox). */
    taskQueue: p.string().length(200).nullable(),
    routingOutcome: storedJson(routingOutcomeSchema).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    processedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ['connectionId', 'messageId'] }],
  indexes: [
    { properties: ['accountId', 'createdAt', 'id'] },
    { properties: ['accountId', 'status', 'createdAt', 'id'] },
    { properties: ['accountId', 'clientUserId', 'status'] },
  ],
});

export type InboundEvent = InferEntity<typeof InboundEvent>;

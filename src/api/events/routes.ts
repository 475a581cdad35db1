import { z } from 'zod';
import { listInboundEvents } from '../../domain/ingest/list-inbound-events.ts';
import { defineRoute } from '../../http/route.ts';
import { inboundEventStatuses, type InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { accountIdParam, pageOf, paginationQuery, timestamp, toPageResponse } from '../shared-schemas.ts';

const inboundEventSchema = z
  .object({
    eventId: z.string(),
    connectionId: z.string(),
    messageId: z.string(),
    eventType: z.string(),
    occurredAt: timestamp,
    clientUserId: z.string().nullable(),
    visitorId: z.uuid().nullable(),
    attributes: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(inboundEventStatuses),
    statusReason: z.string().nullable(),
    workflowId: z.string().meta({ description: 'ingest:<connectionId>:<messageId>' }),
    routingOutcome: z.record(z.string(), z.unknown()).nullable(),
    receivedAt: timestamp,
    processedAt: timestamp.nullable(),
  })
  .meta({ id: 'InboundEvent' });

const toInboundEventResponse = (event: InboundEvent): z.infer<typeof inboundEventSchema> => ({
  eventId: event.id,
  connectionId: event.connectionId,
  messageId: event.messageId,
  eventType: event.eventType,
  occurredAt: event.occurredAt.toISOString(),
  clientUserId: event.clientUserId ?? null,
  visitorId: event.visitorId ?? null,
  attributes: event.attributes ?? null,
  status: event.status,
  statusReason: event.statusReason ?? null,
  workflowId: event.workflowId,
  routingOutcome: event.routingOutcome ?? null,
  receivedAt: event.createdAt.toISOString(),
  processedAt: event.processedAt?.toISOString() ?? null,
});

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/accounts/:accountId/events',
    operationId: 'listInboundEvents',
    summary: 'List ingested events, newest first, with their status and routing outcome',
    tag: 'Ingest',
    auth: 'account',
    params: accountIdParam,
    query: z.object({
      status: z.enum(inboundEventStatuses).optional(),
      eventType: z.string().min(1).max(200).optional(),
      clientUserId: z.string().min(1).max(255).optional(),
      ...paginationQuery,
    }),
    responses: { 200: { description: 'One page of events', schema: pageOf(inboundEventSchema).meta({ id: 'InboundEventPage' }) } },
    handler: async ({ query }, { em, account }) => {
      const page = await listInboundEvents(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toInboundEventResponse) };
    },
  }),
];

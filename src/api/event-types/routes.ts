import { z } from 'zod';
import { eventTypeCatalogue } from '../../domain/events/event-types.ts';
import { defineRoute } from '../../http/route.ts';

const eventTypeListSchema = z
  .object({
    eventTypes: z.array(z.object({ type: z.string(), description: z.string(), example: z.record(z.string(), z.unknown()) })),
  })
  .meta({ id: 'EventTypeList' });

const exampleEnvelope = (type: string, result: Record<string, unknown>) => ({
  id: 'evt_8Q2mZk1vQ0u7hWqT3n5bXg',
  type,
  timestamp: '2026-01-02T03:04:05.000Z',
  accountId: '6f1c2a9e-3b5d-4c7e-9f10-2a3b4c5d6e7f',
  data: { result },
});

export const eventTypeRoutes = [
  defineRoute({
    method: 'get',
    path: '/event-types',
    operationId: 'listEventTypes',
    summary: 'The outbound event types, each with a description and an example envelope',
    tag: 'Endpoints',
    auth: 'account',
    responses: { 200: { description: 'Every type an endpoint can subscribe to', schema: eventTypeListSchema } },
    handler: async () => ({
      status: 200,
      body: {
        eventTypes: Object.entries(eventTypeCatalogue).map(([type, info]) => ({
          type,
          description: info.description,
          example: exampleEnvelope(type, info.exampleResult),
        })),
      },
    }),
  }),
];

import { z } from 'zod';
import { eventTypeNames } from '../../domain/events/event-types.ts';
import { endpointStatuses, type Endpoint } from '../../persistence/entities/endpoint.ts';
import { timestamp } from '../shared-schemas.ts';

const eventTypes = z
  .array(z.enum(eventTypeNames, { error: `must be one of the types listed by GET /event-types` }))
  .min(1)
  .max(eventTypeNames.length)
  .transform((types) => [...new Set(types)]);

const url = z.string().min(1).max(2048).trim().meta({ description: 'HTTPS URL that does not resolve to a private, loopback or other blocked address.' });
const description = z.string().max(500).trim();

export const endpointParams = z.object({ accountId: z.uuid(), endpointId: z.string().min(1).max(64) });

export const createEndpointBody = z
  .strictObject({ url, eventTypes, description: description.optional() })
  .meta({ id: 'CreateEndpoint' });

export const updateEndpointBody = z
  .strictObject({
    url: url.optional(),
    eventTypes: eventTypes.optional(),
    description: description.nullable().optional(),
    status: z.enum(endpointStatuses).optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, 'send at least one of url, eventTypes, description, status')
  .meta({ id: 'UpdateEndpoint', minProperties: 1 });

export const endpointSchema = z
  .object({
    endpointId: z.string().meta({ example: 'ep_Jx3kq9…' }),
    url: z.string(),
    eventTypes: z.array(z.string()),
    status: z.enum(endpointStatuses),
    description: z.string().nullable(),
    disabledReason: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Endpoint' });

export const createdEndpointSchema = endpointSchema
  .extend({ secret: z.string().meta({ description: 'whsec_… signing secret. Shown only here and on rotation.' }) })
  .meta({ id: 'CreatedEndpoint' });

export const endpointListSchema = z.object({ endpoints: z.array(endpointSchema) }).meta({ id: 'EndpointList' });

export const rotatedSecretSchema = z
  .object({ endpointId: z.string(), secret: z.string(), previousSecretExpiresAt: timestamp })
  .meta({ id: 'RotatedSecret' });

export const testEventSchema = z.object({ eventId: z.string(), endpointId: z.string() }).meta({ id: 'TestEventSent' });

export function toEndpointResponse(endpoint: Endpoint): z.infer<typeof endpointSchema> {
  return {
    endpointId: endpoint.id,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    status: endpoint.status,
    description: endpoint.description ?? null,
    disabledReason: endpoint.disabledReason ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

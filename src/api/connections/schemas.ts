import { z } from 'zod';
import { providers } from '../../domain/ingest/normalise/envelope.ts';
import { effectiveOutboundUrl } from '../../domain/connections/outbound-url.ts';
import { connectionStatuses, type Connection } from '../../persistence/entities/connection.ts';
import { timestamp, trimmedText } from '../shared-schemas.ts';

const mapping = z
  .record(z.string().min(1).max(100), z.string().min(1).max(300))
  .refine((value) => Object.keys(value).length <= 100, 'at most 100 entries')
  .meta({ maxProperties: 100, description: 'Target name → dot path in the payload (e.g. "plan": "properties.plan"). For the webhook provider, messageId, eventType, occurredAt, clientUserId, email and phone name the envelope fields.' });

const eventConfigFields = {
  eventTypes: z.array(z.string().min(1).max(200)).max(200).optional().meta({ description: 'Only these eventTypes are processed; others are IGNORED.' }),
  createVisitors: z.boolean().optional().meta({ description: 'Create a visitor for an unknown clientUserId (default true); otherwise the event is HELD.' }),
  holdTtlHours: z.number().positive().max(24 * 90).optional().meta({ description: 'How long a held event waits for its visitor (default 168).' }),
  rateLimit: z.strictObject({ perSecond: z.number().int().min(1).max(100_000), burst: z.number().int().min(1).max(1_000_000) }).optional(),
};
const eventConfig = z.strictObject(eventConfigFields).meta({ id: 'EventConfig' });

const outboundUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .meta({
    description:
      'Base URL of the provider API that experiences call (segment and rudderstack connections only): https, no query, not resolving to a blocked address. Segment defaults to https://api.segment.io; RudderStack needs its data plane URL.',
    example: 'https://api.segment.io',
  });

export const connectionParams = z.object({ accountId: z.uuid(), connectionId: z.string().min(1).max(64) });

export const createConnectionBody = z
  .strictObject({
    provider: z.enum(providers),
    label: trimmedText(200),
    mapping: mapping.optional(),
    eventConfig: eventConfig.optional(),
    outboundUrl: outboundUrl.optional(),
  })
  .meta({ id: 'CreateConnection' });

export const updateConnectionBody = z
  .strictObject({
    label: trimmedText(200).optional(),
    status: z.enum(connectionStatuses).optional(),
    mapping: mapping.optional(),
    eventConfig: eventConfig.optional(),
    outboundCredential: z.string().min(1).max(4096).nullable().optional().meta({ description: 'Write-only; stored encrypted; never returned. null removes it.' }),
    outboundUrl: outboundUrl.nullable().optional().meta({ description: 'null returns to the provider’s default (none for rudderstack).' }),
  })
  .refine((changes) => Object.keys(changes).length > 0, 'send at least one field')
  .meta({ id: 'UpdateConnection', minProperties: 1 });

export const connectionSchema = z
  .object({
    connectionId: z.string().meta({ example: 'conn_Qm3…' }),
    accountId: z.uuid(),
    provider: z.enum(providers),
    label: z.string(),
    status: z.enum(connectionStatuses),
    connectMethod: z.string(),
    inboundUrl: z.string(),
    createdAt: timestamp,
    lastInboundAt: timestamp.nullable(),
    lastOutboundAt: timestamp.nullable(),
    mapping: z.record(z.string(), z.string()),
    eventConfig: z.object({ ...eventConfigFields, createVisitors: z.boolean(), holdTtlHours: z.number() }),
    hasOutboundCredential: z.boolean(),
    outboundUrl: z.string().nullable().meta({ description: 'The base URL provider calls go to: the one set, else the provider’s default; null when there is none.' }),
    outboundUrlIsDefault: z.boolean().meta({ description: 'True when outboundUrl is the provider’s default rather than one the account set.' }),
  })
  .meta({ id: 'Connection' });

export const createdConnectionSchema = connectionSchema
  .extend({
    inboundKey: z.string().meta({ description: 'Names the connection in its inbound URL (256 random bits).' }),
    signingSecret: z.string().meta({ description: 'whsec_… secret the client signs posts with. Shown only here and on rotation.' }),
  })
  .meta({ id: 'CreatedConnection' });

export const connectionListSchema = z.object({ connections: z.array(connectionSchema) }).meta({ id: 'ConnectionList' });
export const rotatedConnectionSecretSchema = z
  .object({ connectionId: z.string(), signingSecret: z.string(), previousSecretExpiresAt: timestamp })
  .meta({ id: 'RotatedConnectionSecret' });

export const inboundUrlOf = (connection: Connection, baseUrl: string) => `${baseUrl.replace(/\/$/, '')}/v1/in/${connection.inboundKey}`;

export function toConnectionResponse(connection: Connection, baseUrl: string): z.infer<typeof connectionSchema> {
  const outbound = effectiveOutboundUrl(connection);
  return {
    connectionId: connection.id,
    accountId: connection.accountId,
    provider: connection.provider as z.infer<typeof connectionSchema>['provider'],
    label: connection.label,
    status: connection.status,
    connectMethod: connection.connectMethod,
    inboundUrl: inboundUrlOf(connection, baseUrl),
    createdAt: connection.createdAt.toISOString(),
    lastInboundAt: connection.lastInboundAt?.toISOString() ?? null,
    lastOutboundAt: connection.lastOutboundAt?.toISOString() ?? null,
    mapping: connection.mapping,
    eventConfig: connection.eventConfig,
    hasOutboundCredential: connection.outboundCredentialSealed != null,
    outboundUrl: outbound.url,
    outboundUrlIsDefault: outbound.isDefault,
  };
}

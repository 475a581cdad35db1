import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type * as IngestEventWorkflow from '../../../workflows/ingest-event.contract.ts';
import { z } from 'zod';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import type { Agrees, SameType } from './same-type.ts';
import { updatedAtProperty } from './updated-at.ts';

export const connectionStatuses = ['active', 'paused'] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];

export const eventConfigSchema = z.object({
  eventTypes: z.array(z.string()).optional(),
  createVisitors: z.boolean(),
  holdTtlHours: z.number(),
  rateLimit: z.object({ perSecond: z.number(), burst: z.number() }).optional(),
});
export type EventConfig = z.infer<typeof eventConfigSchema>;
// A held event's run is started with the connection's settings (its contract's own type): they must stay the same.
type _EventConfigsAgree = Agrees<SameType<EventConfig, IngestEventWorkflow.EventConfig>>;

/**
 * A client system that posts events to `/v1/in/{inboundKey}`. The inbound key names the connection in the URL;
 * the signing secret (sealed) proves the sender. A rotated secret keeps verifying for 24 hours.
 */
export const Connection = defineEntity({
  name: 'Connection',
  tableName: 'connections',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    provider: p.string().length(32),
    label: p.string().length(200),
    status: p.enum(connectionStatuses),
    connectMethod: p.string().length(32),
    inboundKey: p.string().length(64).unique(),
    signingSecretSealed: p.text().hidden(),
    previousSigningSecretSealed: p.text().nullable().hidden(),
    previousSigningSecretExpiresAt: p.datetime().nullable(),
    mapping: storedJson(z.record(z.string(), z.string())),
    eventConfig: storedJson(eventConfigSchema),
    outboundCredentialSealed: p.text().nullable().hidden(),
    /** The base of the provider's API as the account set it; null means the provider's default, if it has one. */
    outboundUrl: p.string().length(2048).nullable(),
    lastInboundAt: p.datetime().nullable(),
    lastOutboundAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['accountId', 'createdAt', 'id'] }],
});

export type Connection = InferEntity<typeof Connection>;

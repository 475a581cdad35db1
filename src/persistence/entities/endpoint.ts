import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { updatedAtProperty } from './updated-at.ts';

export const endpointStatuses = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

/**
 * An account's HTTPS receiver of outbound events. Signing secrets are sealed (see security/secret-box.ts); after a
 * rotation the previous secret keeps signing beside the new one until `previousSecretExpiresAt`.
 */
export const Endpoint = defineEntity({
  name: 'Endpoint',
  tableName: 'endpoints',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    url: p.text(),
    eventTypes: storedJson(z.array(z.string())),
    description: p.string().length(500).nullable(),
    status: p.enum(endpointStatuses),
    disabledReason: p.text().nullable(),
    secretSealed: p.text().hidden(),
    previousSecretSealed: p.text().nullable().hidden(),
    previousSecretExpiresAt: p.datetime().nullable(),
    /** Start of the current run of failed attempts; cleared by any success. Drives the automatic disable. */
    failingSince: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['accountId', 'createdAt', 'id'] }],
});

export type Endpoint = InferEntity<typeof Endpoint>;

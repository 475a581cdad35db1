import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { experienceDefinitionSchema } from '../../domain/experiences/definition-schema.ts';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { updatedAtProperty } from './updated-at.ts';

export const experienceStatuses = ['draft', 'active', 'paused', 'archived'] as const;
export type ExperienceStatus = (typeof experienceStatuses)[number];

/**
 * An experience of an account (what the interface spec calls a flow): its latest definition (edited freely) and, once published, the number of its latest frozen
 * version. `triggerEventType` is the published version's trigger, kept here so routing finds the experiences an
 * event may start with one indexed query.
 */
export const Experience = defineEntity({
  name: 'Experience',
  tableName: 'experiences',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    name: p.string().length(200),
    status: p.enum(experienceStatuses),
    definition: storedJson(experienceDefinitionSchema),
    version: p.integer().nullable(),
    triggerEventType: p.string().length(200).nullable(),
    publishedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  indexes: [
    { properties: ['accountId', 'createdAt', 'id'] },
    { properties: ['accountId', 'status', 'createdAt', 'id'] },
    { properties: ['accountId', 'triggerEventType', 'status'] },
  ],
});

export type Experience = InferEntity<typeof Experience>;

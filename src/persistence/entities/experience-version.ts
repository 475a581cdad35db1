import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { experienceDefinitionSchema } from '../../domain/experiences/definition-schema.ts';
import { storedJson } from '../stored-json.ts';
import { Experience } from './experience.ts';

/** A published, immutable version of an experience's definition. Runs keep the version they entered on. */
export const ExperienceVersion = defineEntity({
  name: 'ExperienceVersion',
  tableName: 'experience_versions',
  properties: {
    id: p.uuid().primary(),
    experienceId: () => p.manyToOne(Experience).mapToPk().fieldName('experience_id'),
    version: p.integer(),
    definition: storedJson(experienceDefinitionSchema),
    publishedAt: p.datetime(),
  },
  uniques: [{ properties: ['experienceId', 'version'] }],
});

export type ExperienceVersion = InferEntity<typeof ExperienceVersion>;

// TEMPORARY stand-in, replaced by branch i9-flowdef.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ErrorDetail } from '../errors.ts';
import type { ExperienceDefinition } from './definition-schema.ts';

export async function checkPublishable(_em: EntityManager, _accountId: string, _definition: ExperienceDefinition): Promise<ErrorDetail[]> {
  return [];
}

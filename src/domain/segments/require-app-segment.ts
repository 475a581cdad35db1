import type { EntityManager } from '@mikro-orm/postgresql';
import { Segment } from '../../persistence/entities/segment.ts';
import { isUuid } from '../../security/ids.ts';
import { DomainError } from '../errors.ts';

/**
 * Refuses, with 422 `unknown_segment`, a `filterId` (of a message or a job) that names no segment of the app: not a
 * segment id at all, no such segment, or a segment of another app or account. `null` or absent (no segment) passes.
 * Segments cannot be deleted, so a segment found here still exists when the caller stores the id.
 */
export async function requireAppSegment(em: EntityManager, accountId: string, appId: string, filterId: string | null | undefined): Promise<void> {
  if (filterId === null || filterId === undefined) return;
  const found = isUuid(filterId) ? await em.count(Segment, { id: filterId, accountId, appId }) : 0;
  if (found === 0) {
    throw new DomainError(
      'unknown_segment',
      `filterId ${JSON.stringify(filterId)} names no segment of app ${appId}; use the id of one of its segments (POST /filter/create, GET /filter/list)`,
    );
  }
}

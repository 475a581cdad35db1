import type { EntityManager } from '@mikro-orm/postgresql';
import { Segment } from '../../persistence/entities/segment.ts';
import { isUuid } from '../../security/ids.ts';
import { notFound } from '../errors.ts';

/** The account's segment, or 404: another account's, and an id that is not a segment id at all, look the same as none. */
export async function findOwnedSegment(em: EntityManager, accountId: string, segmentId: string): Promise<Segment> {
  const segment = isUuid(segmentId) ? await em.findOne(Segment, { id: segmentId, accountId }) : null;
  if (!segment) throw notFound('Segment');
  return segment;
}

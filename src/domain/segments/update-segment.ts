import type { EntityManager } from '@mikro-orm/postgresql';
import { findOwnedSegment } from './find-owned-segment.ts';
import { withDeviceCount, type CountedSegment } from './get-segment.ts';
import type { SegmentRules } from './segment-rules.ts';

/** Changes the name or the rules; the app stays. */
export async function updateSegment(
  em: EntityManager,
  accountId: string,
  segmentId: string,
  changes: { name?: string | undefined; rules?: SegmentRules | undefined },
): Promise<CountedSegment> {
  const segment = await findOwnedSegment(em, accountId, segmentId);
  if (changes.name !== undefined) segment.name = changes.name;
  if (changes.rules !== undefined) segment.rules = changes.rules;
  await em.flush();
  return withDeviceCount(em, segment);
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Segment } from '../../persistence/entities/segment.ts';
import { findOwnedSegment } from './find-owned-segment.ts';
import { countSegmentDevices } from './segment-devices.ts';

/** A segment with the number of devices it holds at the time of the answer. */
export interface CountedSegment {
  segment: Segment;
  deviceCount: number;
}

export const withDeviceCount = async (em: EntityManager, segment: Segment): Promise<CountedSegment> => ({
  segment,
  deviceCount: await countSegmentDevices(em, segment),
});

export async function getSegment(em: EntityManager, accountId: string, segmentId: string): Promise<CountedSegment> {
  return withDeviceCount(em, await findOwnedSegment(em, accountId, segmentId));
}

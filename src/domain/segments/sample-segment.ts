import type { EntityManager } from '@mikro-orm/postgresql';
import { Device } from '../../persistence/entities/device.ts';
import { findOwnedSegment } from './find-owned-segment.ts';
import { countSegmentDevices, pageSegmentDevices } from './segment-devices.ts';
import type { Segment } from '../../persistence/entities/segment.ts';

/** A sample holds at most this many devices: enough to see who a segment's rules pick, not a way to export it. */
export const maxSegmentSample = 50;

export interface SegmentSample {
  segment: Segment;
  deviceCount: number;
  devices: Device[];
}

/**
 * The segment's live size and its first `limit` devices (by device id, the order segment paging uses): who its rules
 * pick right now, for a person checking them. The count and the devices are read one after the other, so a device
 * that joins between the two may be in one and not the other.
 */
export async function sampleSegment(em: EntityManager, accountId: string, segmentId: string, limit: number): Promise<SegmentSample> {
  const segment = await findOwnedSegment(em, accountId, segmentId);
  const deviceCount = await countSegmentDevices(em, segment);
  const ids = (await pageSegmentDevices(em, segment, { limit })).map((device) => device.deviceId);
  const devices = ids.length === 0 ? [] : await em.find(Device, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
  return { segment, deviceCount, devices };
}

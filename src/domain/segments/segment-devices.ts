import type { EntityManager } from '@mikro-orm/postgresql';
import type { Platform } from '../../persistence/entities/device.ts';
import { isUuid } from '../../security/ids.ts';
import { segmentCondition } from './segment-condition.ts';
import type { SegmentRules } from './segment-rules.ts';

export interface SegmentQuery {
  appId: string;
  rules: SegmentRules;
}

export interface SegmentDevice {
  deviceId: string;
  token: string;
  platform: Platform;
}

/** A page of pageSegmentDevices holds at most this many devices. */
export const maxSegmentPage = 10_000;

/** How many devices the segment holds now. Counted by Postgres; no device is loaded. */
export async function countSegmentDevices(em: EntityManager, segment: SegmentQuery): Promise<number> {
  const where = segmentCondition(segment.rules, segment.appId);
  const [row] = await em.execute<Array<{ count: string | number }>>(`select count(*) as count from devices d where ${where.sql}`, where.params);
  return Number(row?.count ?? 0);
}

/**
 * The segment's devices after `afterDeviceId` (keyset, device id ascending), at most `limit` of them: pass the last
 * deviceId of a page to get the next; a page shorter than `limit` is the last. A device that joins or leaves the
 * segment between pages is seen or not depending on where it falls; none is seen twice.
 */
export async function pageSegmentDevices(
  em: EntityManager,
  segment: SegmentQuery,
  page: { afterDeviceId?: string | undefined; limit: number },
): Promise<SegmentDevice[]> {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > maxSegmentPage) {
    throw new RangeError(`limit must be an integer from 1 to ${maxSegmentPage}`);
  }
  if (page.afterDeviceId !== undefined && !isUuid(page.afterDeviceId)) throw new RangeError('afterDeviceId must be a device id (a UUID)');
  const where = segmentCondition(segment.rules, segment.appId);
  const after = page.afterDeviceId === undefined ? { sql: '', params: [] } : { sql: ' and d.id > ?', params: [page.afterDeviceId] };
  const rows = await em.execute<Array<{ id: string; token: string; platform: Platform }>>(
    `select d.id, d.token, d.platform from devices d where ${where.sql}${after.sql} order by d.id limit ?`,
    [...where.params, ...after.params, page.limit],
  );
  return rows.map((row) => ({ deviceId: row.id, token: row.token, platform: row.platform }));
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTest } from '../../persistence/entities/ab-test.ts';
import { Segment } from '../../persistence/entities/segment.ts';
import { isUuid } from '../../security/ids.ts';
import { segmentCondition } from '../segments/segment-condition.ts';
import { countSegmentDevices } from '../segments/segment-devices.ts';

/** Arm A and arm B each get max(1, floor(N × testPercent / 200)) devices; the rest is the remainder. */
export const armSize = (audience: number, testPercent: number) => Math.max(1, Math.floor((audience * testPercent) / 200));

/** The test's segment, when it is a segment of the test's account and app. */
async function segmentOf(em: EntityManager, test: AbTest): Promise<Segment | null> {
  if (!test.filterId || !isUuid(test.filterId)) return null;
  return em.findOne(Segment, { id: test.filterId, accountId: test.accountId, appId: test.appId });
}

/** The test's segment as it is now: whether it is a segment of the test's app, and how many devices it has. */
export async function countAudience(em: EntityManager, test: AbTest): Promise<{ found: boolean; devices: number }> {
  const segment = await segmentOf(em, test);
  if (!segment) return { found: false, devices: 0 };
  return { found: true, devices: await countSegmentDevices(em, { appId: segment.appId, rules: segment.rules }) };
}

/**
 * Writes the audience snapshot in one statement, inside the caller's transaction: the segment's devices now, ordered by
 * md5(testId ‖ deviceId) (random, yet the same every time), the first k in arm A, the next k in B, the rest in the
 * remainder, k = max(1, floor(N × testPercent / 200)). Nothing is loaded into memory, however large the segment.
 * Answers the size of each arm.
 */
export async function snapshotAudience(em: EntityManager, test: AbTest): Promise<{ A: number; B: number; remainder: number }> {
  const segment = await segmentOf(em, test);
  if (!segment) throw new Error(`test ${test.id} has no segment`);
  const where = segmentCondition(segment.rules, segment.appId);
  await em.execute(
    `insert into ab_test_members (ab_test_id, device_id, arm)
     select ?, ranked.id, case when ranked.position <= ranked.k then 'A' when ranked.position <= 2 * ranked.k then 'B' else 'remainder' end
       from (select d.id,
                    row_number() over (order by md5(? || d.id::text), d.id) as position,
                    greatest(1, floor(count(*) over () * ? / 200.0)) as k
               from devices d where ${where.sql}) as ranked
     on conflict do nothing`,
    [test.id, test.id, test.testPercent, ...where.params],
  );
  const rows = await em.execute<Array<{ arm: 'A' | 'B' | 'remainder'; devices: string }>>(
    'select arm, count(*) as devices from ab_test_members where ab_test_id = ? group by arm',
    [test.id],
  );
  const size = (arm: string) => Number(rows.find((row) => row.arm === arm)?.devices ?? 0);
  return { A: size('A'), B: size('B'), remainder: size('remainder') };
}

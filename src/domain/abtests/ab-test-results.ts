import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTest } from '../../persistence/entities/ab-test.ts';
import type { AbTestResults, ArmResult } from './results-types.ts';
import { decideWinner } from './statistics.ts';

export type { AbTestResults, ArmResult } from './results-types.ts';

interface ArmRow {
  arm: 'A' | 'B' | 'remainder';
  devices: string;
  sent: string;
  failed: string;
  clicks: string;
}

/**
 * Counts a test's arms in Postgres: devices from the audience snapshot, sends by status, unique clicks (a send counts
 * once, however often it was clicked). One grouped query over indexed rows; nothing is loaded row by row.
 */
export async function countArms(em: EntityManager, testId: string): Promise<Record<'A' | 'B' | 'remainder', Omit<ArmResult, 'ctr'>>> {
  const rows = await em.getConnection().execute<ArmRow[]>(
    `select m.arm,
            count(*) as devices,
            count(*) filter (where s.status = 'sent') as sent,
            count(*) filter (where s.status in ('failed', 'unregistered')) as failed,
            count(*) filter (where s.status = 'sent' and s.clicked_at is not null) as clicks
       from ab_test_members m
       left join push_sends s on s.ab_test_id = m.ab_test_id and s.device_id = m.device_id
      where m.ab_test_id = ?
      group by m.arm`,
    [testId],
  );
  const empty = { devices: 0, sent: 0, failed: 0, clicks: 0 };
  const counts = { A: { ...empty }, B: { ...empty }, remainder: { ...empty } };
  for (const row of rows) {
    counts[row.arm] = { devices: Number(row.devices), sent: Number(row.sent), failed: Number(row.failed), clicks: Number(row.clicks) };
  }
  return counts;
}

/** The results as they stand: the stored ones once decided, else counted now and marked provisional. */
export async function resultsOf(em: EntityManager, test: AbTest): Promise<AbTestResults | null> {
  if (test.results) return test.results;
  if (test.audienceSize === null || test.audienceSize === undefined) return null;
  return computeResults(await countArms(em, test.id), null);
}

export function computeResults(counts: Awaited<ReturnType<typeof countArms>>, decidedAt: Date | null): AbTestResults {
  const decision = decideWinner({ A: counts.A, B: counts.B });
  return {
    arms: { A: { ...counts.A, ctr: decision.ctrA }, B: { ...counts.B, ctr: decision.ctrB } },
    remainder: { devices: counts.remainder.devices, sent: counts.remainder.sent },
    winner: decidedAt ? decision.winner : null,
    decidedAt: decidedAt?.toISOString() ?? null,
    significance: decision.significance,
    srm: decision.srm,
    provisional: decidedAt === null,
  };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTest } from '../../persistence/entities/ab-test.ts';
import type { AbTestResults, ArmResult, WinnerMetric } from './results-types.ts';
import { decideWinner } from './statistics.ts';

export type { AbTestResults, ArmResult } from './results-types.ts';

interface ArmRow {
  arm: 'A' | 'B' | 'remainder';
  devices: string;
  sent: string;
  failed: string;
  clicks: string;
  conversions: string;
}

type ArmCounts = Omit<ArmResult, 'ctr' | 'conversions' | 'conversionRate'> & { conversions: number };

/**
 * Counts a test's arms in Postgres: devices from the audience snapshot, sends by status, unique clicks (a send counts
 * once, however often it was clicked). One grouped query over indexed rows; nothing is loaded row by row.
 */
export async function countArms(em: EntityManager, testId: string): Promise<Record<'A' | 'B' | 'remainder', ArmCounts>> {
  const rows = await em.getConnection().execute<ArmRow[]>(
    `select m.arm,
            count(*) as devices,
            count(*) filter (where s.status = 'sent') as sent,
            count(*) filter (where s.status in ('failed', 'unregistered')) as failed,
            count(*) filter (where s.status = 'sent' and s.clicked_at is not null) as clicks,
            count(*) filter (where s.status = 'sent' and s.converted_at is not null) as conversions
       from ab_test_members m
       left join push_sends s on s.ab_test_id = m.ab_test_id and s.device_id = m.device_id
      where m.ab_test_id = ?
      group by m.arm`,
    [testId],
  );
  const empty = { devices: 0, sent: 0, failed: 0, clicks: 0, conversions: 0 };
  const counts = { A: { ...empty }, B: { ...empty }, remainder: { ...empty } };
  for (const row of rows) {
    counts[row.arm] = { devices: Number(row.devices), sent: Number(row.sent), failed: Number(row.failed), clicks: Number(row.clicks), conversions: Number(row.conversions) };
  }
  return counts;
}

/** The results as they stand: the stored ones once decided, else counted now and marked provisional. */
export async function resultsOf(em: EntityManager, test: AbTest): Promise<AbTestResults | null> {
  if (test.results) return test.results;
  if (test.audienceSize === null || test.audienceSize === undefined) return null;
  return computeResults(await countArms(em, test.id), null, test.winnerMetric);
}

const rateOf = (successes: number, sent: number) => (sent > 0 ? successes / sent : null);

/**
 * The results from the arms' counts: the winner, its statistics and the sample-ratio check by `metric`, whose
 * successes are unique clicks (`ctr`) or conversions (`conversion`) out of the sends; both rates are shown.
 */
export function computeResults(counts: Awaited<ReturnType<typeof countArms>>, decidedAt: Date | null, metric: WinnerMetric = 'ctr'): AbTestResults {
  const successes = (arm: ArmCounts) => ({ ...arm, clicks: metric === 'conversion' ? arm.conversions : arm.clicks });
  const decision = decideWinner({ A: successes(counts.A), B: successes(counts.B) });
  const arm = (counted: ArmCounts): ArmResult => ({ ...counted, ctr: rateOf(counted.clicks, counted.sent), conversionRate: rateOf(counted.conversions, counted.sent) });
  return {
    arms: { A: arm(counts.A), B: arm(counts.B) },
    remainder: { devices: counts.remainder.devices, sent: counts.remainder.sent },
    winner: decidedAt ? decision.winner : null,
    metric,
    decidedAt: decidedAt?.toISOString() ?? null,
    significance: decision.significance,
    srm: decision.srm,
    provisional: decidedAt === null,
  };
}

import { z } from 'zod';
import { checkAbTest } from '../../domain/abtests/check-ab-test.ts';
import {
  formatPlayTime,
  maxPlayTimeEpochMs,
  parsePlayTime,
  playTimeExpected,
  playTimeFormatDescription,
  playTimeFromEpochMs,
} from '../../domain/abtests/play-time.ts';
import type { AbTestResults, ArmResult } from '../../domain/abtests/ab-test-results.ts';
import { wilsonInterval95 } from '../../domain/abtests/statistics.ts';
import { winnerMetrics } from '../../domain/abtests/results-types.ts';
import { abTestStates, type AbTest } from '../../persistence/entities/ab-test.ts';
import { pageOf, paginationQuery, timestamp, trimmedText } from '../shared-schemas.ts';

const segmentId = z.string().min(1).max(64).meta({ description: 'The audience segment (`POST /filter/create`).' });
/**
 * The spec's form, or epoch milliseconds as messages take them. Every refusal (wrong type, wrong form, impossible date,
 * out of range) is one detail that says both forms with an example.
 */
const playTime = z
  .union(
    [
      z.string().meta({ description: playTimeFormatDescription, example: '2026-11-20T10:00:00.000+0100' }),
      z.number().meta({
        description: 'Epoch milliseconds, as on messages; answered in the spec’s form, in UTC (+0000).',
        override: { type: 'integer', minimum: 0, maximum: maxPlayTimeEpochMs },
      }),
    ],
    { error: playTimeExpected },
  )
  .transform((value, ctx) => {
    const parsed = typeof value === 'number' ? playTimeFromEpochMs(value) : parsePlayTime(value);
    if (!parsed) ctx.addIssue({ code: 'custom', message: playTimeExpected });
    return parsed ?? z.NEVER;
  })
  .meta({ description: `${playTimeFormatDescription}; or epoch milliseconds.` });
/** Any whole number a column holds: validate, not the edge, checks the ranges a test needs (and lists each miss). */
const storableInt = z.number().int().min(-2_147_483_648).max(2_147_483_647);
const expiry = storableInt.meta({ description: 'Minutes the test runs, 1 to 43,200 (checked by validate; default 1440).' });
/** A window of no minutes (or fewer) is refused at create; update stores what validate will list. */
const createExpiry = storableInt
  .min(1, 'must be at least 1 minute (the test’s window; default 1440)')
  .meta({ description: 'Minutes the test runs: at least 1 here; validate checks 1 to 43,200 (default 1440).' });
const testPercent = storableInt.meta({ description: 'Percent of the segment in the test, split evenly between A and B; 2 to 100 (checked by validate; default 20).' });

const winnerMetric = z.enum(winnerMetrics).meta({
  description:
    'What picks the winner: `ctr` (unique clicks / sends, the default) or `conversion` (conversions / sends, by the messages’ `conversion` goals). The statistics and the decision use it.',
});

export const createAbTestBody = z
  .strictObject({
    appId: z.uuid(),
    abTestName: trimmedText(200),
    description: z.string().max(2000).nullable().optional(),
    filterId: segmentId.nullable().optional(),
    expiry: createExpiry.optional(),
    winnerMetric: winnerMetric.optional(),
  })
  .meta({ id: 'CreateAbTest' });

export const updateAbTestBody = z
  .strictObject({
    id: z.uuid(),
    abTestName: trimmedText(200).optional(),
    description: z.string().max(2000).nullable().optional(),
    filterId: segmentId.nullable().optional(),
    templateIdA: z.uuid().nullable().optional().meta({ description: 'Message A: a push message of the app.' }),
    templateIdB: z.uuid().nullable().optional().meta({ description: 'Message B: a push message of the app.' }),
    appId: z.uuid().optional().meta({ description: 'The test’s app; it cannot change.' }),
    companyId: z.uuid().optional().meta({ description: 'The account’s id.' }),
    state: z.enum(['NEW']).optional().meta({ description: 'Only NEW may be sent.' }),
    playTime: playTime.nullable().optional(),
    expiry: expiry.optional(),
    testPercent: testPercent.optional(),
    winnerMetric: winnerMetric.optional(),
  })
  .meta({ id: 'UpdateAbTest' });

export const abTestQuery = z.object({ id: z.uuid(), appId: z.uuid() });
export const abTestIdQuery = z.object({ id: z.uuid() });
export const abTestListQuery = z.object({ appId: z.uuid(), state: z.enum(abTestStates).optional(), ...paginationQuery });

const rateInterval = z.tuple([z.number(), z.number()]).nullable();
const armSchema = z.object({
  devices: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  clicks: z.number().int(),
  ctr: z.number().nullable(),
  conversions: z.number().int(),
  conversionRate: z.number().nullable(),
  ctrInterval95: rateInterval.meta({ description: 'The 95% Wilson score interval of `ctr` as `[low, high]`; null before anything was sent.' }),
  conversionRateInterval95: rateInterval.meta({ description: 'The 95% Wilson score interval of `conversionRate`; null before anything was sent.' }),
});
export const resultsSchema = z
  .object({
    arms: z.object({ A: armSchema, B: armSchema }),
    remainder: z.object({ devices: z.number().int(), sent: z.number().int() }),
    winner: z.enum(['A', 'B']).nullable(),
    metric: z.enum(winnerMetrics).meta({ description: 'The metric the decision and its statistics use.' }),
    decidedAt: timestamp.nullable(),
    significance: z.unknown(),
    srm: z.unknown(),
    provisional: z.boolean(),
  })
  .meta({ id: 'AbTestResults' });

export const abTestSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    companyId: z.uuid(),
    abTestName: z.string(),
    description: z.string().nullable(),
    filterId: z.string().nullable(),
    templateIdA: z.uuid().nullable(),
    templateIdB: z.uuid().nullable(),
    state: z.enum(abTestStates),
    playTime: z.string().nullable().meta({ description: playTimeFormatDescription }),
    expiry: z.number().int(),
    testPercent: z.number().int(),
    winnerMetric: z.enum(winnerMetrics),
    audience: z.object({ devices: z.number().int() }).nullable(),
    winner: z.enum(['A', 'B']).nullable(),
    failureReason: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'AbTest' });

export const abTestWithResultsSchema = abTestSchema.extend({ results: resultsSchema.nullable() }).meta({ id: 'AbTestWithResults' });
export const checkedAbTestSchema = abTestSchema.extend({ warnings: z.array(z.string()) }).meta({ id: 'CheckedAbTest' });
export const abTestPageSchema = pageOf(abTestSchema).meta({ id: 'AbTestPage' });

export const toAbTestResponse = (test: AbTest): z.infer<typeof abTestSchema> => ({
  id: test.id,
  appId: test.appId,
  companyId: test.accountId,
  abTestName: test.name,
  description: test.description ?? null,
  filterId: test.filterId ?? null,
  templateIdA: test.templateIdA ?? null,
  templateIdB: test.templateIdB ?? null,
  state: test.state,
  playTime: test.playTime ? formatPlayTime(test.playTime, test.playTimeOffsetMinutes) : null,
  expiry: test.expiry,
  testPercent: test.testPercent,
  winnerMetric: test.winnerMetric,
  audience: test.audienceSize === null || test.audienceSize === undefined ? null : { devices: test.audienceSize },
  winner: (test.winner as 'A' | 'B' | null | undefined) ?? null,
  failureReason: test.failureReason ?? null,
  createdAt: test.createdAt.toISOString(),
  updatedAt: test.updatedAt.toISOString(),
});

export const toCheckedAbTestResponse = (test: AbTest, check: Awaited<ReturnType<typeof checkAbTest>>) => ({ ...toAbTestResponse(test), warnings: check.warnings });
/** An arm as answered: its counts and rates, with each rate's 95% interval (worked out when read, never stored). */
const withIntervals = (arm: ArmResult) => ({
  ...arm,
  ctrInterval95: wilsonInterval95(arm.clicks, arm.sent),
  conversionRateInterval95: arm.conversions === undefined ? null : wilsonInterval95(arm.conversions, arm.sent),
});

export const toAbTestWithResults = (test: AbTest, results: AbTestResults | null) => ({
  ...toAbTestResponse(test),
  results: results && { ...results, arms: { A: withIntervals(results.arms.A), B: withIntervals(results.arms.B) } },
});

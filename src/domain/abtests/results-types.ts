import { z } from 'zod';

// The shapes of an A/B test's results: stored on the test when it is decided (parsed when read back,
// src/persistence/stored-json.ts) and answered by the API. Each type is its schema's output: one home per shape.

/** What decides an A/B test's winner: click-through rate, or the messages' conversion rate. */
export const winnerMetrics = ['ctr', 'conversion'] as const;
export type WinnerMetric = (typeof winnerMetrics)[number];

export const significanceTests = ['two-proportion-z', 'fisher-exact'] as const;
export type SignificanceTest = (typeof significanceTests)[number];

const significanceSchema = z.object({
  /** Fisher's exact test when an expected cell count is below 5 (or nothing was sent), else the z-test. */
  test: z.enum(significanceTests),
  /** The pooled z statistic, positive when B's CTR is higher. Only with the z-test. */
  z: z.number().optional(),
  /** Two-sided p-value of the test used. */
  pValue: z.number(),
  /** pValue < 0.05. */
  significant: z.boolean(),
  /** 95% Wald interval (unpooled standard error) of ctrB − ctrA, clamped to [−1, 1]. Only with the z-test. */
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  /** (ctrB − ctrA) / ctrA; null when ctrA is 0 or an arm has no sends. */
  lift: z.number().nullable(),
});
export type Significance = z.infer<typeof significanceSchema>;

const sampleRatioCheckSchema = z.object({
  /** Chi-square statistic (1 degree of freedom) of the sends against a 50/50 split; null without sends. */
  chiSquare: z.number().nullable(),
  pValue: z.number().nullable(),
  /** pValue < 0.001: the split is not what was assigned, so the result should not be trusted. */
  mismatch: z.boolean(),
  /** Why no check was possible (only then). */
  reason: z.string().optional(),
});
export type SampleRatioCheck = z.infer<typeof sampleRatioCheckSchema>;

const armResultSchema = z.object({
  devices: z.number(),
  sent: z.number(),
  failed: z.number(),
  clicks: z.number(),
  /** Unique clicks / sends; null before anything was sent. */
  ctr: z.number().nullable(),
  /** Sends a conversion was attributed to; absent in results decided before conversions were counted. */
  conversions: z.number().optional(),
  /** Conversions / sends; null before anything was sent. */
  conversionRate: z.number().nullable().optional(),
});
export type ArmResult = z.infer<typeof armResultSchema>;

export const abTestResultsSchema = z.object({
  arms: z.object({ A: armResultSchema, B: armResultSchema }),
  remainder: z.object({ devices: z.number(), sent: z.number() }),
  winner: z.enum(['A', 'B']).nullable(),
  /** What decided it (absent in results decided before there was a choice: `ctr`). */
  metric: z.enum(winnerMetrics).optional(),
  decidedAt: z.string().nullable(),
  /** The test used (two-proportion z or Fisher's exact), z, p, the 95% CI of the difference and the lift. */
  significance: significanceSchema,
  /** Sample-ratio mismatch of the sends to A and B. */
  srm: sampleRatioCheckSchema,
  /** True until the test is decided: the figures still move. */
  provisional: z.boolean(),
});
export type AbTestResults = z.infer<typeof abTestResultsSchema>;

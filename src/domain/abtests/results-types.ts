import type { SampleRatioCheck, Significance } from './statistics.ts';

/** What decides an A/B test's winner: click-through rate, or the messages' conversion rate. */
export const winnerMetrics = ['ctr', 'conversion'] as const;
export type WinnerMetric = (typeof winnerMetrics)[number];

/** The results of an A/B test, as stored when it is decided and as the API answers them. */
export interface ArmResult {
  devices: number;
  sent: number;
  failed: number;
  clicks: number;
  /** Unique clicks / sends; null before anything was sent. */
  ctr: number | null;
  /** Sends a conversion was attributed to; absent in results decided before conversions were counted. */
  conversions?: number;
  /** Conversions / sends; null before anything was sent. */
  conversionRate?: number | null;
}

export interface AbTestResults {
  arms: { A: ArmResult; B: ArmResult };
  remainder: { devices: number; sent: number };
  winner: 'A' | 'B' | null;
  /** What decided it (absent in results decided before there was a choice: `ctr`). */
  metric?: WinnerMetric;
  decidedAt: string | null;
  /** The test used (two-proportion z or Fisher's exact), z, p, the 95% CI of the difference and the lift. */
  significance: Significance;
  /** Sample-ratio mismatch of the sends to A and B. */
  srm: SampleRatioCheck;
  /** True until the test is decided: the figures still move. */
  provisional: boolean;
}

/**
 * What an A/B test's metric is called where people read it (the validate warning, the run's details in the Temporal
 * UI): `ctr` is the click-through rate, `conversion` the messages' conversion rate. Absent (a test decided before
 * there was a choice) is `ctr`.
 */
export const winnerMetricLabel = (metric: 'ctr' | 'conversion' | null | undefined): string => (metric === 'conversion' ? 'conversion rate' : 'CTR');

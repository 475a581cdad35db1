// The statistics of an A/B test of two push messages: which arm has the higher CTR (unique clicks / sends), whether
// the difference is significant, whether the sends were split as intended, and how many sends a test needs.
// Pure TypeScript (no Node APIs, no packages), so a workflow may import it; every output is a finite number or null.
//
// The numerics are short, published approximations rather than a package: see erfc below and the commit message.

import type { SampleRatioCheck, Significance } from './results-types.ts';

export interface ArmCounts {
  /** Pushes sent to the arm. */
  sent: number;
  /** Unique clicks on those pushes (at most `sent`). */
  clicks: number;
}

export interface AbArms {
  A: ArmCounts;
  B: ArmCounts;
}

export interface AbDecision {
  /** The arm with the higher CTR, significant or not; null when the CTRs are equal or an arm has no sends. */
  winner: 'A' | 'B' | null;
  /** clicks / sent; null when the arm has no sends. */
  ctrA: number | null;
  ctrB: number | null;
  significance: Significance;
  srm: SampleRatioCheck;
}

export interface DetectableChange {
  /** The CTR expected without the change, in [0, 1]. */
  baselineCtr: number;
  /** The smallest absolute CTR difference worth detecting: 0.01 for 5% → 6%. */
  minimumDetectableEffect: number;
}

export const SIGNIFICANCE_LEVEL = 0.05;
/** GrowthBook's threshold for a sample ratio mismatch. */
export const SRM_P_VALUE_THRESHOLD = 0.001;
/** Below this expected cell count the normal approximation is not trusted and Fisher's exact test is used. */
export const MIN_EXPECTED_COUNT_FOR_Z_TEST = 5;
/** What armSizeWarning assumes when the caller knows no better: a 5% CTR, and a change of 1 point. */
export const TYPICAL_DETECTABLE_CHANGE: DetectableChange = { baselineCtr: 0.05, minimumDetectableEffect: 0.01 };

const ERFC_COEFFICIENTS = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277];

/**
 * Complementary error function, by the Chebyshev fit of Numerical Recipes in C (2nd ed., §6.2, `erfcc`), with a
 * fractional error below 1.2e-7 for every x: unlike 1 − erf(x), it keeps that relative precision in the far tail.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const exponent = ERFC_COEFFICIENTS.reduceRight((sum, coefficient) => sum * t + coefficient, 0);
  // The fit gives 1.00000003 at 0: clamped, so that p-values never exceed 1.
  const tail = Math.min(1, t * Math.exp(-z * z + exponent));
  return x >= 0 ? tail : 2 - tail;
}

/** P(Z ≤ z) for a standard normal Z. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** The z with normalCdf(z) = p, for 0 < p < 1: bisection on normalCdf (monotone) to adjacent doubles, so it is as precise as erfc. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
  let low = -40;
  let high = 40;
  for (;;) {
    const middle = (low + high) / 2;
    if (middle === low || middle === high) return middle;
    if (normalCdf(middle) < p) low = middle;
    else high = middle;
  }
}

/** P(X ≥ x) for X chi-square with 1 degree of freedom: X is Z², so it is erfc(√(x/2)). */
export function chiSquareOneDfPValue(x: number): number {
  return erfc(Math.sqrt(x / 2));
}

const Z_975 = normalQuantile(0.975);

/**
 * Two-sided p-value of Fisher's exact test for the 2×2 table [[clicksA, clicksB], [sentA − clicksA, sentB − clicksB]]:
 * the probability, given the margins, of the tables no more likely than the observed one (R's rule, with its relative
 * tolerance of 1e-7 so that ties of equal probability count). The hypergeometric weights are built in log space from
 * the ratio of neighbours, w(x+1)/w(x) = (K − x)(nA − x) / ((x + 1)(nB − K + x + 1)), and normalised by their sum,
 * so 100,000 sends neither overflow nor need a log-gamma approximation; the work is one step per possible table.
 */
export function fisherExactPValue(arms: AbArms): number {
  const { A, B } = checkArms(arms);
  const clicks = A.clicks + B.clicks;
  const low = Math.max(0, clicks - B.sent);
  const high = Math.min(clicks, A.sent);
  const logWeights = new Float64Array(high - low + 1);
  let largest = 0;
  for (let x = low; x < high; x++) {
    const ratio = ((clicks - x) * (A.sent - x)) / ((x + 1) * (B.sent - clicks + x + 1));
    const logWeight = logWeights[x - low]! + Math.log(ratio);
    logWeights[x - low + 1] = logWeight;
    largest = Math.max(largest, logWeight);
  }
  const observed = Math.exp(logWeights[A.clicks - low]! - largest) * (1 + 1e-7);
  let total = 0;
  let asExtreme = 0;
  for (const logWeight of logWeights) {
    const weight = Math.exp(logWeight - largest);
    total += weight;
    if (weight <= observed) asExtreme += weight;
  }
  return Math.min(1, asExtreme / total);
}

/** The z-test when every expected cell count is at least 5, else Fisher's exact test; with the lift either way. */
export function compareArms(arms: AbArms): Significance {
  const { A, B } = checkArms(arms);
  const ctrA = ctrOf(A);
  const ctrB = ctrOf(B);
  const lift = ctrA === null || ctrB === null || ctrA === 0 ? null : (ctrB - ctrA) / ctrA;
  const sent = A.sent + B.sent;
  const clicks = A.clicks + B.clicks;
  const smallestExpected = sent === 0 ? 0 : (Math.min(clicks, sent - clicks) * Math.min(A.sent, B.sent)) / sent;
  if (smallestExpected < MIN_EXPECTED_COUNT_FOR_Z_TEST || ctrA === null || ctrB === null) {
    const pValue = fisherExactPValue(arms);
    return { test: 'fisher-exact', pValue, significant: pValue < SIGNIFICANCE_LEVEL, ci95: null, lift };
  }
  // Every expected count ≥ 5 means both arms have sends and the pooled CTR is strictly between 0 and 1.
  const pooled = clicks / sent;
  const z = (ctrB - ctrA) / Math.sqrt(pooled * (1 - pooled) * (1 / A.sent + 1 / B.sent));
  const pValue = erfc(Math.abs(z) / Math.SQRT2);
  const waldError = Math.sqrt((ctrA * (1 - ctrA)) / A.sent + (ctrB * (1 - ctrB)) / B.sent);
  const difference = ctrB - ctrA;
  const ci95: [number, number] = [Math.max(-1, difference - Z_975 * waldError), Math.min(1, difference + Z_975 * waldError)];
  return { test: 'two-proportion-z', z, pValue, significant: pValue < SIGNIFICANCE_LEVEL, ci95, lift };
}

/** Chi-square goodness of fit of the sends against the intended 50/50 split: (sentA − sentB)² / (sentA + sentB). */
export function checkSampleRatio(sentA: number, sentB: number): SampleRatioCheck {
  checkCount('sent of A', sentA);
  checkCount('sent of B', sentB);
  const sent = sentA + sentB;
  if (sent === 0) return { chiSquare: null, pValue: null, mismatch: false, reason: 'no sends yet' };
  const chiSquare = (sentA - sentB) ** 2 / sent;
  const pValue = chiSquareOneDfPValue(chiSquare);
  return { chiSquare, pValue, mismatch: pValue < SRM_P_VALUE_THRESHOLD };
}

/** The winner by CTR, with the test of the difference and the check of the split. */
export function decideWinner(arms: AbArms): AbDecision {
  const { A, B } = checkArms(arms);
  const ctrA = ctrOf(A);
  const ctrB = ctrOf(B);
  let winner: AbDecision['winner'] = null;
  if (ctrA !== null && ctrB !== null) {
    // Cross-multiplied in integers (exact below 2^53), so equal CTRs are equal whatever the rounding.
    const order = B.clicks * A.sent - A.clicks * B.sent;
    winner = order > 0 ? 'B' : order < 0 ? 'A' : null;
  }
  return { winner, ctrA, ctrB, significance: compareArms(arms), srm: checkSampleRatio(A.sent, B.sent) };
}

/**
 * Sends needed per arm to detect the change with a two-sided test at `alpha` and the given power (unpooled normal
 * approximation): n = (z(1 − alpha/2) + z(power))² · (p₁q₁ + p₂q₂) / (p₁ − p₂)², rounded up. 8,155 for 5% → 6%.
 */
export function requiredSendsPerArm(change: DetectableChange, { alpha = SIGNIFICANCE_LEVEL, power = 0.8 } = {}): number {
  const p1 = change.baselineCtr;
  const p2 = p1 + change.minimumDetectableEffect;
  if (!(p1 >= 0 && p1 <= 1 && p2 >= 0 && p2 <= 1 && p1 !== p2)) {
    throw new RangeError(`requiredSendsPerArm needs two different CTRs in [0, 1], got ${p1} and ${p2}`);
  }
  if (!(alpha > 0 && alpha < 1 && power > 0 && power < 1)) {
    throw new RangeError(`requiredSendsPerArm needs alpha and power in (0, 1), got ${alpha} and ${power}`);
  }
  const zSum = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  return Math.ceil((zSum ** 2 * (p1 * (1 - p1) + p2 * (1 - p2))) / (p1 - p2) ** 2);
}

/**
 * A warning for arms too small to detect the change (by default 5% → 6%) at alpha 0.05 with power 0.8, or null when
 * they are large enough. Pass the smaller arm's size (a segment of 9 devices gives arms of 4 and 5: pass 4), and the
 * name of the rate that decides the test (`CTR`, or `conversion rate`).
 */
export function armSizeWarning(armSize: number, change: DetectableChange = TYPICAL_DETECTABLE_CHANGE, rate = 'CTR'): string | null {
  checkCount('armSize', armSize);
  const needed = requiredSendsPerArm(change);
  if (armSize >= needed) return null;
  const from = percent(change.baselineCtr);
  const to = percent(change.baselineCtr + change.minimumDetectableEffect);
  return (
    `Each arm has ${count(armSize)} devices, too few for a significant result: detecting a ${rate} change from ${from} to ${to} ` +
    `needs about ${count(needed)} per arm (alpha 0.05, power 0.8). Treat the result as directional only.`
  );
}

function ctrOf(arm: ArmCounts): number | null {
  return arm.sent === 0 ? null : arm.clicks / arm.sent;
}

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

function checkArms(arms: AbArms): AbArms {
  for (const name of ['A', 'B'] as const) {
    const { sent, clicks } = arms[name];
    checkCount(`sent of ${name}`, sent);
    checkCount(`clicks of ${name}`, clicks);
    if (clicks > sent) throw new RangeError(`clicks of ${name} (${clicks}) exceed its sends (${sent})`);
  }
  return arms;
}

const count = (value: number) => value.toLocaleString('en-US');
const percent = (ratio: number) => `${Number((ratio * 100).toPrecision(6))}%`;

/**
 * The 95% Wilson score interval of a rate `successes / trials`; null without trials. Wilson rather than Wald: it stays
 * inside [0, 1] and is not zero-wide at 0 or 1 successes, which small A/B arms often have.
 */
export function wilsonInterval95(successes: number, trials: number): [number, number] | null {
  if (trials <= 0) return null;
  const rate = successes / trials;
  const zSquared = Z_975 * Z_975;
  const centre = (rate + zSquared / (2 * trials)) / (1 + zSquared / trials);
  const halfWidth = (Z_975 / (1 + zSquared / trials)) * Math.sqrt((rate * (1 - rate)) / trials + zSquared / (4 * trials * trials));
  return [Math.max(0, centre - halfWidth), Math.min(1, centre + halfWidth)];
}

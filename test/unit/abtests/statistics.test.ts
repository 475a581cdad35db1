import { describe, expect, it } from 'vitest';
import {
  checkSampleRatio,
  chiSquareOneDfPValue,
  compareArms,
  decideWinner,
  erfc,
  fisherExactPValue,
  normalCdf,
  normalQuantile,
  requiredSendsPerArm,
  armSizeWarning,
  TYPICAL_DETECTABLE_CHANGE,
  wilsonInterval95,
  type AbArms,
} from '../../../src/domain/abtests/statistics.ts';

// Reference values not printed in a cited source were computed with Python 3.11, scipy 1.17.1 and mpmath 1.3.0
// (`pip install scipy mpmath`):
//
//   import math, mpmath
//   from fractions import Fraction
//   from scipy import stats
//   mpmath.mp.dps = 30
//   mpmath.erfc(x)                                    # erfc references
//   mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(p) - 1)   # normal quantiles
//   def z_test(cA, nA, cB, nB):                       # = R's prop.test(correct = FALSE), plus the Wald interval
//       chi2, p, _, _ = stats.chi2_contingency([[cA, nA - cA], [cB, nB - cB]], correction=False)
//       pA, pB, pool = cA / nA, cB / nB, (cA + cB) / (nA + nB)
//       z = (pB - pA) / math.sqrt(pool * (1 - pool) * (1 / nA + 1 / nB))
//       half = stats.norm.ppf(0.975) * math.sqrt(pA * (1 - pA) / nA + pB * (1 - pB) / nB)
//       return z, p, pB - pA - half, pB - pA + half
//   def fisher_two_sided(cA, nA, cB, nB):             # exact rational arithmetic, R's rule and tolerance
//       K, N = cA + cB, nA + nB
//       w = {x: math.comb(nA, x) * math.comb(nB, K - x) for x in range(max(0, K - nB), min(K, nA) + 1)}
//       limit = w[cA] * (1 + Fraction(1, 10**7))
//       return float(Fraction(sum(v for v in w.values() if v <= limit), sum(w.values())))
//   stats.chisquare([sentA, sentB])                   # SRM
//   (stats.norm.ppf(0.975) + stats.norm.ppf(0.8))**2 * (0.05*0.95 + 0.06*0.94) / 0.01**2   # 8154.986...

function expectRelative(actual: number | null | undefined, expected: number, tolerance = 1e-6): void {
  expect(actual).toBeTypeOf('number');
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

const arms = (sentA: number, clicksA: number, sentB: number, clicksB: number): AbArms => ({
  A: { sent: sentA, clicks: clicksA },
  B: { sent: sentB, clicks: clicksB },
});

/** Every number anywhere in the value is finite. */
function expectAllFinite(value: unknown): void {
  if (typeof value === 'number') expect(Number.isFinite(value), `${value} is not finite`).toBe(true);
  else if (value !== null && typeof value === 'object') Object.values(value).forEach(expectAllFinite);
}

describe('normal and chi-square functions', () => {
  it.each([
    [0, 1],
    [0.5, 0.4795001221869535],
    [1, 0.15729920705028513],
    [2, 0.004677734981047266],
    [3, 2.209049699858544e-5],
    [5, 1.537459794428035e-12],
    [10, 2.088487583762545e-45],
    [20, 5.395865611607901e-176],
    [-1, 1.842700792949715],
  ])('erfc(%s) matches mpmath to 1.2e-7 relative, far tail included', (x, expected) => {
    expectRelative(erfc(x), expected, 1.2e-7);
  });

  it('normalCdf is symmetric and half at 0', () => {
    expectRelative(normalCdf(0), 0.5, 1e-7);
    expectRelative(normalCdf(1.959963984540054), 0.975, 1e-8);
    expectRelative(normalCdf(-1.5) + normalCdf(1.5), 1, 1e-12);
  });

  it.each([
    [0.975, 1.9599639845400538],
    [0.8, 0.8416212335729144],
    [0.001, -3.0902323061678136],
  ])('normalQuantile(%s) matches mpmath', (p, expected) => {
    expectRelative(normalQuantile(p), expected, 1e-6);
  });

  it('normalQuantile(0.5) is 0 and rejects p outside (0, 1)', () => {
    expect(Math.abs(normalQuantile(0.5))).toBeLessThan(1e-7);
    expect(() => normalQuantile(0)).toThrow(RangeError);
    expect(() => normalQuantile(1)).toThrow(RangeError);
    expect(() => normalQuantile(Number.NaN)).toThrow(RangeError);
  });

  it('chi-square with 1 df: the 0.001 critical value 10.828 gives p ≈ 0.001 (mpmath: 0.0009997657195830924)', () => {
    expectRelative(chiSquareOneDfPValue(10.828), 0.0009997657195830924, 1e-6);
    expect(chiSquareOneDfPValue(0)).toBe(1);
  });
});

describe('two-proportion z-test', () => {
  // Agresti, An Introduction to Categorical Data Analysis (2nd ed., 2007), §2.2: the Physicians' Health Study, heart
  // attacks in 104 of 11,037 on aspirin (A) and 189 of 11,034 on placebo (B). The book gives the difference 0.0077
  // with the Wald 95% interval (0.005, 0.011); the digits below come from z_test(104, 11037, 189, 11034).
  it('matches the aspirin example', () => {
    const result = compareArms(arms(11037, 104, 11034, 189));
    expect(result.test).toBe('two-proportion-z');
    expectRelative(result.z, 5.001388204008378);
    expectRelative(result.pValue, 5.691896973740789e-7);
    expect(result.significant).toBe(true);
    const [low, high] = result.ci95!;
    expect(low.toFixed(3)).toBe('0.005');
    expect(high.toFixed(3)).toBe('0.011');
    expectRelative(low, 0.004687750675049439);
    expectRelative(high, 0.010724297276960124);
    expectRelative(result.lift, 0.8178017944535075);
  });

  it('matches a CTR example (250 / 5,000 vs 300 / 5,000): significant at 0.05, chi-square 4.81 = z²', () => {
    const result = compareArms(arms(5000, 250, 5000, 300));
    expect(result.test).toBe('two-proportion-z');
    expectRelative(result.z, 2.193172316532562);
    expectRelative(result.z! ** 2, 4.81000481000481);
    expectRelative(result.pValue, 0.028294966290231177);
    expect(result.significant).toBe(true);
    expectRelative(result.ci95![0], 0.001065487461868778);
    expectRelative(result.ci95![1], 0.018934512538131214);
    expectRelative(result.lift, 0.2);
  });

  it('is symmetric: swapping the arms flips z, the interval and the winner', () => {
    const forward = compareArms(arms(5000, 250, 5000, 300));
    const backward = compareArms(arms(5000, 300, 5000, 250));
    expectRelative(backward.z, -forward.z!, 1e-12);
    expectRelative(backward.pValue, forward.pValue, 1e-12);
    expectRelative(backward.ci95![0], -forward.ci95![1], 1e-12);
  });

  it('a difference well inside the noise is not significant', () => {
    const result = compareArms(arms(5000, 250, 5000, 260));
    expect(result.test).toBe('two-proportion-z');
    expect(result.pValue).toBeGreaterThan(0.05);
    expect(result.significant).toBe(false);
    expect(result.ci95![0]).toBeLessThan(0);
    expect(result.ci95![1]).toBeGreaterThan(0);
  });

  it('A with no clicks: lift is null, the test and interval still stand (z_test(0, 1000, 50, 1000))', () => {
    const result = compareArms(arms(1000, 0, 1000, 50));
    expect(result.test).toBe('two-proportion-z');
    expectRelative(result.z, 7.161148740394329);
    expectRelative(result.pValue, 8.000378447994628e-13);
    expectRelative(result.ci95![0], 0.03649188044237945);
    expectRelative(result.ci95![1], 0.06350811955762056);
    expect(result.lift).toBeNull();
  });
});

describe("Fisher's exact test", () => {
  // Fisher's lady tasting tea (The Design of Experiments, 1935), the TeaTasting example of R's fisher.test:
  // [[3, 1], [1, 3]], two-sided p = 34/70 = 0.4857.
  it('matches the tea-tasting table', () => {
    expectRelative(fisherExactPValue(arms(4, 3, 4, 1)), 34 / 70, 1e-9);
    expect(fisherExactPValue(arms(4, 3, 4, 1)).toFixed(4)).toBe('0.4857');
  });

  // R's fisher.test example "Convictions" [[2, 10], [15, 3]] (one-sided p = 0.0004652 there);
  // two-sided fisher_two_sided(2, 17, 10, 13) = 0.0005367241191434358.
  it('matches the convictions table, two-sided', () => {
    expectRelative(fisherExactPValue(arms(17, 2, 13, 10)), 0.0005367241191434358, 1e-9);
  });

  it('handles 100,000 sends per arm without overflow (fisher_two_sided(1, 100000, 8, 100000))', () => {
    const result = compareArms(arms(100_000, 1, 100_000, 8));
    expect(result.test).toBe('fisher-exact');
    expectRelative(result.pValue, 0.039058281302736975, 1e-9);
    expect(result.significant).toBe(true);
    expect(result.z).toBeUndefined();
    expect(result.ci95).toBeNull();
    expectRelative(result.lift, 7);
  });

  it('matches at 85 clicks over 100,000 sends per arm (fisher_two_sided(30, 100000, 55, 100000))', () => {
    expectRelative(fisherExactPValue(arms(100_000, 30, 100_000, 55)), 0.008821940554848733, 1e-9);
  });

  // 99,701 possible tables. Reference by mpmath at 50 digits (exact integers are too slow here), the same rule:
  //   mpmath.mp.dps = 50
  //   lf = lambda n: mpmath.loggamma(n + 1)
  //   logw = lambda x: -lf(x) - lf(100000 - x) - lf(100300 - x) - lf(x - 300)   # constant terms cancel
  //   w = [mpmath.exp(logw(x) - logw(50150)) for x in range(300, 100001)]
  //   sum(v for v in w if v <= w[50000 - 300] * (1 + mpmath.mpf(10)**-7)) / sum(w)   # 0.1811654854451412...
  // (scipy.stats.fisher_exact([[50000, 50300], [50000, 49700]]) agrees: 0.18116548544759448.)
  it('sums a support of 99,701 tables (50,000 vs 50,300 clicks of 100,000 sends each)', () => {
    expectRelative(fisherExactPValue(arms(100_000, 50_000, 100_000, 50_300)), 0.1811654854451412, 1e-7);
  });

  it('counts tables of equal probability on both sides, despite rounding', () => {
    // 0 of 5 vs 2 of 5: the tables with 0, 1, 2 clicks in A weigh 10, 25, 10 (of 45), and the two outer ones are
    // equally likely, so p = 20/45. In floating point the mirror table comes out a hair heavier than the observed one.
    expectRelative(fisherExactPValue(arms(5, 0, 5, 2)), 20 / 45, 1e-12);
    expect(fisherExactPValue(arms(10, 2, 10, 2))).toBeCloseTo(1, 12);
  });

  it('is chosen as soon as one expected count is below 5, and the z-test at 5', () => {
    // 9 clicks over two equal arms: expected 4.5 clicks per arm.
    expect(compareArms(arms(1000, 4, 1000, 5)).test).toBe('fisher-exact');
    // 10 clicks: expected 5.
    expect(compareArms(arms(1000, 4, 1000, 6)).test).toBe('two-proportion-z');
    // Nearly every send clicked: the non-clicks are the small cells.
    expect(compareArms(arms(1000, 996, 1000, 995)).test).toBe('fisher-exact');
    // A tiny arm B beside a large arm A.
    expect(compareArms(arms(100_000, 50_000, 8, 1)).test).toBe('fisher-exact');
  });
});

describe('sample ratio mismatch', () => {
  it('flags a clearly skewed split (10,000 vs 10,500: chi-square 12.195, p = 0.000479)', () => {
    const srm = checkSampleRatio(10_000, 10_500);
    expectRelative(srm.chiSquare, 12.195121951219512, 1e-12);
    expectRelative(srm.pValue, 0.00047914643458730067);
    expect(srm.mismatch).toBe(true);
    expect(srm.reason).toBeUndefined();
  });

  it('passes an even split and a split off by one', () => {
    expect(checkSampleRatio(10_000, 10_000)).toEqual({ chiSquare: 0, pValue: 1, mismatch: false });
    expectRelative(checkSampleRatio(10_000, 10_001).pValue, 0.9943582922185493);
    expect(checkSampleRatio(10_000, 10_001).mismatch).toBe(false);
  });

  it('keeps the 0.001 threshold: 50,000 vs 51,000 (p = 0.00165) is no mismatch', () => {
    const srm = checkSampleRatio(50_000, 51_000);
    expectRelative(srm.pValue, 0.001651898732357361);
    expect(srm.mismatch).toBe(false);
  });

  it('without sends there is no check, and no NaN', () => {
    expect(checkSampleRatio(0, 0)).toEqual({ chiSquare: null, pValue: null, mismatch: false, reason: 'no sends yet' });
  });

  it('one empty arm is a finite, defined result (9 vs 0: chi-square 9, p = 0.0027)', () => {
    const srm = checkSampleRatio(9, 0);
    expectRelative(srm.pValue, 0.0026997960632601883);
    expect(srm.mismatch).toBe(false);
    expect(checkSampleRatio(0, 100).mismatch).toBe(true);
  });
});

describe('sample size', () => {
  it('needs 8,155 sends per arm for 5% vs 6% at alpha 0.05 and power 0.8 (n = 8154.986 before rounding up)', () => {
    expect(requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0.01 })).toBe(8155);
    expect(requiredSendsPerArm({ baselineCtr: 0.06, minimumDetectableEffect: -0.01 })).toBe(8155);
  });

  it('needs more for a smaller effect, a smaller alpha or a higher power', () => {
    const base = requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0.01 });
    expect(requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0.005 })).toBeGreaterThan(base);
    expect(requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0.01 }, { alpha: 0.01 })).toBeGreaterThan(base);
    expect(requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0.01 }, { power: 0.9 })).toBeGreaterThan(base);
  });

  it('rejects changes that are no change or leave [0, 1]', () => {
    expect(() => requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0 })).toThrow(RangeError);
    expect(() => requiredSendsPerArm({ baselineCtr: 0.95, minimumDetectableEffect: 0.1 })).toThrow(RangeError);
    expect(() => requiredSendsPerArm({ baselineCtr: Number.NaN, minimumDetectableEffect: 0.01 })).toThrow(RangeError);
    expect(() => requiredSendsPerArm({ baselineCtr: 0.05, minimumDetectableEffect: 0.01 }, { power: 1 })).toThrow(RangeError);
  });

  it('warns that a segment of 9 devices (arms of 4) is directional only', () => {
    expect(armSizeWarning(4)).toBe(
      'Each arm has 4 devices, too few for a significant result: detecting a CTR change from 5% to 6% needs about ' +
        '8,155 per arm (alpha 0.05, power 0.8). Treat the result as directional only.',
    );
    expect(armSizeWarning(0)).toContain('directional only');
    expect(armSizeWarning(8154)).toContain('directional only');
  });

  it('says nothing once the arms are large enough, and follows the given change', () => {
    expect(armSizeWarning(8155)).toBeNull();
    expect(armSizeWarning(1000, { baselineCtr: 0.1, minimumDetectableEffect: 0.05 })).toBeNull();
    expect(armSizeWarning(100, { baselineCtr: 0.1, minimumDetectableEffect: 0.05 })).toContain('from 10% to 15%');
  });

  it('names the rate that decides the test', () => {
    expect(armSizeWarning(4, TYPICAL_DETECTABLE_CHANGE, 'conversion rate')).toContain('detecting a conversion rate change from 5% to 6%');
  });
});

describe('decideWinner', () => {
  it('picks the arm with the higher CTR and reports the test and the split', () => {
    const decision = decideWinner(arms(5000, 250, 5000, 300));
    expect(decision.winner).toBe('B');
    expect(decision.ctrA).toBe(0.05);
    expect(decision.ctrB).toBe(0.06);
    expect(decision.significance.test).toBe('two-proportion-z');
    expect(decision.significance.significant).toBe(true);
    expect(decision.srm).toEqual({ chiSquare: 0, pValue: 1, mismatch: false });
    expect(decideWinner(arms(5000, 300, 5000, 250)).winner).toBe('A');
  });

  it('names a winner by CTR even when the difference is not significant', () => {
    const decision = decideWinner(arms(4, 3, 4, 1));
    expect(decision.winner).toBe('A');
    expect(decision.significance.significant).toBe(false);
  });

  it('has no winner for equal CTRs, also with unequal arms', () => {
    expect(decideWinner(arms(1000, 50, 1000, 50)).winner).toBeNull();
    expect(decideWinner(arms(3, 1, 6, 2)).winner).toBeNull();
  });

  it('rejects counts that are not counts', () => {
    expect(() => decideWinner(arms(10, 11, 10, 1))).toThrow('clicks of A (11) exceed its sends (10)');
    expect(() => decideWinner(arms(10, 1, -1, 0))).toThrow(RangeError);
    expect(() => decideWinner(arms(10, 1.5, 10, 1))).toThrow(RangeError);
    expect(() => decideWinner(arms(10, 1, Number.NaN, 0))).toThrow(RangeError);
  });

  describe('degenerate inputs give defined, finite outputs', () => {
    it('nothing sent', () => {
      const decision = decideWinner(arms(0, 0, 0, 0));
      expect(decision).toEqual({
        winner: null,
        ctrA: null,
        ctrB: null,
        significance: { test: 'fisher-exact', pValue: 1, significant: false, ci95: null, lift: null },
        srm: { chiSquare: null, pValue: null, mismatch: false, reason: 'no sends yet' },
      });
    });

    it('one arm empty', () => {
      const decision = decideWinner(arms(0, 0, 9, 3));
      expect(decision.winner).toBeNull();
      expect(decision.ctrA).toBeNull();
      expect(decision.ctrB).toBeCloseTo(1 / 3, 15);
      expect(decision.significance).toEqual({ test: 'fisher-exact', pValue: 1, significant: false, ci95: null, lift: null });
      expect(decideWinner(arms(9, 3, 0, 0)).significance.lift).toBeNull();
      expectAllFinite(decision);
    });

    it('no clicks anywhere', () => {
      const decision = decideWinner(arms(100_000, 0, 100_000, 0));
      expect(decision.winner).toBeNull();
      expect(decision.ctrA).toBe(0);
      expect(decision.ctrB).toBe(0);
      expect(decision.significance).toEqual({ test: 'fisher-exact', pValue: 1, significant: false, ci95: null, lift: null });
    });

    it('every send clicked', () => {
      const decision = decideWinner(arms(50, 50, 50, 50));
      expect(decision.winner).toBeNull();
      expect(decision.ctrA).toBe(1);
      expect(decision.significance).toEqual({ test: 'fisher-exact', pValue: 1, significant: false, ci95: null, lift: 0 });
    });

    it.each([
      arms(0, 0, 0, 0),
      arms(0, 0, 9, 0),
      arms(9, 9, 0, 0),
      arms(1, 0, 1, 1),
      arms(100_000, 0, 100_000, 100_000),
      arms(100_000, 100_000, 100_000, 0),
      arms(1000, 0, 1000, 1000),
      arms(100_000, 0, 100_000, 50),
      arms(100_000, 1, 1, 1),
    ])('%j has no NaN or Infinity anywhere', (input) => {
      const decision = decideWinner(input);
      expectAllFinite(decision);
      expect(decision.significance.pValue).toBeGreaterThanOrEqual(0);
      expect(decision.significance.pValue).toBeLessThanOrEqual(1);
    });
  });
});

describe('an arm’s rate interval (Wilson score, 95%)', () => {
  // Newcombe, "Two-sided confidence intervals for the single proportion", Statistics in Medicine 17 (1998): its worked
  // examples, method 3 (the score interval without continuity correction), to its 4 decimals.
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i of %i: %f to %f', (successes, trials, low, high) => {
    const [foundLow, foundHigh] = wilsonInterval95(successes, trials)!;
    expect(foundLow).toBeCloseTo(low, 4);
    expect(foundHigh).toBeCloseTo(high, 4);
  });

  it('stays inside [0, 1] at every success, and is null without trials', () => {
    expect(wilsonInterval95(0, 0)).toBeNull();
    const all = wilsonInterval95(6, 6)!;
    expect(all[1]).toBe(1);
    expect(all[0]).toBeGreaterThan(0.5);
  });
});

import { ascending, percentile } from './stats.ts';

/**
 * Durations of one step inside the service, collected by wrapping the function that performs it. Only records while
 * `recording` is on, so warm-up calls are left out.
 */
export class StageTimer {
  recording = false;
  readonly samples: number[] = [];

  /** Wraps `fn` so each call's duration (settled or failed) lands in this timer. */
  wrap<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const started = performance.now();
      try {
        return await fn(...args);
      } finally {
        if (this.recording) this.samples.push(performance.now() - started);
      }
    };
  }

  summary(): { count: number; mean: number; p50: number; p99: number; total: number } {
    const sorted = ascending(this.samples);
    const total = sorted.reduce((sum, value) => sum + value, 0);
    return { count: sorted.length, mean: sorted.length ? total / sorted.length : Number.NaN, p50: percentile(sorted, 50), p99: percentile(sorted, 99), total };
  }
}

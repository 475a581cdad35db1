/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const ascending = (values: Iterable<number>) => [...values].sort((a, b) => a - b);

export interface PhaseFigures {
  events: number;
  received: number;
  /** Events per second over first publish → last receipt. */
  throughput: number;
  wallMs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  signatureFailures: number;
  duplicates: number;
}

/** Figures for one phase from publish (send) times and first receipt times, both keyed by webhook-id. */
export function figuresOf(
  sentAt: ReadonlyMap<string, number>,
  receivedAt: ReadonlyMap<string, number>,
  counts: { signatureFailures: number; duplicates: number },
): PhaseFigures {
  const latencies: number[] = [];
  let lastReceipt = -Infinity;
  for (const [id, sent] of sentAt) {
    const received = receivedAt.get(id);
    if (received === undefined) continue;
    latencies.push(received - sent);
    lastReceipt = Math.max(lastReceipt, received);
  }
  const firstSend = Math.min(...sentAt.values());
  const sorted = ascending(latencies);
  const wallMs = lastReceipt - firstSend;
  return {
    events: sentAt.size,
    received: latencies.length,
    throughput: latencies.length / (wallMs / 1000),
    wallMs,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    signatureFailures: counts.signatureFailures,
    duplicates: counts.duplicates,
  };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runBounded(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

export const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

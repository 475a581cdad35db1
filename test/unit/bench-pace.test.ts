import { afterEach, describe, expect, it, vi } from 'vitest';
import { pace } from '../../bench/support/pace.ts';

// The schedule the benches' paced loads share (LOAD_INGEST_RATE, LOAD_DELIVERY_RATE): unit i is due i / rate after the start.
afterEach(() => {
  vi.useRealTimers();
});

describe('pace', () => {
  it('lets unit i go at i / rate after the start, not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    const untilDue = pace(10);
    let third = false;
    const due = untilDue(3).then(() => (third = true));
    await vi.advanceTimersByTimeAsync(299);
    expect(third).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await due;
    expect(third).toBe(true);
  });

  it('does not wait for a unit already due', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    const untilDue = pace(10);
    await vi.advanceTimersByTimeAsync(1000);
    let fifth = false;
    const due = untilDue(5).then(() => (fifth = true));
    await Promise.resolve();
    await due;
    expect(fifth).toBe(true);
  });
});

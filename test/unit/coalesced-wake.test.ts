import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/logger.ts';
import { createCoalescedWake } from '../../src/outbox/coalesced-wake.ts';

const windowMs = 20;

function harness(send: () => Promise<unknown> = async () => undefined) {
  const warnings: unknown[] = [];
  const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
  const sent = vi.fn(send);
  return { wake: createCoalescedWake({ send: sent, windowMs, logger, name: 'test' }), sent, warnings };
}

describe('createCoalescedWake', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('sends the first wake at once, and folds the wakes within the window into one send at its end', async () => {
    const { wake, sent } = harness();
    wake.wake();
    expect(sent).toHaveBeenCalledTimes(1);
    for (let n = 0; n < 100; n++) wake.wake();
    await vi.advanceTimersByTimeAsync(windowMs - 1);
    expect(sent).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(10 * windowMs);
    expect(sent).toHaveBeenCalledTimes(2);
    wake.wake(); // a window has passed: at once again
    expect(sent).toHaveBeenCalledTimes(3);
  });

  it('logs a send that fails and keeps waking', async () => {
    const { wake, sent, warnings } = harness(async () => {
      throw new Error('connection refused');
    });
    wake.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(warnings).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(windowMs);
    wake.wake();
    expect(sent).toHaveBeenCalledTimes(2);
  });

  it('drops a pending wake on close, waits for the send in flight, and ignores later wakes', async () => {
    let finish!: () => void;
    const { wake, sent } = harness(() => new Promise<void>((resolve) => (finish = resolve)));
    wake.wake();
    wake.wake(); // pending for the window's end
    let closed = false;
    const closing = wake.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false);
    finish();
    await closing;
    await vi.advanceTimersByTimeAsync(10 * windowMs);
    wake.wake();
    expect(sent).toHaveBeenCalledTimes(1);
  });
});

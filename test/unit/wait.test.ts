import { describe, expect, it } from 'vitest';
import { until } from '../support/wait.ts';

describe('until', () => {
  it('calls the check until it returns something other than undefined or false, and returns that', async () => {
    const answers = [undefined, false, 0, 'later'];
    let calls = 0;
    expect(await until('a number', () => answers[calls++], { intervalMs: 1 })).toBe(0);
    expect(calls).toBe(3);
  });

  it('reads until done holds on the value, and returns that value', async () => {
    let reads = 0;
    const value = await until('three reads', async () => ++reads, (n) => n === 3, { intervalMs: 1 });
    expect(value).toBe(3);
    expect(reads).toBe(3);
  });

  it('fails after the timeout, naming what it waited for', async () => {
    const started = Date.now();
    await expect(until('the moon', () => false, 150)).rejects.toThrow(/^timed out after 150 ms waiting for the moon$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('fails with the last value read: as JSON, or as `show` puts it', async () => {
    await expect(until('ten', () => ({ reads: 1 }), () => false, { timeoutMs: 50 })).rejects.toThrow(
      /^timed out after 50 ms waiting for ten; last seen: \{"reads":1\}$/,
    );
    let reads = 0;
    const failure = await until('ten', () => ++reads, (n) => n === 10_000, { timeoutMs: 100, intervalMs: 10, show: (n) => `${n} reads` }).catch(
      (error: unknown) => error,
    );
    expect(failure).toEqual(new Error(`timed out after 100 ms waiting for ten; last seen: ${reads} reads`));
    expect(reads).toBeGreaterThan(1);
  });

  it('gives up on a try still running at the timeout, and aborts the signal it passed', async () => {
    let seen: AbortSignal | undefined;
    const hanging = until(
      'an answer',
      (signal) => {
        seen = signal;
        return new Promise<never>(() => undefined);
      },
      { timeoutMs: 100 },
    );
    await expect(hanging).rejects.toThrow('timed out after 100 ms waiting for an answer');
    expect(seen?.aborted).toBe(true);
  });

  it('passes an error of the check on at once, without trying again', async () => {
    let calls = 0;
    const failing = until('a broken check', () => {
      calls += 1;
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});

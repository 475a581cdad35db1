import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { whileHeartbeating } from '../../activities/heartbeat.ts';

describe('whileHeartbeating', () => {
  it('heartbeats as the work starts and then on its interval while it runs, and returns its result', async () => {
    const env = new MockActivityEnvironment();
    let beats = 0;
    let thirdBeat!: () => void;
    const threeBeats = new Promise<void>((resolve) => (thirdBeat = resolve));
    env.on('heartbeat', () => {
      beats += 1;
      if (beats === 3) thirdBeat();
    });
    // The work ends only once the interval has beaten twice after the first beat: without them it never would.
    const result = await env.run(() => whileHeartbeating(async () => (await threeBeats, 'done'), 10));
    expect(result).toBe('done');
    expect(beats).toBeGreaterThanOrEqual(3);
  });

  it('passes the work’s failure on', async () => {
    const env = new MockActivityEnvironment();
    await expect(env.run(() => whileHeartbeating(async () => Promise.reject(new Error('database gone')), 10))).rejects.toThrow('database gone');
  });
});

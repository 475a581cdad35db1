import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { workerNodeFlags, workflowThreadSemiSpaceMiB } from '../../src/main/node-flags.ts';

const probe = fileURLToPath(new URL('../fixtures/young-generation-probe.ts', import.meta.url));

describe('sizeWorkflowThreadHeaps', () => {
  it("gives threads created after it a smaller young generation, and leaves the main thread's as the flags set it", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...workerNodeFlags, probe]);
    const { mainThreadMiB, threadMiB } = JSON.parse(stdout) as { mainThreadMiB: number; threadMiB: number };
    // Two semi-spaces each: 2 × 32 MiB from the flags on the main thread, 2 × 16 MiB on the thread.
    expect(mainThreadMiB).toBe(2 * 32);
    expect(threadMiB).toBeGreaterThan(0);
    expect(threadMiB).toBeLessThanOrEqual(2 * workflowThreadSemiSpaceMiB);
  });
});

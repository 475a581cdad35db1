import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiNodeFlags, apiSemiSpaceMiB, workerNodeFlags, workerSemiSpaceMiB } from '../../src/main/node-flags.ts';

const probe = fileURLToPath(new URL('../fixtures/young-generation-probe.ts', import.meta.url));

describe("the worker's node flags", () => {
  it('bound the young generation of every isolate, the main thread and the workflow threads alike, from launch', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...workerNodeFlags, probe]);
    const { mainThreadMiB, threadMiB } = JSON.parse(stdout) as { mainThreadMiB: number; threadMiB: number };
    // Two semi-spaces each. The load makes the main thread reach its bound; a thread created later, without resource
    // limits (as the SDK creates its workflow threads), stays within the same one.
    expect(mainThreadMiB).toBe(2 * workerSemiSpaceMiB);
    expect(threadMiB).toBeGreaterThan(0);
    expect(threadMiB).toBeLessThanOrEqual(2 * workerSemiSpaceMiB);
  });
});

describe("the API's node flags", () => {
  it('bound its young generation from launch', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...apiNodeFlags, probe]);
    const { mainThreadMiB } = JSON.parse(stdout) as { mainThreadMiB: number };
    expect(mainThreadMiB).toBe(2 * apiSemiSpaceMiB);
  });
});

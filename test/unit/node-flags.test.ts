import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiNodeFlags, apiSemiSpaceMiB, workerNodeFlags, workerSemiSpaceMiB } from '../../src/main/node-flags.ts';

const probe = fileURLToPath(new URL('../fixtures/young-generation-probe.ts', import.meta.url));

/**
 * The most a young generation bounded by `semiSpaceMiB` was seen to hold: its two semi-spaces, and up to half as much
 * again in pages V8's paged new space keeps while a busy machine's concurrent sweep has not yet given them back
 * (10.25 MiB for 4 MiB semi-spaces). Unbounded, the probe's load takes it to 64 MiB.
 */
const mostWithin = (semiSpaceMiB: number) => 3 * semiSpaceMiB;

describe("the worker's node flags", () => {
  it('bound the young generation of every isolate, the main thread and the workflow threads alike, from launch', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...workerNodeFlags, probe]);
    const { mainThreadMiB, threadMiB } = JSON.parse(stdout) as { mainThreadMiB: number; threadMiB: number };
    // Two semi-spaces each. The load makes the main thread reach its bound; a thread created later, without resource
    // limits (as the SDK creates its workflow threads), stays within the same one.
    expect(mainThreadMiB).toBeGreaterThanOrEqual(2 * workerSemiSpaceMiB);
    expect(mainThreadMiB).toBeLessThanOrEqual(mostWithin(workerSemiSpaceMiB));
    expect(threadMiB).toBeGreaterThan(0);
    expect(threadMiB).toBeLessThanOrEqual(mostWithin(workerSemiSpaceMiB));
  });
});

describe("the API's node flags", () => {
  it('bound its young generation from launch', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...apiNodeFlags, probe]);
    const { mainThreadMiB } = JSON.parse(stdout) as { mainThreadMiB: number };
    expect(mainThreadMiB).toBeGreaterThanOrEqual(2 * apiSemiSpaceMiB);
    expect(mainThreadMiB).toBeLessThanOrEqual(mostWithin(apiSemiSpaceMiB));
  });
});

import '../support/quiet-temporal-runtime.ts';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { contractWorkflowTypes, historyWorkflowType, loadHistories, releasedHistoryVersions } from '../support/temporal.ts';

const histories = await loadHistories();

/**
 * Every recorded history must replay on the current workflow code. A change that would break running workflows
 * (a different command order, a new activity in the middle) fails here before it reaches a worker.
 */
describe('replay of recorded histories', () => {
  it('holds a history of every workflow type, recorded from a real run of the current code', async () => {
    const current = histories.filter((h) => !h.name.includes('/'));
    const recorded = new Set(current.map((h) => historyWorkflowType(h.history)));
    const missing = (await contractWorkflowTypes()).filter(({ type }) => !recorded.has(type));
    expect(missing, 'record one with RECORD_HISTORIES=1 (see docs/operations.md)').toEqual([]);
  });

  it("keeps every released version's histories, and only those (a folder per version in CHANGELOG.md)", async () => {
    const changelog = await readFile(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\]/gm)].map((match) => match[1]!).sort();
    expect(released.length).toBeGreaterThan(0);
    expect(await releasedHistoryVersions()).toEqual(released);
    for (const version of released) expect(histories.some((h) => h.name.startsWith(`${version}/`)), version).toBe(true);
  });

  it.each(histories)('replays $name on the current workflow code', async ({ name, history }) => {
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, name)).resolves.toBeUndefined();
  });

  it('fails on workflow code that changed incompatibly', async () => {
    const changed = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('../fixtures/nondeterministic-workflows.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    });
    const selfTest = histories.find((h) => h.name === 'self-test')!;
    await expect(Worker.runReplayHistory({ workflowBundle: changed }, selfTest.history, 'self-test')).rejects.toThrow(/Nondeterminism|DeterminismViolation|activity/i);
  });
});

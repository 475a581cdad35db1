import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { contractWorkflowTypes, historyWorkflowType, loadHistories } from '../support/temporal.ts';

const histories = await loadHistories();

/**
 * Every recorded history must replay on the current workflow code. A change that would break running workflows
 * (a different command order, a new activity in the middle) fails here before it reaches a worker.
 */
describe('replay of recorded histories', () => {
  it('holds a history of every workflow type, recorded from a real run', async () => {
    const recorded = new Set(histories.map((h) => historyWorkflowType(h.history)));
    const missing = (await contractWorkflowTypes()).filter(({ type }) => !recorded.has(type));
    expect(missing, 'record one with RECORD_HISTORIES=1 (see docs/operations.md)').toEqual([]);
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

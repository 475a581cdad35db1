import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** Bundles the workflow code once; the worker and the tests reuse the result instead of bundling again. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath });
}

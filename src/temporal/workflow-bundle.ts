import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Logger } from '../logger.ts';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** Bundles the workflow code once; the worker and the tests reuse the result instead of bundling again. */
export function bundleWorkflows(logger: Logger): Promise<WorkflowBundleWithSourceMap> {
  const bundlerLogger = logger.child({ component: 'workflow-bundler' });
  return bundleWorkflowCode({
    workflowsPath,
    // webpack's progress report is noise; warnings and errors still reach the structured log.
    logger: new DefaultLogger('WARN', (entry) => bundlerLogger[entry.level === 'ERROR' ? 'error' : 'warn'](entry.meta ?? {}, entry.message)),
  });
}

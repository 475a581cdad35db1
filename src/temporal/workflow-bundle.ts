import { access, constants, mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleOption, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ConfigError } from '../config.ts';
import type { Logger } from '../logger.ts';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/**
 * Bundles the workflow code once; the worker and the tests reuse the result instead of bundling again. `workflows`
 * names another entry (a bench's bare floor workflow); the service's own by default.
 */
export function bundleWorkflows(logger: Logger, workflows = workflowsPath): Promise<WorkflowBundleWithSourceMap> {
  const bundlerLogger = logger.child({ component: 'workflow-bundler' });
  return bundleWorkflowCode({
    workflowsPath: workflows,
    // webpack's progress report is noise; warnings and errors still reach the structured log.
    logger: new DefaultLogger('WARN', (entry) => bundlerLogger[entry.level === 'ERROR' ? 'error' : 'warn'](entry.meta ?? {}, entry.message)),
  });
}

/** Bundles the workflow code into the file at `path` (its folder made if need be); answers the bundle's size in bytes. */
export async function writeWorkflowBundle(path: string, logger: Logger, workflows = workflowsPath): Promise<number> {
  const bundle = await bundleWorkflows(logger, workflows);
  await mkdir(dirname(resolve(path)), { recursive: true });
  await writeFile(path, bundle.code);
  return Buffer.byteLength(bundle.code);
}

/**
 * The workflow code a worker runs: the bundle at `path` when given (WORKFLOW_BUNDLE_PATH, built with
 * `npm run bundle:workflows` from the same checkout, as the image does), else bundled now. A prebuilt bundle spares
 * each worker start webpack's seconds and its memory, which the process would otherwise keep.
 */
export async function workflowCode(path: string | undefined, logger: Logger): Promise<WorkflowBundleOption> {
  if (path === undefined) return bundleWorkflows(logger);
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(
      `Configuration error: WORKFLOW_BUNDLE_PATH is invalid: ${path} cannot be read (${code}); build it with npm run bundle:workflows -- ${path}, or unset it to bundle at start`,
    );
  }
  return { codePath: path };
}

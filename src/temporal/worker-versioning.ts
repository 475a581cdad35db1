import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';

/** A worker deployment's version: the deployment (the service) and the build (the image's version) it runs. */
export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/**
 * A versioned worker's options. Runs are pinned: a run stays on the build that started it for its whole life, so a
 * rollout never replays a run on code it did not start with, and old builds drain as their runs end
 * (docs/operations.md, "Rolling out workflow code"). Unversioned (undefined) without a deployment.
 */
export function workerDeploymentOptionsOf(version: DeploymentVersion | undefined): WorkerDeploymentOptions | undefined {
  if (!version) return undefined;
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/** gRPC status codes the server answers while a new version's workers have not polled yet. */
const notYetPolledCodes = new Set([5 /* NOT_FOUND */, 9 /* FAILED_PRECONDITION */]);

/**
 * Makes `version` the deployment's current one: new runs start on it. The server refuses while the version's workers
 * have not polled every task queue the current version polls (a rollout still starting), so this asks again until
 * `timeoutMs` has passed.
 */
export async function promoteWorkerVersion(
  client: Client,
  version: DeploymentVersion,
  options: { timeoutMs: number; onWait?: (reason: string) => void },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: client.options.identity,
      });
      return;
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === undefined || !notYetPolledCodes.has(code) || Date.now() >= deadline) throw error;
      options.onWait?.((error as Error).message);
      await delay(1_000);
    }
  }
}

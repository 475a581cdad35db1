import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { temporalAccessFrom } from '../temporal/access.ts';
import { promoteWorkerVersion } from '../temporal/worker-versioning.ts';
import { runMain } from './run-main.ts';

/** How long a rollout's new workers get to poll every queue before the promotion gives up. */
const promoteTimeoutMs = 10 * 60_000;

runMain(async () => {
  const config = loadConfig('promote');
  const logger = createLogger(config.LOG_LEVEL, 'promote');
  const version = { deploymentName: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID };
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, ...temporalAccessFrom(config) });
  try {
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    await promoteWorkerVersion(client, version, {
      timeoutMs: promoteTimeoutMs,
      onWait: (reason) => logger.info({ version, reason }, 'waiting for the new version to poll every task queue'),
    });
    logger.info({ version }, 'new runs now start on this version; runs already running stay on theirs');
  } finally {
    await connection.close();
  }
});

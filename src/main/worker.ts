import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { findFfmpeg, mediaSupportOf } from '../media/index.ts';
import { startMetricsListener, temporalPrometheusAddress } from '../metrics/metrics-server.ts';
import { connectOrm } from '../persistence/orm.ts';
import { serviceSettingsFrom } from '../service/compose.ts';
import { startServiceWorker } from '../service/worker-process.ts';
import { installTemporalRuntime } from '../temporal/worker.ts';
import { workflowCode } from '../temporal/workflow-bundle.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('worker');
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  installTemporalRuntime(logger, { prometheusBindAddress: temporalPrometheusAddress(config) });
  const metrics = await startMetricsListener(config, logger);
  // Recordings are processed on the bulk queue; an interactive-only worker never runs ffmpeg.
  const media =
    config.WORKER_ROLE === 'interactive' ? { available: false as const, reason: 'an interactive worker processes no recordings' } : await mediaSupportOf(findFfmpeg());
  if (!media.available && config.WORKER_ROLE !== 'interactive') logger.warn(`recordings cannot be processed here: ${media.reason}`);
  const settings = serviceSettingsFrom(config, { databaseUrl: config.DATABASE_URL, temporalAddress: config.TEMPORAL_ADDRESS }, logger, media);
  const workflowBundle = await workflowCode(config.WORKFLOW_BUNDLE_PATH, logger);
  const orm = await connectOrm(config.DATABASE_URL);
  const deployment = config.WORKER_DEPLOYMENT_NAME && config.WORKER_BUILD_ID ? { deploymentName: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID } : undefined;
  const worker = await startServiceWorker({ ...settings, listenDatabaseUrl: config.LISTEN_DATABASE_URL, metrics: metrics.registry, deployment }, orm, { role: config.WORKER_ROLE, workflowBundle });
  logger.info({ role: config.WORKER_ROLE, taskQueues: worker.taskQueues, deployment: deployment ?? null, ffmpeg: media.available ? media.ffmpeg.version : null }, 'worker running');
  worker.finished.catch((error: unknown) => {
    logger.fatal({ err: error }, 'worker stopped unexpectedly');
    process.exit(1);
  });
  return async () => {
    logger.info('worker shutting down');
    await worker.stop();
    await orm.close();
    await metrics.close();
    logger.info('worker stopped');
  };
});

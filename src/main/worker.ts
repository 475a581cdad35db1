import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
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
  const settings = serviceSettingsFrom(config, { databaseUrl: config.DATABASE_URL, temporalAddress: config.TEMPORAL_ADDRESS }, logger);
  const workflowBundle = await workflowCode(config.WORKFLOW_BUNDLE_PATH, logger);
  const orm = await connectOrm(config.DATABASE_URL);
  const worker = await startServiceWorker({ ...settings, metrics: metrics.registry }, orm, { role: config.WORKER_ROLE, workflowBundle });
  logger.info({ role: config.WORKER_ROLE, taskQueues: worker.taskQueues }, 'worker running');
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

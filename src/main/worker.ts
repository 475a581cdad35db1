import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { connectOrm } from '../persistence/orm.ts';
import { bundleWorkflows } from '../temporal/workflow-bundle.ts';
import { installTemporalLogger, startWorker } from '../temporal/worker.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('worker');
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  installTemporalLogger(logger);
  const orm = await connectOrm(config.DATABASE_URL);
  const worker = await startWorker({
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: await bundleWorkflows(logger),
    deps: { orm, logger },
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  worker.finished.catch((error: unknown) => {
    logger.fatal({ err: error }, 'worker stopped unexpectedly');
    process.exit(1);
  });
  return async () => {
    logger.info('worker shutting down');
    await worker.shutdown();
    await orm.close();
    logger.info('worker stopped');
  };
});

import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startApiServer } from '../service/api-server.ts';
import { closeApiServices, createApiServices } from '../service/compose.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('api');
  const logger = createLogger(config.LOG_LEVEL, 'api');
  const services = await createApiServices({
    databaseUrl: config.DATABASE_URL,
    temporalAddress: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    adminToken: config.ADMIN_TOKEN,
    logger,
  });
  const api = await startApiServer(config.PORT, services);
  logger.info({ url: api.url }, 'api listening');
  return async () => {
    logger.info('draining HTTP connections');
    await api.close();
    await closeApiServices(services);
    logger.info('api stopped');
  };
});

import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startMetricsListener } from '../metrics/metrics-server.ts';
import { startApiServer } from '../service/api-server.ts';
import { apiSettingsFrom, closeApiServices, createApiServices, serviceSettingsFrom } from '../service/compose.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('api');
  const logger = createLogger(config.LOG_LEVEL, 'api');
  const metrics = await startMetricsListener(config, logger);
  const settings = serviceSettingsFrom(config, { databaseUrl: config.DATABASE_URL, temporalAddress: config.TEMPORAL_ADDRESS }, logger);
  const services = await createApiServices(apiSettingsFrom({ ...settings, metrics: metrics.registry }, config));
  const api = await startApiServer(config.PORT, services);
  logger.info({ url: api.url }, 'api listening');
  return async () => {
    logger.info('draining HTTP connections');
    await api.close();
    await closeApiServices(services);
    await metrics.close();
    logger.info('api stopped');
  };
});

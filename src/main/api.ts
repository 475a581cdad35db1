import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { findFfmpeg, mediaSupportOf } from '../media/index.ts';
import { startMetricsListener } from '../metrics/metrics-server.ts';
import { startApiServer } from '../service/api-server.ts';
import { apiSettingsFrom, closeApiServices, createApiServices, serviceSettingsFrom } from '../service/compose.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('api');
  const logger = createLogger(config.LOG_LEVEL, 'api');
  const metrics = await startMetricsListener(config, logger);
  // The API processes no audio, but answers an upload 503 media_unavailable when it could not be processed: the api and
  // the worker run from one image, so the API's own ffmpeg says what the worker's will be.
  const media = await mediaSupportOf(findFfmpeg());
  if (!media.available) logger.warn(`recordings unavailable: ${media.reason}`);
  const settings = serviceSettingsFrom(config, { databaseUrl: config.DATABASE_URL, temporalAddress: config.TEMPORAL_ADDRESS }, logger, media);
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

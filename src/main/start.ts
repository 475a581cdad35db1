import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadEmbeddedConfig } from '../config.ts';
import { ensureConsoleBuilt } from '../dev/console-build.ts';
import { startEmbeddedPostgres } from '../dev/embedded-postgres.ts';
import { loadOrCreateSecret } from '../dev/secrets-file.ts';
import { startEmbeddedTemporal } from '../dev/embedded-temporal.ts';
import { provisionFfmpeg } from '../dev/ffmpeg-tool.ts';
import { startLocalFcm } from '../dev/local-fcm.ts';
import { createLogger } from '../logger.ts';
import { mediaSupportOf, type MediaSupport } from '../media/index.ts';
import { startMetricsListener, temporalPrometheusAddress } from '../metrics/metrics-server.ts';
import { connectOrm, migrateUp } from '../persistence/orm.ts';
import { startApiServer } from '../service/api-server.ts';
import { apiSettingsFrom, closeApiServices, createApiServices, serviceSettingsFrom } from '../service/compose.ts';
import { startServiceWorker } from '../service/worker-process.ts';
import { generateSecretsKey } from '../security/secret-box.ts';
import { generateToken } from '../security/tokens.ts';
import { temporalUiListUrl, temporalUiViews } from '../temporal/ui-links.ts';
import { installTemporalRuntime } from '../temporal/worker.ts';
import { runMain } from './run-main.ts';

/**
 * `npm start`: the whole service in one process, for a laptop. Postgres and Temporal are started here unless
 * DATABASE_URL / TEMPORAL_ADDRESS point at running ones; their state lives in DATA_DIR and survives restarts.
 */
runMain(async () => {
  const config = loadEmbeddedConfig();
  const logger = createLogger(config.LOG_LEVEL, 'start');
  installTemporalRuntime(logger, { prometheusBindAddress: temporalPrometheusAddress(config) });
  const dataDir = resolve(config.DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => logger.error({ err: error }, 'error while stopping'));
    }
  };

  try {
    // Before anything listens: the console the API serves is built from the sources as they are (when they changed).
    await ensureConsoleBuilt((line) => process.stdout.write(`${line}\n`));
    const adminToken = config.ADMIN_TOKEN ?? (await loadOrCreateSecret(join(dataDir, 'admin-token'), () => generateToken('adm_')));
    const secretsKey = config.SECRETS_KEY ?? (await loadOrCreateSecret(join(dataDir, 'secrets-key'), generateSecretsKey));

    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      const postgres = await startEmbeddedPostgres(join(dataDir, 'postgres'), logger);
      stops.push(postgres.stop);
      databaseUrl = postgres.url;
    }

    let temporalAddress = config.TEMPORAL_ADDRESS;
    let temporalUi: string | undefined;
    if (!temporalAddress) {
      const temporal = await startEmbeddedTemporal({
        namespace: config.TEMPORAL_NAMESPACE,
        dbFilename: join(dataDir, 'temporal.db'),
        port: config.TEMPORAL_DEV_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
      });
      stops.push(temporal.stop);
      temporalAddress = temporal.address;
      temporalUi = temporal.uiUrl;
    }

    // ffmpeg is found or installed like the Temporal CLI; without one the service runs, and uploads answer 503.
    const media = await mediaSupportOf(provisionFfmpeg((line) => logger.info(line)));
    if (!media.available) logger.warn(`recordings unavailable: ${media.reason}`);

    const orm = await connectOrm(databaseUrl);
    stops.push(() => orm.close());
    const applied = await migrateUp(orm);
    if (applied.length) logger.info({ applied }, 'migrations applied');

    // One process, one registry: the API's and the worker's metrics are served together.
    const metrics = await startMetricsListener(config, logger);
    stops.push(metrics.close);
    const localFcm =
      config.PUSH_PROVIDER === 'fake-fcm' ? await startLocalFcm({ dataDir, logger, concurrency: config.FCM_CONCURRENCY, maxPerMinute: config.FCM_MAX_PER_MINUTE }) : undefined;
    if (localFcm) stops.push(() => localFcm.stop());
    // With the fake, the push settings are the fake's own (the FCM provider, pointed at it), not FCM_* ones.
    const pushProvider = config.PUSH_PROVIDER === 'fake-fcm' ? 'log' : config.PUSH_PROVIDER;
    const settings = {
      ...serviceSettingsFrom(
        // Links and recording URLs point at this API unless PUBLIC_URL says otherwise (the address the banner prints).
        { ...config, SECRETS_KEY: secretsKey, PUSH_PROVIDER: pushProvider, PUBLIC_URL: config.PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}` },
        { databaseUrl, temporalAddress },
        logger,
        media,
      ),
      ...(localFcm ? { push: localFcm.push } : {}),
      metrics: metrics.registry,
    };
    const worker = await startServiceWorker(settings, orm);
    stops.push(worker.stop);

    const services = await createApiServices(apiSettingsFrom(settings, { ...config, ADMIN_TOKEN: adminToken, TEMPORAL_UI_URL: config.TEMPORAL_UI_URL ?? temporalUi }), orm);
    stops.push(() => closeApiServices(services, { keepOrm: true }));
    const api = await startApiServer(config.PORT, services);
    stops.push(api.close);

    process.stdout.write(
      banner({
        api: api.url,
        metrics: metrics.url,
        temporalMetrics: temporalPrometheusAddress(config),
        temporalUi,
        temporalAddress,
        namespace: config.TEMPORAL_NAMESPACE,
        adminToken: config.ADMIN_TOKEN === undefined ? adminToken : '(ADMIN_TOKEN, as set)',
        fakeFcm: localFcm && `${localFcm.baseUrl}, answering as ${localFcm.scriptFile} says`,
        recordings: recordingsLine(media, config.STORAGE_DRIVER),
        dataDir,
      }),
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
  return async () => {
    logger.info('stopping');
    await stopAll();
    logger.info('stopped');
  };
});

/** What `npm start` prints once everything is up: one line per address, the optional ones only when on. */
function banner(parts: {
  api: string;
  metrics: string | undefined;
  temporalMetrics: string | undefined;
  temporalUi: string | undefined;
  temporalAddress: string;
  namespace: string;
  adminToken: string;
  fakeFcm: string | undefined;
  recordings: string;
  dataDir: string;
}): string {
  const line = (label: string, value: string) => `  ${label.padEnd(22)} ${value}`;
  const ui = parts.temporalUi;
  return [
    '',
    line('API', parts.api),
    line('Console', `${parts.api}/console`),
    line('OpenAPI', `${parts.api}/openapi.json`),
    ...(parts.metrics ? [line('Metrics', parts.metrics)] : []),
    ...(parts.temporalMetrics ? [line('Temporal SDK metrics', `http://${parts.temporalMetrics}/metrics`)] : []),
    line('Temporal UI', ui ?? `(external Temporal at ${parts.temporalAddress})`),
    ...(ui ? temporalUiViews.map((view) => line(`  ${view.name}`, temporalUiListUrl(ui, parts.namespace, view.query))) : []),
    line('Admin token', parts.adminToken),
    ...(parts.fakeFcm ? [line('Fake FCM', parts.fakeFcm)] : []),
    line('Recordings', parts.recordings),
    line('Data', parts.dataDir),
    '',
    '  Ctrl-C stops everything.',
    '',
    '',
  ].join('\n');
}

/** Where recordings go and what processes them, or why uploads are refused. */
function recordingsLine(media: MediaSupport, driver: string): string {
  return media.available ? `ffmpeg ${media.ffmpeg.version} (${media.ffmpeg.path}), files on ${driver === 's3' ? 'S3' : 'local disk'}` : `unavailable: ${media.reason}`;
}

import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import { sendLanes } from '../domain/campaigns/begin-campaign-send.ts';
import type { DeliverySettings } from '../domain/deliveries/delivery-settings.ts';
import { createInboundConnections } from '../domain/ingest/inbound-connections.ts';
import { wakeIngestRelays } from '../persistence/outbox-channels.ts';
import { createCoalescedWake } from '../outbox/coalesced-wake.ts';
import { measureIngestBacklog } from '../domain/ingest/measure-ingest-backlog.ts';
import { artistLinkGraceHoursDefault, ConfigError, recordingConfigDefaults, retentionConfigDefaults } from '../config.ts';
import type { FileSettings } from '../domain/files/file-deps.ts';
import { recordingLimitsOf, type MediaSupport, type RecordingLimits } from '../media/index.ts';
import { recordingUrlKey } from '../security/recording-urls.ts';
import { createStorage, storageSettingsFrom, type StorageConfig, type StorageSettings } from '../storage/index.ts';
import { defaultConsoleDir } from '../http/console-files.ts';
import { adminRateLimitKey } from '../http/rate-limit.ts';
import type { ApiServices } from '../http/services.ts';
import type { Logger } from '../logger.ts';
import { createApiMetrics } from '../metrics/api-metrics.ts';
import { createWorkerMetrics } from '../metrics/worker-metrics.ts';
import { createOutboundHttpClient } from '../outbound/http-client.ts';
import { defaultDeliveryRelaySettings, type DeliveryRelaySettings } from '../outbox/delivery-relay.ts';
import { defaultIngestRelaySettings, type IngestRelaySettings } from '../outbox/ingest-relay.ts';
import { createPushProvider, type PushSettings } from '../outbound/push/create-push-provider.ts';
import { createRateLimiter, type RateLimit } from '../persistence/rate-limiter.ts';
import { connectOrm, interactivePoolMax, type Orm } from '../persistence/orm.ts';
import { parseAllowCidrs, systemResolve } from '../security/ip-policy.ts';
import { createSecretBox } from '../security/secret-box.ts';
import { temporalAccessFrom, type TemporalAccess, type TemporalAccessConfig } from '../temporal/access.ts';
import { createTemporalClients } from '../temporal/client.ts';
import type { DeploymentVersion } from '../temporal/worker-versioning.ts';
import type { ActivityDeps } from '../../activities/deps.ts';

/** The settings the API and the worker are built from, whichever entry point read them. */
export interface ServiceSettings {
  databaseUrl: string;
  /**
   * LISTEN_DATABASE_URL: where the outbox relays LISTEN, which needs a session of its own (a direct connection when
   * `databaseUrl` goes through PgBouncer in transaction mode); unset, `databaseUrl`.
   */
  listenDatabaseUrl?: string | undefined;
  temporalAddress: string;
  /** An API key or TLS for Temporal (Temporal Cloud, mTLS); unset, a plain connection. */
  temporalAccess?: TemporalAccess;
  namespace: string;
  /** The bulk task queue: deliveries, ingest, experiences, A/B tests. */
  taskQueue: string;
  /** The task queue of interactive runs (recording jobs); unset, `<taskQueue>-interactive`. */
  interactiveTaskQueue?: string | undefined;
  secretsKey: string;
  /** PUBLIC_URL: the start of every link the service hands out (no trailing slash). */
  publicUrl: string;
  /** ARTIST_LINK_GRACE_HOURS; unset, its default. */
  artistLinkGraceHours?: number | undefined;
  outboundAllowCidrs?: string | undefined;
  delivery: DeliverySettings;
  /** The worker's delivery relay; its defaults when absent. */
  deliveryRelay?: DeliveryRelaySettings | undefined;
  /** How the worker sends pushes; the API sends none. */
  push: PushSettings;
  /** The ingest relay the worker runs (defaults: defaultIngestRelaySettings). */
  ingestRelay?: IngestRelaySettings | undefined;
  logger: Logger;
  /**
   * Where the process's metrics are counted: the registry its metrics listener serves (embedded mode gives the API
   * and the worker the same one). Without one they are counted on a private registry nothing reads.
   */
  metrics?: Registry | undefined;
  /** Recording files; unset (a test or bench that uses none), local storage in a temporary folder and no ffmpeg. */
  files?: RecordingFileSettings | undefined;
  /** The worker deployment version the workers poll as (WORKER_DEPLOYMENT_NAME, WORKER_BUILD_ID); unversioned when unset. */
  deployment?: DeploymentVersion | undefined;
}

/** Recording files: where they are kept, their limits, and this process's ffmpeg (the entry point looks it up). */
export interface RecordingFileSettings {
  storage: StorageSettings;
  limits: RecordingLimits;
  /** RECORDING_RETENTION_DAYS (the worker's retention sweep). */
  retentionDays: number;
  /** `findFfmpeg` in production, `provisionFfmpeg` in embedded mode and the tests, settled by `mediaSupportOf`. */
  media: MediaSupport;
}

/** The recording settings of a process built without any: files are refused (no ffmpeg), and kept nowhere that lasts. */
const unconfiguredFiles = (): RecordingFileSettings => ({
  storage: { driver: 'local', root: join(tmpdir(), 'richpush-files') },
  limits: recordingLimitsOf(recordingConfigDefaults),
  retentionDays: retentionConfigDefaults.RECORDING_RETENTION_DAYS,
  media: { available: false, reason: 'this process was started without recording settings' },
});

interface RecordingFileConfig extends StorageConfig {
  RECORDING_MAX_BYTES: number;
  RECORDING_MAX_SECONDS: number;
  RECORDING_RETENTION_DAYS?: number;
}

/** The recording settings from the parsed configuration and the process's ffmpeg. */
export function fileSettingsFrom(config: RecordingFileConfig, media: MediaSupport): RecordingFileSettings {
  return {
    storage: storageSettingsFrom(config),
    limits: recordingLimitsOf(config),
    retentionDays: config.RECORDING_RETENTION_DAYS ?? retentionConfigDefaults.RECORDING_RETENTION_DAYS,
    media,
  };
}

/** The API's file services: the storage it streams uploads into, and what its answers need. */
function apiFileServices(settings: Pick<ServiceSettings, 'files' | 'secretsKey' | 'publicUrl'>): FileSettings {
  const files = settings.files ?? unconfiguredFiles();
  return {
    storage: createStorage(files.storage),
    limits: files.limits,
    urlKey: recordingUrlKey(settings.secretsKey),
    mediaUnavailable: files.media.available ? undefined : files.media.reason,
    publicUrl: settings.publicUrl,
  };
}

interface DeliveryConfig {
  DELIVERY_RETRY_INITIAL_MS: number;
  DELIVERY_RETRY_BACKOFF: number;
  DELIVERY_MAX_ATTEMPTS: number;
  DELIVERY_TIMEOUT_MS: number;
  ENDPOINT_DISABLE_AFTER_HOURS: number;
  DELIVERY_BATCH_MAX?: number;
  DELIVERY_RELAY_LANES?: number;
  DELIVERY_RELAY_POLL_MS?: number;
  DELIVERY_RELAY_RECOVER_AFTER_MS?: number;
  DELIVERY_RELAY_LINGER_MS?: number;
}

/** The worker's push settings; the API's configuration has none, which means the log provider. */
interface PushConfig {
  PUSH_PROVIDER?: 'log' | 'fcm';
  FCM_SERVICE_ACCOUNT_FILE?: string | undefined;
  FCM_BASE_URL?: string;
  FCM_CONCURRENCY?: number;
  FCM_MAX_PER_MINUTE?: number;
}

interface IngestRelayConfig {
  INGEST_RELAY_BATCH_SIZE?: number;
  INGEST_RELAY_CHUNK_SIZE?: number;
  INGEST_RELAY_LANES?: number;
  INGEST_RELAY_POLL_MS?: number;
  INGEST_RELAY_LINGER_MS?: number;
}

interface SharedConfig extends DeliveryConfig, PushConfig, IngestRelayConfig, RecordingFileConfig, TemporalAccessConfig {
  TEMPORAL_NAMESPACE: string;
  TEMPORAL_TASK_QUEUE: string;
  TEMPORAL_INTERACTIVE_TASK_QUEUE?: string | undefined;
  SECRETS_KEY: string;
  PUBLIC_URL: string;
  ARTIST_LINK_GRACE_HOURS: number;
  OUTBOUND_ALLOW_CIDRS?: string | undefined;
}

/** How deliveries retry and time out, from the parsed configuration. */
export function deliverySettingsFrom(config: DeliveryConfig): DeliverySettings {
  return {
    retryInitialMs: config.DELIVERY_RETRY_INITIAL_MS,
    retryBackoff: config.DELIVERY_RETRY_BACKOFF,
    maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    disableAfterHours: config.ENDPOINT_DISABLE_AFTER_HOURS,
  };
}

/** Maps parsed configuration onto service settings; embedded mode supplies the URLs of the servers it started. */
export function serviceSettingsFrom(
  config: SharedConfig,
  servers: { databaseUrl: string; temporalAddress: string },
  logger: Logger,
  media: MediaSupport = { available: false, reason: 'ffmpeg was not looked up' },
): ServiceSettings {
  return {
    ...servers,
    temporalAccess: temporalAccessFrom(config),
    files: fileSettingsFrom(config, media),
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    interactiveTaskQueue: config.TEMPORAL_INTERACTIVE_TASK_QUEUE,
    secretsKey: config.SECRETS_KEY,
    publicUrl: config.PUBLIC_URL,
    artistLinkGraceHours: config.ARTIST_LINK_GRACE_HOURS,
    outboundAllowCidrs: config.OUTBOUND_ALLOW_CIDRS,
    delivery: deliverySettingsFrom(config),
    deliveryRelay: {
      batchMax: config.DELIVERY_BATCH_MAX ?? defaultDeliveryRelaySettings.batchMax,
      lanes: config.DELIVERY_RELAY_LANES ?? defaultDeliveryRelaySettings.lanes,
      pollIntervalMs: config.DELIVERY_RELAY_POLL_MS ?? defaultDeliveryRelaySettings.pollIntervalMs,
      recoverAfterMs: config.DELIVERY_RELAY_RECOVER_AFTER_MS ?? defaultDeliveryRelaySettings.recoverAfterMs,
      lingerMs: config.DELIVERY_RELAY_LINGER_MS ?? defaultDeliveryRelaySettings.lingerMs,
    },
    push: pushSettingsFrom(config),
    ingestRelay: {
      batchSize: config.INGEST_RELAY_BATCH_SIZE ?? defaultIngestRelaySettings.batchSize,
      chunkSize: config.INGEST_RELAY_CHUNK_SIZE ?? defaultIngestRelaySettings.chunkSize,
      lanes: config.INGEST_RELAY_LANES ?? defaultIngestRelaySettings.lanes,
      pollIntervalMs: config.INGEST_RELAY_POLL_MS ?? defaultIngestRelaySettings.pollIntervalMs,
      lingerMs: config.INGEST_RELAY_LINGER_MS ?? defaultIngestRelaySettings.lingerMs,
    },
    logger,
  };
}

/**
 * The task queue recording jobs run on: TEMPORAL_INTERACTIVE_TASK_QUEUE, else the bulk queue's name with
 * `-interactive`. The API (which starts job runs) and the worker (which polls it) derive it the same way.
 */
export const interactiveTaskQueueOf = (settings: Pick<ServiceSettings, 'taskQueue' | 'interactiveTaskQueue'>): string =>
  settings.interactiveTaskQueue ?? `${settings.taskQueue}-interactive`;

function pushSettingsFrom(config: PushConfig): PushSettings {
  if (config.PUSH_PROVIDER !== 'fcm') return { provider: 'log' };
  const { FCM_SERVICE_ACCOUNT_FILE: serviceAccountFile, FCM_BASE_URL: baseUrl, FCM_CONCURRENCY: concurrency, FCM_MAX_PER_MINUTE: maxPerMinute } = config;
  // loadConfig has checked and defaulted these; only a configuration built by hand can lack them.
  if (serviceAccountFile === undefined || baseUrl === undefined || concurrency === undefined || maxPerMinute === undefined) {
    throw new ConfigError('Configuration error: PUSH_PROVIDER is fcm without FCM_SERVICE_ACCOUNT_FILE, FCM_BASE_URL, FCM_CONCURRENCY or FCM_MAX_PER_MINUTE');
  }
  return { provider: 'fcm', serviceAccountFile, baseUrl, concurrency, maxPerMinute };
}

/** The API sends no pushes, so it needs no push settings. */
export interface ApiSettings extends Omit<ServiceSettings, 'push'> {
  adminToken: string;
  /** Per account on the API-key routes, per admin token on the admin routes (API_RATE_LIMIT_*). */
  apiRateLimit: RateLimit;
  ingestRateLimit: RateLimit;
  ingestBaseUrl?: string | undefined;
  /** TEMPORAL_UI_URL: where the console links a run's workflow to; no link when unset. */
  temporalUiUrl?: string | undefined;
  /** The console's build to serve; build/console of this checkout when unset. */
  consoleDir?: string | undefined;
}

interface ApiRoleConfig {
  ADMIN_TOKEN: string;
  API_RATE_LIMIT_PER_SECOND: number;
  API_RATE_LIMIT_BURST: number;
  INGEST_RATE_LIMIT_PER_SECOND: number;
  INGEST_RATE_LIMIT_BURST: number;
  INGEST_BASE_URL?: string | undefined;
  TEMPORAL_UI_URL?: string | undefined;
}

/** The API's settings on top of the shared ones. */
export const apiSettingsFrom = (settings: ServiceSettings, config: ApiRoleConfig): ApiSettings => ({
  ...settings,
  adminToken: config.ADMIN_TOKEN,
  apiRateLimit: { perSecond: config.API_RATE_LIMIT_PER_SECOND, burst: config.API_RATE_LIMIT_BURST },
  ingestRateLimit: { perSecond: config.INGEST_RATE_LIMIT_PER_SECOND, burst: config.INGEST_RATE_LIMIT_BURST },
  ingestBaseUrl: config.INGEST_BASE_URL,
  temporalUiUrl: config.TEMPORAL_UI_URL,
});

/** An API instance wakes the ingest relays at most this often (docs/adr/0035-the-api-wakes-the-ingest-relays-after-the-commit.md). */
const ingestWakeWindowMs = 20;

/**
 * Builds the API's long-lived dependencies. Pass `orm` to share one pool with a worker in the same process; the job
 * routes' interactive pool is the API's own either way (docs/adr/0045-the-job-routes-have-a-postgres-pool-of-their-own.md).
 */
export async function createApiServices(settings: ApiSettings, orm?: Orm): Promise<ApiServices> {
  const temporal = createTemporalClients(settings.temporalAddress, settings.namespace, settings.temporalAccess);
  const apiOrm = orm ?? (await connectOrm(settings.databaseUrl));
  const interactiveOrm = await connectOrm(settings.databaseUrl, interactivePoolMax);
  const secrets = createSecretBox(settings.secretsKey);
  const backlog = () =>
    measureIngestBacklog(apiOrm.em.fork()).catch((error: unknown) => {
      settings.logger.warn({ err: error }, 'ingest backlog query failed; the gauges show NaN');
      throw error;
    });
  return {
    orm: apiOrm,
    interactiveOrm,
    temporal: { ...temporal, taskQueue: settings.taskQueue, interactiveTaskQueue: interactiveTaskQueueOf(settings) },
    adminToken: settings.adminToken,
    logger: settings.logger,
    secrets,
    delivery: settings.delivery,
    publicUrl: settings.publicUrl,
    artistLinkGraceHours: settings.artistLinkGraceHours ?? artistLinkGraceHoursDefault,
    outbound: { allow: parseAllowCidrs(settings.outboundAllowCidrs), resolve: systemResolve },
    apiRateLimit: {
      // A pool of its own: a busy ingest connection's reservations never hold up the management API's.
      limiter: createRateLimiter(settings.databaseUrl, { keyPrefix: 'api' }),
      limit: settings.apiRateLimit,
      adminKey: adminRateLimitKey(settings.adminToken, settings.secretsKey),
    },
    ingest: {
      rateLimiter: createRateLimiter(settings.databaseUrl, { keyPrefix: 'ingest' }),
      connections: createInboundConnections(secrets),
      defaultRateLimit: settings.ingestRateLimit,
      wakeRelay: createCoalescedWake({
        name: 'ingest',
        windowMs: ingestWakeWindowMs,
        logger: settings.logger,
        send: () => wakeIngestRelays(apiOrm.em.fork()),
      }),
      baseUrl: settings.ingestBaseUrl,
    },
    consoleDir: settings.consoleDir ?? defaultConsoleDir,
    temporalUi: settings.temporalUiUrl ? { url: settings.temporalUiUrl.replace(/\/+$/, ''), namespace: settings.namespace } : null,
    metrics: createApiMetrics(settings.metrics ?? new Registry(), backlog),
    files: apiFileServices(settings),
  };
}

/** Releases what createApiServices opened (not a shared ORM: its owner closes it). */
export async function closeApiServices(services: ApiServices, options: { keepOrm?: boolean } = {}): Promise<void> {
  await services.ingest.wakeRelay.close();
  await services.ingest.rateLimiter.close();
  await services.apiRateLimit.limiter.close();
  await services.temporal.connection.close();
  await services.files.storage.close();
  await services.interactiveOrm.close();
  if (!options.keepOrm) await services.orm.close();
}

/** The Temporal side of the activities' dependencies, as `createActivityDeps` connects it. */
export interface ActivityTemporal {
  client: Client;
  eagerStart?: boolean;
  close(): Promise<void>;
}

/**
 * Builds what the activities use, connecting to Temporal last (`connectTemporal`), and answers it with what that
 * connect returned (`connected`). `outboundCa` adds a trusted CA for the delivery client and FCM (tests).
 */
export async function createActivityDeps<T extends ActivityTemporal>(
  settings: ServiceSettings,
  orm: Orm,
  connectTemporal: () => Promise<T>,
  outboundCa?: string,
): Promise<ActivityDeps & { connected: T; close(): Promise<void> }> {
  // First: with fcm it reads the key file, and a bad one stops the start before anything else is opened. A campaign
  // sends `sendLanes` shards at once, each a batch of FCM_CONCURRENCY requests on the wire.
  const push = createPushProvider(settings.push, { logger: settings.logger, ca: outboundCa, em: orm.em, batchesInParallel: sendLanes });
  const http = createOutboundHttpClient({
    allow: parseAllowCidrs(settings.outboundAllowCidrs),
    timeoutMs: settings.delivery.timeoutMs,
    ca: outboundCa,
  });
  const files = settings.files ?? unconfiguredFiles();
  const storage = createStorage(files.storage);
  let temporal: T;
  try {
    temporal = await connectTemporal();
  } catch (error) {
    http.close();
    await push.close();
    await storage.close();
    throw error;
  }
  return {
    orm,
    logger: settings.logger,
    http,
    secrets: createSecretBox(settings.secretsKey),
    temporal: { client: temporal.client, taskQueue: settings.taskQueue, eagerStart: temporal.eagerStart },
    delivery: settings.delivery,
    publicUrl: settings.publicUrl,
    artistLinkGraceHours: settings.artistLinkGraceHours ?? artistLinkGraceHoursDefault,
    push,
    metrics: createWorkerMetrics(settings.metrics ?? new Registry()),
    files: {
      storage,
      media: files.media,
      limits: files.limits,
      scratchDir: join(tmpdir(), 'richpush-media'),
      processingSlots: availableParallelism(),
      retention: { retentionDays: files.retentionDays, rejectedForHours: 24 },
    },
    connected: temporal,
    async close() {
      http.close();
      await push.close();
      await storage.close();
      await temporal.close();
    },
  };
}

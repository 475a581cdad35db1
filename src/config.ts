import { z } from 'zod';
import { storageDrivers } from './storage/object-storage.ts';

/**
 * Every setting the service reads, parsed once at start. Each entry point asks for a role; the role decides
 * which settings are required (embedded mode starts its own Postgres and Temporal, so it needs neither URL).
 */
const port = z.coerce.number().int().min(1).max(65535);
const postgresUrl = z
  .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })
  .describe('Postgres connection URL');
const hostPort = z
  .string()
  .regex(/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/, 'must be host:port');

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const secretsKey = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)');

const sharedSettings = {
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('richpush'),
  /**
   * Recording jobs' queue, polled by a second worker with slots of its own; unset, `<TEMPORAL_TASK_QUEUE>-interactive`.
   * The same name as TEMPORAL_TASK_QUEUE puts everything on one queue and one worker.
   */
  TEMPORAL_INTERACTIVE_TASK_QUEUE: z.string().min(1).optional(),
  LOG_LEVEL: logLevel.default('info'),
  /** Temporal Cloud's API key; set, the connection uses TLS (src/temporal/access.ts). */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** TLS to Temporal without a client certificate (a cluster behind a TLS-terminating frontend). */
  TEMPORAL_TLS: z.stringbool().default(false),
  /** mTLS to Temporal: the client certificate and its key (PEM files), both or neither. */
  TEMPORAL_TLS_CERT_FILE: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY_FILE: z.string().min(1).optional(),
  /** Encrypts secrets kept in Postgres (endpoint signing secrets, provider credentials). */
  SECRETS_KEY: secretsKey,
  /** Comma-separated CIDRs that outbound URLs may reach although they are private (tests, private deployments). */
  OUTBOUND_ALLOW_CIDRS: z.string().optional(),
};

/**
 * The metrics listener (GET /metrics, Prometheus text format) of a process: off unless METRICS_PORT is set, on its own
 * port, never on the public API port. METRICS_HOST is loopback by default; a container sets 0.0.0.0 without
 * publishing the port, so only its network can scrape it.
 */
const metricsSettings = {
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
};

/** The Temporal SDK's own Prometheus exporter (worker slots, polls, task latencies), on METRICS_HOST; off when unset. */
const temporalMetricsSettings = {
  TEMPORAL_METRICS_PORT: port.optional(),
};

/**
 * What one worker process runs: `all` (the default) polls both task queues and runs the outbox relays; `bulk` polls
 * the bulk queue and runs the relays; `interactive` polls only the recording jobs' queue. Splitting them lets a
 * deployment give bulk work a lower CPU priority (docs/operations.md, "Worker roles").
 */
export const workerRoles = ['all', 'bulk', 'interactive'] as const;
export type WorkerRole = (typeof workerRoles)[number];

/** A worker that polls only one of the two queues needs two queues to split. */
function checkWorkerRole(
  config: { WORKER_ROLE: WorkerRole; TEMPORAL_TASK_QUEUE: string; TEMPORAL_INTERACTIVE_TASK_QUEUE?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (config.WORKER_ROLE === 'all' || config.TEMPORAL_INTERACTIVE_TASK_QUEUE !== config.TEMPORAL_TASK_QUEUE) return;
  ctx.addIssue({
    code: 'custom',
    path: ['WORKER_ROLE'],
    message: `must be all while TEMPORAL_INTERACTIVE_TASK_QUEUE is TEMPORAL_TASK_QUEUE (one queue cannot be split)`,
    input: config.WORKER_ROLE,
  });
}

/**
 * Worker versioning (docs/operations.md, "Rolling out workflow code"): a worker that names its deployment polls as
 * that deployment's version `WORKER_BUILD_ID` (the image's version), and runs pin to the version that started them.
 */
const deploymentSettings = {
  /** Unset: the worker is unversioned, as in embedded mode and docker-compose.yml. */
  WORKER_DEPLOYMENT_NAME: z.string().min(1).optional(),
  WORKER_BUILD_ID: z.string().min(1).optional(),
};

function checkDeploymentSettings(config: { WORKER_DEPLOYMENT_NAME?: string | undefined; WORKER_BUILD_ID?: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.WORKER_DEPLOYMENT_NAME === undefined || config.WORKER_BUILD_ID !== undefined) return;
  ctx.addIssue({ code: 'custom', path: ['WORKER_BUILD_ID'], message: 'is required with WORKER_DEPLOYMENT_NAME (the version this worker runs)', input: undefined });
}

/** A client certificate needs its key, and a key its certificate. */
function checkTemporalTls(config: { TEMPORAL_TLS_CERT_FILE?: string | undefined; TEMPORAL_TLS_KEY_FILE?: string | undefined }, ctx: z.RefinementCtx): void {
  const [present, absent] = config.TEMPORAL_TLS_CERT_FILE ? ['TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_KEY_FILE'] : ['TEMPORAL_TLS_KEY_FILE', 'TEMPORAL_TLS_CERT_FILE'];
  if ((config.TEMPORAL_TLS_CERT_FILE === undefined) === (config.TEMPORAL_TLS_KEY_FILE === undefined)) return;
  ctx.addIssue({ code: 'custom', path: [absent], message: `when ${present} is set` });
}

/** Two listeners of one process cannot share a port; the public one and the metrics ones are named in the message. */
function checkDistinctPorts(config: { PORT?: number; METRICS_PORT?: number | undefined; TEMPORAL_METRICS_PORT?: number | undefined }, ctx: z.RefinementCtx): void {
  const ports = (['PORT', 'METRICS_PORT', 'TEMPORAL_METRICS_PORT'] as const).filter((name) => config[name] !== undefined);
  for (const [index, name] of ports.entries()) {
    const earlier = ports.slice(0, index).find((other) => config[other] === config[name]);
    if (earlier) ctx.addIssue({ code: 'custom', path: [name], message: `must differ from ${earlier}`, input: config[name] });
  }
}

const ingestSettings = {
  INGEST_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(50),
  INGEST_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  /** Public base of inbound URLs, e.g. https://ingest.example.com; the request's own origin when unset. */
  INGEST_BASE_URL: z.url().optional(),
};

/** The worker's ingest relay (outbox → ingestBatch runs); see docs/operations.md. */
const ingestRelaySettings = {
  INGEST_RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(200),
  INGEST_RELAY_CHUNK_SIZE: z.coerce.number().int().min(1).max(1000).default(25),
  INGEST_RELAY_LANES: z.coerce.number().int().min(0).max(32).default(2),
  INGEST_RELAY_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  INGEST_RELAY_LINGER_MS: z.coerce.number().int().min(0).max(5_000).default(100),
};

const deliverySettings = {
  DELIVERY_RETRY_INITIAL_MS: z.coerce.number().int().min(1).default(5000),
  DELIVERY_RETRY_BACKOFF: z.coerce.number().min(1).default(3),
  DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(12),
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  ENDPOINT_DISABLE_AFTER_HOURS: z.coerce.number().positive().default(120),
};
/** The delivery settings when none is set: the benches run the production schedule from here, not from a copy. */
export const deliveryConfigDefaults = z.object(deliverySettings).parse({});

/** How pushes leave the worker: `log` records them as sent and calls nothing; `fcm` calls Firebase Cloud Messaging. */
const pushProviders = ['log', 'fcm'] as const;
/**
 * `npm start` only: `fake-fcm` sends through the FCM provider to the project's fake FCM on this machine, whose answers
 * DATA_DIR/fake-fcm.json scripts (src/dev/local-fcm.ts). The production roles refuse it.
 */
const embeddedPushProviders = [...pushProviders, 'fake-fcm'] as const;

/** The worker's delivery relay (src/outbox/delivery-relay.ts); the API has none. */
const deliveryRelaySettings = {
  /** Deliveries one run sends at most: at most 64, as the run lists their ids in one search attribute (2 KB). */
  DELIVERY_BATCH_MAX: z.coerce.number().int().min(1).max(64).default(50),
  /** Batches claimed and started side by side. */
  DELIVERY_RELAY_LANES: z.coerce.number().int().min(1).max(16).default(2),
  /** How often the relay looks for work without a NOTIFY. */
  DELIVERY_RELAY_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Under load (the last claim found deliveries), wait this long before the next claim so batches fill. */
  DELIVERY_RELAY_LINGER_MS: z.coerce.number().int().min(0).max(1_000).default(20),
  /** A batch claimed this long ago and never started (its relay died in between) is started again. */
  DELIVERY_RELAY_RECOVER_AFTER_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
};

const pushSettings = {
  PUSH_PROVIDER: z.enum(pushProviders).default('log'),
  /** A Firebase service account key (JSON); required when PUSH_PROVIDER is fcm. Read when the worker starts. */
  FCM_SERVICE_ACCOUNT_FILE: z.string().optional(),
  FCM_BASE_URL: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).default('https://fcm.googleapis.com'),
  /**
   * FCM requests in flight at once (FCM v1 takes one message per request): at FCM's ~50 ms a request, 100 in flight
   * is ~2,000 a second per worker.
   */
  FCM_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  /** Messages per minute to the project, across every send and worker of the deployment: FCM's default quota. */
  FCM_MAX_PER_MINUTE: z.coerce.number().int().min(1).max(100_000_000).default(600_000),
};

/** The combinations a field schema cannot see: FCM needs its service account file. */
function checkPushSettings(config: { PUSH_PROVIDER: string; FCM_SERVICE_ACCOUNT_FILE?: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.PUSH_PROVIDER === 'fcm' && config.FCM_SERVICE_ACCOUNT_FILE === undefined) {
    ctx.addIssue({ code: 'custom', path: ['FCM_SERVICE_ACCOUNT_FILE'], message: 'when PUSH_PROVIDER is fcm' });
  }
}

/**
 * Recording files (docs/recordings.md): the largest file an upload may send, which storage enforces while it
 * streams the body, and the longest take. At most 300 s: at about 64 kbps a delivery file then stays well under the
 * 5 MB that iOS takes for a notification's audio.
 */
const recordingSettings = {
  RECORDING_MAX_BYTES: z.coerce.number().int().min(1024).max(2 ** 31).default(52_428_800),
  RECORDING_MAX_SECONDS: z.coerce.number().int().min(2).max(300).default(120),
};
/** The recording limits when none is set, for callers that build settings by hand (tests, benches). */
export const recordingConfigDefaults = z.object(recordingSettings).parse({});

/**
 * How long the worker keeps recording files nobody plays (the retention schedule, docs/recordings.md): takes not
 * selected, this many days after their job ended, and uploads never used. Rejected files go after a day.
 */
const retentionSettings = {
  RECORDING_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
};
export const retentionConfigDefaults = z.object(retentionSettings).parse({});

/**
 * Where the service keeps its files (recordings): `local` under DATA_DIR/files (one machine, or a volume the API and
 * the worker share), or `s3`, a bucket of an S3-compatible server whose credentials come from the AWS SDK's standard
 * chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, a web identity, the instance's role), never from here.
 */
const storageSettings = {
  STORAGE_DRIVER: z.enum(storageDrivers).default('local'),
  /** Embedded mode's state (Postgres, Temporal, generated secrets) and the local storage driver's files. */
  DATA_DIR: z.string().min(1).default('.data'),
  /** An S3-compatible server's URL; AWS's own endpoint for S3_REGION when unset. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)')
    .optional(),
  /** Path-style URLs (`host/bucket/key`), which most S3-compatible servers need; AWS takes virtual-hosted ones. */
  S3_FORCE_PATH_STYLE: z.stringbool().default(false),
};

/** The s3 driver needs its bucket. */
function checkStorageSettings(config: { STORAGE_DRIVER: string; S3_BUCKET?: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.STORAGE_DRIVER === 's3' && config.S3_BUCKET === undefined) {
    ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'when STORAGE_DRIVER is s3' });
  }
}

/**
 * The service's public address, which the links it hands out start with (an artist's link, `{PUBLIC_URL}/artist/…`):
 * an absolute http(s) URL, with a path prefix behind a proxy, and no trailing slash (one is dropped). The production
 * roles require it: the worker builds links with no request to take an address from, and a link built from a
 * request's Host header would point wherever a caller says. Embedded mode defaults it to the API's own address.
 */
const publicUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .refine((value) => !/[?#]/.test(value), 'must have no query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

/**
 * What the API and the worker both need to hand out links: the service's public address (artist links, recording
 * URLs: docs/recordings.md), and how long an artist's link outlives its job's artistDueDate.
 */
const linkSettings = {
  PUBLIC_URL: publicUrl,
  ARTIST_LINK_GRACE_HOURS: z.coerce.number().int().min(0).max(8760).default(72),
};
/** The link settings when none is set, for callers that build settings by hand (tests, benches). */
export const artistLinkGraceHoursDefault = z.object({ ARTIST_LINK_GRACE_HOURS: linkSettings.ARTIST_LINK_GRACE_HOURS }).parse({}).ARTIST_LINK_GRACE_HOURS;

const apiSettings = {
  PORT: port.default(3000),
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters'),
  /** The Temporal UI's address (e.g. http://temporal-ui:8080), for the console's links to runs; none when unset. */
  TEMPORAL_UI_URL: z.url().optional(),
};

/**
 * The management API's rate limit (src/http/rate-limit.ts): requests a second per account on the API-key routes and
 * per admin token on the admin routes, plus a burst allowance per 10 s. Ingest has its own (INGEST_RATE_LIMIT_*).
 */
const apiRateLimitSettings = {
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(100),
  API_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
};
/** The limit when none is set, for callers that build the API's settings by hand (tests, benches). */
const apiRateLimitConfigDefaults = z.object(apiRateLimitSettings).parse({});
export const apiRateLimitDefaults = {
  perSecond: apiRateLimitConfigDefaults.API_RATE_LIMIT_PER_SECOND,
  burst: apiRateLimitConfigDefaults.API_RATE_LIMIT_BURST,
};

const productionSchemas = {
  api: z
    .object({
      ...sharedSettings,
      ...apiSettings,
      ...apiRateLimitSettings,
      ...deliverySettings,
      ...ingestSettings,
      ...metricsSettings,
      ...recordingSettings,
      ...storageSettings,
      ...linkSettings,
      DATABASE_URL: postgresUrl,
      TEMPORAL_ADDRESS: hostPort,
    })
    .superRefine(checkStorageSettings)
    .superRefine(checkDistinctPorts)
    .superRefine(checkTemporalTls),
  worker: z
    .object({
      ...sharedSettings,
      ...deliverySettings,
      ...deliveryRelaySettings,
      ...pushSettings,
      ...metricsSettings,
      ...temporalMetricsSettings,
      ...ingestRelaySettings,
      ...recordingSettings,
      ...retentionSettings,
      ...storageSettings,
      ...linkSettings,
      WORKER_ROLE: z.enum(workerRoles).default('all'),
      ...deploymentSettings,
      /** A workflow bundle built by `npm run bundle:workflows` from the same code; unset, the worker bundles at start. */
      WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
      DATABASE_URL: postgresUrl,
      /** A direct connection for the relays' LISTEN when DATABASE_URL goes through PgBouncer in transaction mode. */
      LISTEN_DATABASE_URL: postgresUrl.optional(),
      TEMPORAL_ADDRESS: hostPort,
    })
    .superRefine(checkPushSettings)
    .superRefine(checkStorageSettings)
    .superRefine(checkDistinctPorts)
    .superRefine(checkWorkerRole)
    .superRefine(checkDeploymentSettings)
    .superRefine(checkTemporalTls),
  /** `npm run deployment:promote`: makes a worker deployment's version the one new runs start on. */
  promote: z
    .object({
      LOG_LEVEL: sharedSettings.LOG_LEVEL,
      TEMPORAL_ADDRESS: hostPort,
      TEMPORAL_NAMESPACE: sharedSettings.TEMPORAL_NAMESPACE,
      TEMPORAL_API_KEY: sharedSettings.TEMPORAL_API_KEY,
      TEMPORAL_TLS: sharedSettings.TEMPORAL_TLS,
      TEMPORAL_TLS_CERT_FILE: sharedSettings.TEMPORAL_TLS_CERT_FILE,
      TEMPORAL_TLS_KEY_FILE: sharedSettings.TEMPORAL_TLS_KEY_FILE,
      WORKER_DEPLOYMENT_NAME: z.string().min(1),
      WORKER_BUILD_ID: z.string().min(1),
    })
    .superRefine(checkTemporalTls),
  migrate: z.object({
    LOG_LEVEL: sharedSettings.LOG_LEVEL,
    DATABASE_URL: postgresUrl,
    /** A direct connection for migrations when DATABASE_URL goes through PgBouncer in transaction mode. */
    MIGRATION_DATABASE_URL: postgresUrl.optional(),
  }),
} as const;

const embeddedSchema = z
  .object({
    ...sharedSettings,
    ...deliverySettings,
    ...deliveryRelaySettings,
    ...apiRateLimitSettings,
    ...ingestSettings,
    ...ingestRelaySettings,
    ...pushSettings,
    ...metricsSettings,
    ...temporalMetricsSettings,
    ...recordingSettings,
    ...retentionSettings,
    PUSH_PROVIDER: z.enum(embeddedPushProviders).default('log'),
    ...storageSettings,
    ...linkSettings,
    /** Unset: the API's own address, http://127.0.0.1:<PORT> (src/main/start.ts). */
    PUBLIC_URL: publicUrl.optional(),
    SECRETS_KEY: secretsKey.optional(),
    PORT: apiSettings.PORT,
    ADMIN_TOKEN: apiSettings.ADMIN_TOKEN.optional(),
    DATABASE_URL: postgresUrl.optional(),
    TEMPORAL_ADDRESS: hostPort.optional(),
    /** Ports of the embedded Temporal dev server, when TEMPORAL_ADDRESS is unset. */
    TEMPORAL_DEV_PORT: port.default(7233),
    TEMPORAL_UI_PORT: port.default(8233),
    /** Unset: the embedded Temporal UI's address when the dev server is embedded (src/main/start.ts). */
    TEMPORAL_UI_URL: apiSettings.TEMPORAL_UI_URL,
  })
  .superRefine(checkPushSettings)
  .superRefine(checkStorageSettings)
  .superRefine(checkDistinctPorts)
  .superRefine(checkTemporalTls);

export type Role = keyof typeof productionSchemas;
export type ApiConfig = z.infer<(typeof productionSchemas)['api']>;
export type WorkerConfig = z.infer<(typeof productionSchemas)['worker']>;
export type MigrateConfig = z.infer<(typeof productionSchemas)['migrate']>;
export type PromoteConfig = z.infer<(typeof productionSchemas)['promote']>;
export type EmbeddedConfig = z.infer<typeof embeddedSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parseWith<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.');
    const absent = present[variable] === undefined;
    // A custom issue on an absent variable is a conditional requirement; its message says the condition.
    if (absent && issue.code === 'custom') return `${variable} is required ${issue.message}`;
    const missing = issue.code === 'invalid_type' && absent;
    return `${variable} ${missing ? 'is required' : `is invalid: ${issue.message}`}`;
  });
  throw new ConfigError(`Configuration error: ${problems.join('; ')}`);
}

export function loadConfig(role: 'api', env?: NodeJS.ProcessEnv): ApiConfig;
export function loadConfig(role: 'worker', env?: NodeJS.ProcessEnv): WorkerConfig;
export function loadConfig(role: 'migrate', env?: NodeJS.ProcessEnv): MigrateConfig;
export function loadConfig(role: 'promote', env?: NodeJS.ProcessEnv): PromoteConfig;
export function loadConfig(role: Role, env: NodeJS.ProcessEnv = process.env) {
  return parseWith(productionSchemas[role], env);
}

export function loadEmbeddedConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedConfig {
  return parseWith(embeddedSchema, env);
}

/** The settings a deployment must give a role, because they have no default. Used to check docker-compose.yml. */
export function requiredSettings(role: Role): string[] {
  const shape = productionSchemas[role].shape as Record<string, z.ZodType>;
  return Object.entries(shape)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([name]) => name)
    .sort();
}

/** Every setting a role reads, by name. Used to check that deployments (the Helm chart) set only settings that exist. */
export function settingNames(role: Role): string[] {
  return Object.keys(productionSchemas[role].shape).sort();
}

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deliveryConfigDefaults } from '../../src/config.ts';
import type { DeliverySettings } from '../../src/domain/deliveries/delivery-settings.ts';
import { freePort } from '../../src/dev/free-port.ts';
import { startEmbeddedTemporal } from '../../src/dev/embedded-temporal.ts';
import type { ApiServices } from '../../src/http/services.ts';
import type { Logger } from '../../src/logger.ts';
import { connectOrm, migrateUp, type Orm } from '../../src/persistence/orm.ts';
import { generateSecretsKey } from '../../src/security/secret-box.ts';
import { startApiServer, type RunningApi } from '../../src/service/api-server.ts';
import { apiSettingsFrom, closeApiServices, createApiServices, deliverySettingsFrom, type ServiceSettings } from '../../src/service/compose.ts';
import { startServiceWorker, type ServiceWorker } from '../../src/service/worker-process.ts';
import { createTemporalClients, type TemporalClients } from '../../src/temporal/client.ts';
import { writeWorkflowBundle } from '../../src/temporal/workflow-bundle.ts';
import { installTemporalRuntime } from '../../src/temporal/worker.ts';
import { startEntryPoint, type StartedEntryPoint } from '../../test/support/entry-point.ts';
import { createTestDatabase } from '../../test/support/test-database.ts';
import { createBenchLogger } from './logger.ts';

type Progress = (message: string) => void;

/**
 * What a bench has started, stopped once and last first, however many callers ask (the signal handler and the end
 * of the run). A step added once teardown has begun (something that was still starting when the signal came) is
 * stopped as soon as it is added, and `run()` waits for it as well.
 */
export class Teardown {
  readonly #progress: Progress;
  readonly #steps: Array<[string, () => Promise<unknown>]> = [];
  #done: Promise<void> | undefined;

  constructor(progress: Progress) {
    this.#progress = progress;
  }

  add(name: string, step: () => Promise<unknown>): void {
    if (this.#done === undefined) this.#steps.push([name, step]);
    else this.#done = this.#done.then(() => this.#stop(name, step));
  }

  /** Stops everything added so far (once); the same promise, extended by late additions, for every caller. */
  run(): Promise<void> {
    this.#done ??= (async () => {
      for (let entry = this.#steps.pop(); entry; entry = this.#steps.pop()) await this.#stop(...entry);
    })();
    return this.#done;
  }

  async #stop(name: string, step: () => Promise<unknown>): Promise<void> {
    this.#progress(`stopping: ${name}`);
    await step().catch((error: unknown) => this.#progress(`cleanup of ${name} failed: ${String(error)}`));
  }
}

export interface BenchContext {
  logger: Logger;
  teardown: Teardown;
  /** Aborted on SIGINT/SIGTERM: loops and waits should stop early. */
  signal: AbortSignal;
}

/**
 * Runs a bench's `main` and owns its end: the exit code, and a teardown that runs exactly once. On SIGINT or SIGTERM
 * the signal is aborted and the teardown starts at once (so calls blocked on the servers fail fast); the process
 * exits 130 once `main` has settled too (at most 15 s later) and anything it started meanwhile has been stopped.
 * A second signal exits at once.
 */
export function runBench(progress: Progress, main: (context: BenchContext) => Promise<number>): void {
  const logger = createBenchLogger();
  installTemporalRuntime(logger);
  const teardown = new Teardown(progress);
  const interrupt = new AbortController();
  let settled: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) process.exit(130);
    progress(`${signal}: tearing down`);
    interrupt.abort();
    void (async () => {
      await teardown.run();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, 15_000)))]);
      clearTimeout(timer);
      await teardown.run();
    })().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  settled = main({ logger, teardown, signal: interrupt.signal })
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        progress(interrupt.signal.aborted ? `interrupted: ${String(error)}` : `failed: ${(error as Error).stack ?? String(error)}`);
        process.exitCode = 1;
      },
    )
    .then(() => teardown.run())
    .then(() => {
      if (interrupt.signal.aborted) return;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      progress('done');
    });
}

/** The delivery schedule of src/config.ts's defaults, which every bench runs with unless it asks for another. */
const productionDelivery: DeliverySettings = deliverySettingsFrom(deliveryConfigDefaults);

export interface StackOptions {
  taskQueue: string;
  /** Recording jobs' queue; unset, `<taskQueue>-interactive` (as the service derives it). */
  interactiveTaskQueue?: string;
  namespace?: string;
  /** How deliveries retry; unset, the configuration's defaults (`productionDelivery`). */
  delivery?: DeliverySettings;
  outboundAllowCidrs?: string;
  /** Keep the dev server's state in this SQLite file (as `npm start` does), with these pragmas; in memory when absent. */
  temporalDb?: { filename: string; sqlitePragmas?: Record<string, string> | undefined } | undefined;
  /** Run the dev server under `nice -n` this value (see `startEmbeddedTemporal`); 0 or unset, the bench's priority. */
  temporalNiceness?: number | undefined;
}

const benchPublicUrl = 'http://bench.invalid';

/** The shared part of every bench's stack: a scratch database (migrated), a Temporal dev server, the bundle. */
export interface Stack {
  settings: ServiceSettings;
  /** The workflow bundle's file, which every worker of the bench loads (WORKFLOW_BUNDLE_PATH for a process). */
  bundle: { codePath: string };
  /** The worker's pool (connectOrm's default size), also used for set-up through the domain functions. */
  workerOrm: Orm;
  /** A plain client for the bench's own queries. */
  sql: pg.Client;
  /** The bench's own Temporal client (visibility counts, histories). */
  temporal: TemporalClients;
}

/**
 * Starts, in order: a scratch database (on DATABASE_URL, else embedded PostgreSQL), the Temporal dev server (in
 * memory), the workflow bundle, the worker's ORM pool (migrations applied), a SQL client and a Temporal client.
 * Each is added to the teardown as soon as it exists.
 */
export async function startStack(context: BenchContext, progress: Progress, options: StackOptions): Promise<Stack> {
  const { logger, teardown } = context;
  const namespace = options.namespace ?? 'default';
  progress(process.env.DATABASE_URL ? 'creating a scratch database on DATABASE_URL' : 'starting embedded PostgreSQL');
  const database = await createTestDatabase(logger);
  teardown.add('database', database.drop);
  context.signal.throwIfAborted();

  progress(`starting the Temporal dev server (${options.temporalDb ? `SQLite file ${options.temporalDb.filename}` : 'in memory'})`);
  const temporalServer = await startEmbeddedTemporal({
    namespace,
    progress,
    niceness: options.temporalNiceness,
    ...(options.temporalDb ? { dbFilename: options.temporalDb.filename, sqlitePragmas: options.temporalDb.sqlitePragmas } : {}),
  });
  teardown.add('Temporal dev server', temporalServer.stop);
  context.signal.throwIfAborted();

  progress('bundling workflow code');
  // Written once to a file, as the image does (`npm run bundle:workflows`): in-process workers and worker processes
  // load it instead of bundling again.
  const bundlePath = join(tmpdir(), `bench-workflow-bundle-${randomBytes(4).toString('hex')}.js`);
  teardown.add('workflow bundle file', () => rm(bundlePath, { force: true }));
  await writeWorkflowBundle(bundlePath, logger);
  const bundle = { codePath: bundlePath };

  const workerOrm = await connectOrm(database.url);
  teardown.add('worker ORM', () => workerOrm.close());
  const applied = await migrateUp(workerOrm);
  progress(`applied ${applied.length} migrations`);
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  teardown.add('SQL client', () => sql.end());

  const temporal = createTemporalClients(temporalServer.address, namespace);
  teardown.add('Temporal client', () => temporal.connection.close());
  context.signal.throwIfAborted();

  const settings: ServiceSettings = {
    databaseUrl: database.url,
    temporalAddress: temporalServer.address,
    namespace,
    taskQueue: options.taskQueue,
    interactiveTaskQueue: options.interactiveTaskQueue,
    secretsKey: generateSecretsKey(),
    // The benches follow no link the service hands out (an artist's link); `.invalid` says that this one leads nowhere.
    publicUrl: benchPublicUrl,
    outboundAllowCidrs: options.outboundAllowCidrs,
    delivery: options.delivery ?? productionDelivery,
    push: { provider: 'log' },
    logger,
  };
  return { settings, bundle, workerOrm, sql, temporal };
}

/** The real workers (`startServiceWorker`) on the stack's task queues, with the worker ORM pool. */
export async function startBenchWorker(context: BenchContext, progress: Progress, stack: Stack, options: { outboundCa?: string } = {}): Promise<ServiceWorker> {
  progress('starting the worker');
  const worker = await startServiceWorker(stack.settings, stack.workerOrm, { workflowBundle: stack.bundle, ...options });
  context.teardown.add('worker', worker.stop);
  context.signal.throwIfAborted();
  return worker;
}

export interface BenchApi {
  services: ApiServices;
  api: RunningApi;
}

/**
 * The management API's rate limit of a bench's API (in process or as its own process), unless the bench asks for
 * another: far above what any bench sends, so that the benches measure the service, not the limit. The limiter still
 * runs on every request, as in production. `API_RATE_LIMIT_PER_SECOND` and `API_RATE_LIMIT_BURST` in the bench's
 * environment set it instead (e.g. the defaults, 100 and 200, to see a bench under the production limit).
 */
export const benchApiRateLimit = {
  perSecond: positiveIntegerFromEnv('API_RATE_LIMIT_PER_SECOND', 1_000_000),
  burst: positiveIntegerFromEnv('API_RATE_LIMIT_BURST', 1_000_000),
};

function positiveIntegerFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${text}`);
  return value;
}

/**
 * The API as in its own process (`createApiServices`: its own ORM pool, unless `poolMax` asks for one of that size,
 * its own Temporal client, the Postgres rate limiter), served by `startApiServer` on a free loopback port.
 */
export async function startBenchApi(
  context: BenchContext,
  progress: Progress,
  stack: Stack,
  options: {
    poolMax?: number | undefined;
    /** The ingest limit of connections that set none (INGEST_RATE_LIMIT_*); unset, 100 a second and 200 more per 10 s. */
    rateLimit?: { perSecond: number; burst: number };
    /** The management API's limit (API_RATE_LIMIT_*); unset, `benchApiRateLimit`. */
    apiRateLimit?: { perSecond: number; burst: number };
  } = {},
): Promise<BenchApi> {
  const { teardown } = context;
  const apiOrm = options.poolMax === undefined ? undefined : await connectOrm(stack.settings.databaseUrl, options.poolMax);
  if (apiOrm) teardown.add('API ORM', () => apiOrm.close());
  const rateLimit = options.rateLimit ?? { perSecond: 100, burst: 200 };
  const apiRateLimit = options.apiRateLimit ?? benchApiRateLimit;
  const services = await createApiServices(
    apiSettingsFrom(stack.settings, {
      ADMIN_TOKEN: `adm_bench_${randomBytes(24).toString('hex')}`,
      API_RATE_LIMIT_PER_SECOND: apiRateLimit.perSecond,
      API_RATE_LIMIT_BURST: apiRateLimit.burst,
      INGEST_RATE_LIMIT_PER_SECOND: rateLimit.perSecond,
      INGEST_RATE_LIMIT_BURST: rateLimit.burst,
    }),
    apiOrm,
  );
  teardown.add('API services', () => closeApiServices(services, { keepOrm: apiOrm !== undefined }));
  const api = await startApiServer(0, services, '127.0.0.1');
  teardown.add('API server', api.close);
  progress(`API at ${api.url}`);
  context.signal.throwIfAborted();
  return { services, api };
}

/**
 * A service entry point as its own process (`startEntryPoint`) on the stack's database, Temporal server and task
 * queue, so that its CPU and memory are its own and it does not share the bench's event loop; stopped with SIGTERM
 * at teardown. Resolves with its ready log line (logged at `info`, which is why LOG_LEVEL is set here).
 */
async function startServiceProcess(
  context: BenchContext,
  stack: Stack,
  options: { name: string; entryPoint: string; readyMessage: string; env: NodeJS.ProcessEnv; niceness?: number | undefined },
): Promise<StartedEntryPoint> {
  const env = {
    PATH: process.env.PATH,
    LOG_LEVEL: 'info',
    DATABASE_URL: stack.settings.databaseUrl,
    TEMPORAL_ADDRESS: stack.settings.temporalAddress,
    TEMPORAL_NAMESPACE: stack.settings.namespace,
    TEMPORAL_TASK_QUEUE: stack.settings.taskQueue,
    SECRETS_KEY: stack.settings.secretsKey,
    PUBLIC_URL: stack.settings.publicUrl,
    WORKFLOW_BUNDLE_PATH: stack.bundle.codePath,
    ...(stack.settings.interactiveTaskQueue === undefined ? {} : { TEMPORAL_INTERACTIVE_TASK_QUEUE: stack.settings.interactiveTaskQueue }),
    // The relays' settings, so a bench can be run against other values (INGEST_RELAY_LINGER_MS=500 npm run bench:…).
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('INGEST_RELAY_') || name.startsWith('DELIVERY_RELAY_'))),
    ...options.env,
  };
  // A shared, busy machine (or a profiler) can take minutes to start a process: a minute was not always enough.
  const started = await startEntryPoint(options.entryPoint, env, options.readyMessage, { niceness: options.niceness, timeoutMs: 300_000 });
  const { child } = started;
  context.teardown.add(`${options.name} process`, async () => {
    // Gone already: exited, or killed by a signal (an out-of-memory abort leaves exitCode null and signalCode set).
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  return started;
}

/** The worker as its own process (`src/main/worker.ts`, as `npm run worker` runs it); see `startServiceProcess`. */
export async function startBenchWorkerProcess(
  context: BenchContext,
  stack: Stack,
  env: NodeJS.ProcessEnv = {},
  options: { niceness?: number } = {},
): Promise<ChildProcess> {
  const { child } = await startServiceProcess(context, stack, {
    name: env.WORKER_ROLE === undefined ? 'worker' : `${env.WORKER_ROLE} worker`,
    entryPoint: 'src/main/worker.ts',
    readyMessage: 'worker running',
    env,
    niceness: options.niceness,
  });
  return child;
}

/**
 * The API as its own process (`src/main/api.ts`, as `npm run api` runs it) on a free loopback port; resolves with its
 * URL and process id. A second API instance, as a deployment may serve ingest apart from job calls.
 */
export async function startBenchApiProcess(
  context: BenchContext,
  stack: Stack,
  env: NodeJS.ProcessEnv = {},
  options: { niceness?: number } = {},
): Promise<{ url: string; pid: number }> {
  const { line, child } = await startServiceProcess(context, stack, {
    name: 'API',
    niceness: options.niceness,
    entryPoint: 'src/main/api.ts',
    readyMessage: 'api listening',
    env: {
      PORT: String(await freePort()),
      ADMIN_TOKEN: `adm_bench_${randomBytes(24).toString('hex')}`,
      API_RATE_LIMIT_PER_SECOND: String(benchApiRateLimit.perSecond),
      API_RATE_LIMIT_BURST: String(benchApiRateLimit.burst),
      ...env,
    },
  });
  return { url: String(line.url), pid: child.pid! };
}

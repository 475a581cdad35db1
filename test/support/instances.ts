import type { ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { freePort } from '../../src/dev/free-port.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningApi } from '../../src/service/api-server.ts';
import type { ApiSettings } from '../../src/service/compose.ts';
import { localStorageRoot } from '../../src/storage/local-storage.ts';
import { startEntryPoint } from './entry-point.ts';

/** An address nothing listens on: a dependency that is down. */
export const unreachable = '127.0.0.1:9';

export type ApiInstance = RunningApi & { stop: () => Promise<void> };

/**
 * The management API's rate limit of the suite's API instances (test/global-setup.ts's too): far above what any
 * test sends, so that only test/api/api-rate-limit.test.ts, which asks for the defaults, meets it. The limiter
 * still runs on every request.
 */
export const suiteApiRateLimit = { perSecond: 100_000, burst: 100_000 };

/**
 * Another API instance in this process, on the run's database, Temporal server and task queue unless the test
 * chooses otherwise (one dependency down, another task queue, the default rate limit).
 */
export async function startApiInstance(overrides: Partial<ApiSettings> = {}): Promise<ApiInstance> {
  // Loaded on the first call, not with this module: the whole service takes seconds of CPU to load, and many files
  // import this one only to start child processes.
  const [{ closeApiServices, createApiServices }, { startApiServer }] = await Promise.all([import('../../src/service/compose.ts'), import('../../src/service/api-server.ts')]);
  const services = await createApiServices({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    namespace: inject('namespace'),
    taskQueue: inject('taskQueue'),
    adminToken: 'x'.repeat(32),
    apiRateLimit: suiteApiRateLimit,
    ingestRateLimit: { perSecond: 1000, burst: 1000 },
    secretsKey: inject('secretsKey'),
    // Links lead to the suite's API, whose worker makes them.
    publicUrl: inject('apiUrl'),
    delivery: inject('delivery'),
    logger: createLogger('silent'),
    files: suiteFileSettings(),
    ...overrides,
  });
  const api = await startApiServer(0, services, '127.0.0.1');
  return {
    ...api,
    async stop() {
      await api.close();
      await closeApiServices(services);
    },
  };
}

/** The recording settings of the suite's service: its storage folder, its ffmpeg, its limits. */
export const suiteFileSettings = () => ({
  storage: { driver: 'local' as const, root: localStorageRoot(inject('dataDir')) },
  limits: { maxBytes: inject('recordingMaxBytes'), maxSeconds: 120 },
  retentionDays: 30,
  media: { available: true as const, ffmpeg: { path: inject('ffmpegPath'), version: 'suite' } },
});

/** A TCP port free on loopback right now, for a child process's listener that must be named before it starts. */
export { freePort };

/** The settings every entry point of the service needs, on the run's database and Temporal server. */
const serviceEnv = (taskQueue: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  DATABASE_URL: inject('databaseUrl'),
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  TEMPORAL_NAMESPACE: inject('namespace'),
  TEMPORAL_TASK_QUEUE: taskQueue,
  SECRETS_KEY: inject('secretsKey'),
  PUBLIC_URL: inject('apiUrl'),
  OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
  LOG_LEVEL: 'info',
  // The suite's bundle, as the image's workers load theirs: no child worker spends seconds bundling at start.
  WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
  // The suite's ffmpeg and storage folder, shared with the suite's service.
  FFMPEG_PATH: inject('ffmpegPath'),
  DATA_DIR: inject('dataDir'),
  RECORDING_MAX_BYTES: String(inject('recordingMaxBytes')),
  // The compiled code the suite's processes share (test/support/node-compile-cache.ts).
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
});

/** How long a process may take to start, and where its output goes (startEntryPoint). */
type EntryPointOptions = { timeoutMs?: number; logPath?: string };

/**
 * `npm run worker` as production runs it, as a child process on `taskQueue`, resolved once it logs that it runs.
 * `env` adds settings, e.g. NODE_EXTRA_CA_CERTS to trust a test receiver; `options.timeoutMs`, how long it may take to start.
 */
export async function startWorkerProcess(taskQueue: string, env: NodeJS.ProcessEnv = {}, options: EntryPointOptions = {}): Promise<ChildProcess> {
  return (await startEntryPoint('src/main/worker.ts', { ...serviceEnv(taskQueue), ...env }, 'worker running', options)).child;
}

/**
 * `npm run api` as production runs it, as a child process on a free port and `taskQueue`, resolved with its URL once
 * it listens. `env` adds settings.
 */
export async function startApiProcess(taskQueue: string, env: NodeJS.ProcessEnv = {}, options: EntryPointOptions = {}): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const { child, line } = await startEntryPoint(
    'src/main/api.ts',
    {
      ...serviceEnv(taskQueue),
      ADMIN_TOKEN: 'x'.repeat(32),
      PORT: String(port),
      // The recording URLs its uploads get point at this API, which serves them from its own storage.
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      API_RATE_LIMIT_PER_SECOND: String(suiteApiRateLimit.perSecond),
      API_RATE_LIMIT_BURST: String(suiteApiRateLimit.burst),
      ...env,
    },
    'api listening',
    options,
  );
  return { child, url: String(line.url) };
}

/** SIGKILL: the worker dies at once, as in a crash, and this resolves when it is gone. */
export async function killWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

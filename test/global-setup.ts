import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { TestProject } from 'vitest/node';
import { ensureConsoleBuilt } from '../src/dev/console-build.ts';
import { startEmbeddedTemporal } from '../src/dev/embedded-temporal.ts';
import { provisionFfmpeg } from '../src/dev/ffmpeg-tool.ts';
import { mediaSupportOf } from '../src/media/index.ts';
import { createLogger } from '../src/logger.ts';
import { connectOrm, migrateUp } from '../src/persistence/orm.ts';
import { startApiServer } from '../src/service/api-server.ts';
import { closeApiServices, createApiServices, type ServiceSettings } from '../src/service/compose.ts';
import { startServiceWorker } from '../src/service/worker-process.ts';
import { generateSecretsKey } from '../src/security/secret-box.ts';
import { localStorageRoot } from '../src/storage/local-storage.ts';
import { writeWorkflowBundle } from '../src/temporal/workflow-bundle.ts';
import { installTemporalRuntime } from '../src/temporal/worker.ts';
import { freePort } from '../src/dev/free-port.ts';
import { generateLocalCertificate } from '../src/dev/local-certificate.ts';
import { createTestDatabase } from './support/test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    adminToken: string;
    databaseUrl: string;
    temporalAddress: string;
    temporalCliPath: string;
    namespace: string;
    taskQueue: string;
    workflowBundlePath: string;
    secretsKey: string;
    receiverCert: string;
    receiverKey: string;
    delivery: { retryInitialMs: number; retryBackoff: number; maxAttempts: number; timeoutMs: number; disableAfterHours: number };
    /** The ffmpeg the service processes recordings with: found, or installed once into the per-user cache. */
    ffmpegPath: string;
    /** The service's DATA_DIR: the local storage driver keeps recording files in its `files` folder. */
    dataDir: string;
    /** The service's RECORDING_MAX_BYTES: smaller than the default, so that a body over it is quick to send. */
    recordingMaxBytes: number;
  }
}

const progress = (message: string) => process.stderr.write(`[test setup] ${message}\n`);

/** Where the suite's service writes its errors when TEST_LOG_LEVEL is not set. */
const errorLogPath = join('test-output', 'service-errors.log');

/**
 * The service's logger: TEST_LOG_LEVEL's level on stdout when set; else its errors only, to a file, so that a 500 a
 * test met on a busy CI machine can be told afterwards (see reportUnexpectedErrors).
 */
async function suiteLogger() {
  if (process.env.TEST_LOG_LEVEL) return createLogger(process.env.TEST_LOG_LEVEL, 'test');
  await mkdir('test-output', { recursive: true });
  await rm(errorLogPath, { force: true });
  return createLogger('error', 'test', pino.destination({ dest: errorLogPath, sync: true }));
}

/** Prints each request the suite's API answered 500 (an unhandled error), with its stack: each is a bug to fix. */
async function reportUnexpectedErrors() {
  const lines = await readFile(errorLogPath, 'utf8').catch(() => '');
  const unhandled = lines
    .split('\n')
    .filter((line) => line.includes('"unhandled error"'))
    .map((line) => JSON.parse(line) as { requestId?: string; err?: { stack?: string } });
  for (const entry of unhandled) progress(`the API answered 500 to request ${entry.requestId}: ${entry.err?.stack ?? 'no stack'}`);
}

/** RECORDING_MAX_BYTES of the suite's service: 12 MiB, room for a 60 s 48 kHz stereo WAV (11 MiB). */
const recordingMaxBytes = 12 * 1024 * 1024;

/**
 * Starts the real parts once for the whole run: a Postgres database of its own, a Temporal dev server, the
 * workflow bundle, and the service itself (API and worker). Tests drive the API over HTTP.
 */
export default async function setup(project: TestProject) {
  const logger = await suiteLogger();
  installTemporalRuntime(logger);
  const namespace = 'default';
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const adminToken = `adm_test_${randomBytes(24).toString('hex')}`;
  const secretsKey = generateSecretsKey();
  const scratch = await mkdtemp(join(tmpdir(), 'rp-test-'));
  const cleanups: Array<() => Promise<unknown>> = [() => rm(scratch, { recursive: true, force: true }), reportUnexpectedErrors];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
  };

  try {
    progress(process.env.DATABASE_URL ? 'creating a test database on DATABASE_URL' : 'starting embedded PostgreSQL');
    const database = await createTestDatabase(logger);
    cleanups.push(database.drop);

    progress('starting the Temporal dev server');
    const temporal = await startEmbeddedTemporal({ namespace, progress });
    cleanups.push(temporal.stop);

    // The API serves the console's build; built here when its sources changed, as `npm start` does.
    await ensureConsoleBuilt(progress);

    progress('bundling workflow code');
    // As `npm run bundle:workflows` builds it for the image; the worker processes tests start load it too.
    const workflowBundlePath = join(scratch, 'workflow-bundle.js');
    await writeWorkflowBundle(workflowBundlePath, logger);

    progress('finding or installing ffmpeg');
    // As npm start does: FFMPEG_PATH, PATH, the per-user cache, else imageio-ffmpeg from PyPI, once.
    const ffmpeg = await provisionFfmpeg(progress);
    const dataDir = join(scratch, 'data');

    const orm = await connectOrm(database.url);
    cleanups.push(() => orm.close());
    await migrateUp(orm);

    const certificate = await generateLocalCertificate();
    // The API's port is chosen first: the links the service hands out (PUBLIC_URL) point at it, worker's included.
    const apiPort = await freePort();
    const settings: ServiceSettings = {
      databaseUrl: database.url,
      temporalAddress: temporal.address,
      namespace,
      taskQueue,
      secretsKey,
      publicUrl: `http://127.0.0.1:${apiPort}`,
      // The test receivers listen on loopback, which the address policy blocks unless allowed.
      outboundAllowCidrs: '127.0.0.0/8,::1/128',
      // Quick retries, so retry tests finish in seconds; the schedule's shape is the same as in production.
      delivery: { retryInitialMs: 200, retryBackoff: 2, maxAttempts: 4, timeoutMs: 1500, disableAfterHours: 120 },
      push: { provider: 'log' },
      logger,
      files: {
        storage: { driver: 'local', root: localStorageRoot(dataDir) },
        limits: { maxBytes: recordingMaxBytes, maxSeconds: 120 },
        retentionDays: 30,
        media: await mediaSupportOf(Promise.resolve(ffmpeg)),
      },
    };
    const worker = await startServiceWorker(settings, orm, { workflowBundle: { codePath: workflowBundlePath }, outboundCa: certificate.cert });
    cleanups.push(worker.stop);

    // The tests and the schemathesis run drive the API hard: its rate limit is far above what they send (the limiter
    // still runs on every request). test/api/api-rate-limit.test.ts starts an instance with the default limit.
    const apiRateLimit = { perSecond: 100_000, burst: 100_000 };
    const services = await createApiServices({ ...settings, adminToken, apiRateLimit, ingestRateLimit: { perSecond: 1000, burst: 1000 } }, orm);
    cleanups.push(() => closeApiServices(services, { keepOrm: true }));
    const api = await startApiServer(apiPort, services, '127.0.0.1');
    cleanups.push(api.close);
    progress(`service running at ${api.url}`);

    project.provide('apiUrl', api.url);
    project.provide('adminToken', adminToken);
    project.provide('databaseUrl', database.url);
    project.provide('temporalAddress', temporal.address);
    project.provide('temporalCliPath', temporal.cliPath);
    project.provide('namespace', namespace);
    project.provide('taskQueue', taskQueue);
    project.provide('workflowBundlePath', workflowBundlePath);
    project.provide('secretsKey', secretsKey);
    project.provide('receiverCert', certificate.cert);
    project.provide('receiverKey', certificate.key);
    project.provide('delivery', settings.delivery);
    project.provide('ffmpegPath', ffmpeg.path);
    project.provide('dataDir', dataDir);
    project.provide('recordingMaxBytes', recordingMaxBytes);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

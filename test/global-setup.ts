import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedTemporal } from '../src/embedded/temporal.ts';
import { createLogger } from '../src/logger.ts';
import { connectOrm, migrateUp } from '../src/persistence/orm.ts';
import { startApiServer } from '../src/service/api-server.ts';
import { createApiServices } from '../src/service/compose.ts';
import { bundleWorkflows } from '../src/temporal/workflow-bundle.ts';
import { installTemporalLogger, startWorker } from '../src/temporal/worker.ts';
import { createTestDatabase } from './support/test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    adminToken: string;
    databaseUrl: string;
    temporalAddress: string;
    namespace: string;
    taskQueue: string;
    workflowBundlePath: string;
  }
}

const progress = (message: string) => process.stderr.write(`[test setup] ${message}\n`);

/**
 * Starts the real parts once for the whole run: a Postgres database of its own, a Temporal dev server, the
 * workflow bundle, and the service itself (API and worker). Tests drive the API over HTTP.
 */
export default async function setup(project: TestProject) {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'test');
  installTemporalLogger(logger);
  const namespace = 'default';
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const adminToken = `adm_test_${randomBytes(24).toString('hex')}`;
  const scratch = await mkdtemp(join(tmpdir(), 'rp-test-'));
  const cleanups: Array<() => Promise<unknown>> = [() => rm(scratch, { recursive: true, force: true })];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
  };

  try {
    progress(process.env.DATABASE_URL ? 'creating a test database on DATABASE_URL' : 'starting embedded PostgreSQL');
    const database = await createTestDatabase(logger);
    cleanups.push(database.drop);

    progress('starting the Temporal dev server');
    const temporal = await startEmbeddedTemporal({ namespace, logger });
    cleanups.push(temporal.stop);

    progress('bundling workflow code');
    const bundle = await bundleWorkflows(logger);
    const workflowBundlePath = join(scratch, 'workflow-bundle.js');
    await writeFile(workflowBundlePath, bundle.code);

    const orm = await connectOrm(database.url);
    cleanups.push(() => orm.close());
    await migrateUp(orm);

    const worker = await startWorker({
      address: temporal.address,
      namespace,
      taskQueue,
      workflowBundle: { codePath: workflowBundlePath },
      deps: { orm, logger },
    });
    cleanups.push(worker.shutdown);

    const services = await createApiServices({
      databaseUrl: database.url,
      temporalAddress: temporal.address,
      namespace,
      taskQueue,
      adminToken,
      logger,
      orm,
    });
    cleanups.push(() => services.temporal.connection.close());
    const api = await startApiServer(0, services, '127.0.0.1');
    cleanups.push(api.close);
    progress(`service running at ${api.url}`);

    project.provide('apiUrl', api.url);
    project.provide('adminToken', adminToken);
    project.provide('databaseUrl', database.url);
    project.provide('temporalAddress', temporal.address);
    project.provide('namespace', namespace);
    project.provide('taskQueue', taskQueue);
    project.provide('workflowBundlePath', workflowBundlePath);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

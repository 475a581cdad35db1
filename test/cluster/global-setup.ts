import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedTemporal } from '../../src/dev/embedded-temporal.ts';
import { provisionFfmpeg } from '../../src/dev/ffmpeg-tool.ts';
import { freePort } from '../../src/dev/free-port.ts';
import { generateLocalCertificate } from '../../src/dev/local-certificate.ts';
import { createLogger } from '../../src/logger.ts';
import { generateSecretsKey } from '../../src/security/secret-box.ts';
import { writeWorkflowBundle } from '../../src/temporal/workflow-bundle.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { startPgBouncer } from './pgbouncer.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster test's database without PgBouncer: for LISTEN and migrations, as in production. */
    directDatabaseUrl: string;
    /** Where the cluster test writes its figures, which the set-up prints as one JSON line when the run ends. */
    figuresFile: string;
  }
}

/** The test's figures as one line on stdout, apart from vitest's report of the test (absent: the test did not get that far). */
async function printFigures(file: string): Promise<void> {
  const figures = await readFile(file, 'utf8').catch(() => undefined);
  if (figures !== undefined) process.stdout.write(`${figures.trim()}\n`);
}

const progress = (message: string) => process.stderr.write(`[cluster setup] ${message}\n`);

/**
 * The servers the many-process test (test/cluster/many-processes.cluster.ts) shares: a fresh database on DATABASE_URL
 * (else embedded PostgreSQL) behind a PgBouncer of its own in transaction mode, a Temporal dev server, the workflow
 * bundle, ffmpeg and a certificate for the local receivers. It provides what test/support's helpers `inject`, with
 * `databaseUrl` the PgBouncer address, so that every process they start goes through it; the processes themselves
 * are the test's, which kills some of them.
 */
export default async function setup(project: TestProject) {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'cluster');
  const scratch = await mkdtemp(join(tmpdir(), 'rp-cluster-'));
  const figuresFile = join(scratch, 'figures.json');
  // The processes' logs of the last run only (test/cluster/processes.ts).
  await rm(join('test-output', 'cluster'), { recursive: true, force: true });
  const cleanups: Array<() => Promise<unknown>> = [() => rm(scratch, { recursive: true, force: true }), () => printFigures(figuresFile)];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
  };
  try {
    progress(process.env.DATABASE_URL ? 'creating a database on DATABASE_URL' : 'starting embedded PostgreSQL');
    const database = await createTestDatabase(logger);
    cleanups.push(database.drop);
    const bouncer = await startPgBouncer(database.url);
    cleanups.push(bouncer.stop);
    progress(`PgBouncer in transaction mode at ${new URL(bouncer.url).host}`);

    progress('starting the Temporal dev server');
    const temporal = await startEmbeddedTemporal({ namespace: 'default', progress });
    cleanups.push(temporal.stop);

    const workflowBundlePath = join(scratch, 'workflow-bundle.js');
    await writeWorkflowBundle(workflowBundlePath, logger);
    const ffmpeg = await provisionFfmpeg(progress);
    const certificate = await generateLocalCertificate();
    // The surviving API's port is chosen here: PUBLIC_URL and the helpers' default base URL point at it.
    const apiPort = await freePort();

    project.provide('apiUrl', `http://127.0.0.1:${apiPort}`);
    // The admin token test/support/instances.ts gives the API processes it starts.
    project.provide('adminToken', 'x'.repeat(32));
    project.provide('databaseUrl', bouncer.url);
    project.provide('directDatabaseUrl', database.url);
    project.provide('figuresFile', figuresFile);
    project.provide('temporalAddress', temporal.address);
    project.provide('temporalCliPath', temporal.cliPath);
    project.provide('namespace', 'default');
    project.provide('taskQueue', `cluster-${randomBytes(4).toString('hex')}`);
    project.provide('workflowBundlePath', workflowBundlePath);
    project.provide('secretsKey', generateSecretsKey());
    project.provide('receiverCert', certificate.cert);
    project.provide('receiverKey', certificate.key);
    project.provide('ffmpegPath', ffmpeg.path);
    project.provide('dataDir', join(scratch, 'data'));
    project.provide('recordingMaxBytes', 12 * 1024 * 1024);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

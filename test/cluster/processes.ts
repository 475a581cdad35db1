import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { nodeFlagsOf } from '../../src/main/node-flags.ts';
import { startApiProcess, startWorkerProcess } from '../support/instances.ts';

// The cluster's processes, each from its production entry point (test/support/instances.ts starts them) with the
// settings a deployment behind PgBouncer has: DATABASE_URL through PgBouncer (the `databaseUrl` the cluster's set-up
// provides), LISTEN_DATABASE_URL and MIGRATION_DATABASE_URL direct.

export type WorkerRole = 'bulk' | 'interactive';

/** What a migrate process said and how it ended. */
export interface MigrateOutcome {
  code: number | null;
  messages: string[];
}

/** A process started beside four others on a busy machine may take minutes to say it is ready. */
const startTimeout = { timeoutMs: 240_000 };

const directSettings = (): NodeJS.ProcessEnv => ({ LISTEN_DATABASE_URL: inject('directDatabaseUrl'), MIGRATION_DATABASE_URL: inject('directDatabaseUrl') });

/** `npm run migrate` (`node src/main/migrate.ts`) to its end; its log lines' messages. */
export function migrate(): Promise<MigrateOutcome> {
  const script = 'src/main/migrate.ts';
  const env = { PATH: process.env.PATH, LOG_LEVEL: 'info', DATABASE_URL: inject('databaseUrl'), ...directSettings() };
  const child = spawn(process.execPath, [...nodeFlagsOf(script), script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      const messages = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));
      resolve({ code, messages: code === 0 ? messages : [...messages, output] });
    });
  });
}

/** The cluster's worker settings: its push path (a fake FCM), the receivers' CA, and the direct URLs. */
export function clusterWorker(role: WorkerRole, pushEnv: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return startWorkerProcess(inject('taskQueue'), { ...pushEnv, ...directSettings(), WORKER_ROLE: role }, startTimeout);
}

/** An API process; `port` for the one whose address the helpers call by default (`apiUrl`). */
export function clusterApi(caFile: string, port?: number): Promise<{ child: ChildProcess; url: string }> {
  const fixed = port === undefined ? {} : { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
  // The ingest limit far above the load: the test counts what the processes lose, not what the limit refuses.
  const ingestLimit = { INGEST_RATE_LIMIT_PER_SECOND: '10000', INGEST_RATE_LIMIT_BURST: '10000' };
  return startApiProcess(inject('taskQueue'), { NODE_EXTRA_CA_CERTS: caFile, ...directSettings(), ...ingestLimit, ...fixed }, startTimeout);
}

/** Sends `signal` and resolves once the process is gone (at once when it already is). */
export async function signalAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

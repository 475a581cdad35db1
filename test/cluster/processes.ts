import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** Each process's output (its log lines at LOG_LEVEL info) goes to a file of its own here, to read after a run. */
const logFolder = join('test-output', 'cluster');
let started = 0;

/** The log file of the next process named `name`, in a folder emptied by the cluster's set-up. */
function logPathFor(name: string): string {
  mkdirSync(logFolder, { recursive: true });
  return join(logFolder, `${String(++started).padStart(2, '0')}-${name}.log`);
}

/** The processes the test stopped itself: any other exit is a crash, said at once with the end of its log. */
const stopping = new WeakSet<ChildProcess>();
let crashed: (error: Error) => void = () => {};
/** Rejects when the first process exits on its own, so that the test fails then rather than at its timeout. */
const firstCrash = new Promise<never>((_, reject) => (crashed = reject));
firstCrash.catch(() => {});

/** `work`, or the first crash of a process if that comes sooner. */
export function unlessCrashed<T>(work: Promise<T>): Promise<T> {
  return Promise.race([work, firstCrash]);
}

/**
 * Says on stderr when `child` exits without the test having stopped it (its exit code or signal and its log's last
 * lines): a process that died on its own leaves the rest of the cluster waiting for work nobody does.
 */
function reportCrash(child: ChildProcess, name: string, logPath: string, progress: (message: string) => void): void {
  child.once('exit', (code, signal) => {
    if (stopping.has(child)) return;
    const tail = readFileSync(logPath, 'utf8').split('\n').slice(-30).join('\n');
    progress(`${name} (pid ${child.pid}) exited on its own (code ${code}, signal ${signal}); the end of ${logPath}:\n${tail}`);
    crashed(new Error(`${name} exited on its own (code ${code}, signal ${signal}): see ${logPath}`));
  });
}

/** The cluster's worker settings: its push path (a fake FCM), the receivers' CA, and the direct URLs. */
export async function clusterWorker(role: WorkerRole, pushEnv: NodeJS.ProcessEnv, progress: (message: string) => void): Promise<ChildProcess> {
  const logPath = logPathFor(`worker-${role}`);
  const child = await startWorkerProcess(inject('taskQueue'), { ...pushEnv, ...directSettings(), WORKER_ROLE: role }, { ...startTimeout, logPath });
  reportCrash(child, `the ${role} worker`, logPath, progress);
  return child;
}

/** An API process; `port` for the one whose address the helpers call by default (`apiUrl`). */
export async function clusterApi(caFile: string, progress: (message: string) => void, port?: number): Promise<{ child: ChildProcess; url: string }> {
  const fixed = port === undefined ? {} : { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
  // The ingest limit far above the load: the test counts what the processes lose, not what the limit refuses.
  const ingestLimit = { INGEST_RATE_LIMIT_PER_SECOND: '10000', INGEST_RATE_LIMIT_BURST: '10000' };
  const logPath = logPathFor('api');
  const api = await startApiProcess(inject('taskQueue'), { NODE_EXTRA_CA_CERTS: caFile, ...directSettings(), ...ingestLimit, ...fixed }, { ...startTimeout, logPath });
  reportCrash(api.child, `the API at ${api.url}`, logPath, progress);
  return api;
}

/** Sends `signal` and resolves once the process is gone (at once when it already is). */
export async function signalAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { searchAttributes } from '../sandbox-safe/search-attributes.ts';
import { temporalCli } from './cli-path.ts';
import { sessionLauncher } from './detached-launch.ts';
import { freePort } from './free-port.ts';
import { provisionOnThisMachine } from './provision-cli.ts';
import { exitOf, stopProcess, tailOf } from './server-process.ts';
import { serverDynamicConfig } from '../temporal/server-dynamic-config.ts';

export interface EmbeddedTemporal {
  address: string;
  /** The CLI binary the server runs, for other `temporal` commands. */
  cliPath: string;
  uiUrl: string | undefined;
  stop: () => Promise<void>;
}

export interface EmbeddedTemporalOptions {
  namespace: string;
  /** SQLite file that keeps workflow history across restarts; in memory when absent. */
  dbFilename?: string;
  /**
   * SQLite pragmas for the file (`--sqlite-pragma`); `fileSqlitePragmas` when absent. Pass `{}` for SQLite's own
   * defaults (rollback journal, synchronous=FULL), which the delivery bench measures as "untuned".
   */
  sqlitePragmas?: Record<string, string> | undefined;
  port?: number;
  uiPort?: number;
  /** Where the CLI lookup reports its steps; stderr when absent. */
  progress?: (line: string) => void;
  /** The environment the CLI is looked up in (TEMPORAL_CLI_PATH, PATH, the cache); this process's when absent. */
  env?: NodeJS.ProcessEnv;
  /**
   * Runs the server under `nice -n <niceness>`, its session's scheduling group at that niceness too
   * (`weightedLaunchScript`; a negative value needs the privilege to raise a priority; without it `nice` warns and
   * the server runs at the caller's priority). 0 or absent: the caller's priority.
   */
  niceness?: number | undefined;
  /** How long the server may take to answer before the start fails; 60 s when absent. */
  startTimeoutMs?: number;
}

/**
 * The file-backed server's tuning (docs/adr/0031-the-file-backed-dev-server-runs-sqlite-with-wal.md): a write-ahead log instead of the
 * rollback journal, and fsync at checkpoints rather than at every commit. A crash of the machine (not of the process)
 * may lose the last commits; the service's own state is in Postgres, and a run lost this way is one a relay or a
 * retry starts again.
 */
export const fileSqlitePragmas: Record<string, string> = { journal_mode: 'wal', synchronous: 'normal' };


/**
 * Runs `temporal server start-dev` with this project's search attributes registered. The CLI is found or installed
 * first (src/dev/provision-cli.ts). The server runs as a session of its own (src/dev/detached-launch.ts), so a
 * Ctrl-C reaches only the service, which stops it after the worker; its start-up banner is not printed (the caller
 * prints the addresses), and it logs errors only: its own shutdown warns of every poll it cuts short.
 *
 * The process is started here rather than by the SDK's `TestWorkflowEnvironment.createLocal`, which gives a server
 * five seconds to answer: a file-backed server on a busy two-core machine can take longer, and then the start
 * failed (docs/adr/0058-the-embedded-temporal-server-is-started-by-the-service.md).
 */
export async function startEmbeddedTemporal(options: EmbeddedTemporalOptions): Promise<EmbeddedTemporal> {
  const cliPath = await provisionOnThisMachine(temporalCli, options.progress, options.env);
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const launcher = sessionLauncher(cliPath, { parentPid: process.pid, niceness: options.niceness, quiet: true });
  const server = spawn('/bin/sh', ['-c', launcher, cliPath, ...startDevArguments(options, port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const errors = tailOf(server);
  const stop = () => stopProcess(server);
  try {
    await untilAnswering(address, options.namespace, server, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    const output = errors().trim();
    throw new Error(`the Temporal dev server at ${address} did not start: ${(error as Error).message}${output ? `\n${output}` : ''}`, { cause: error });
  }
  return { address, cliPath, uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined, stop };
}

/** `temporal server start-dev`'s arguments, as the SDK's dev server passes them, plus this service's own. */
function startDevArguments(options: EmbeddedTemporalOptions, port: number): string[] {
  const pragmas = options.dbFilename ? Object.entries(options.sqlitePragmas ?? fileSqlitePragmas) : [];
  return [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--namespace', options.namespace,
    '--log-format', 'json',
    '--log-level', 'error',
    ...Object.entries(serverDynamicConfig).flatMap(([name, value]) => ['--dynamic-config-value', `${name}=${String(value)}`]),
    ...(options.dbFilename ? ['--db-filename', options.dbFilename] : []),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']),
    ...searchAttributes.flatMap(({ name, type }) => ['--search-attribute', `${name}=${TypedSearchAttributes.toMetadataType(type)}`]),
    ...pragmas.flatMap(([name, value]) => ['--sqlite-pragma', `${name}=${value}`]),
  ];
}

/** Waits until the server describes `namespace`, failing at the deadline or as soon as the process exits. */
async function untilAnswering(address: string, namespace: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const exited = exitOf(server);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answered = await Promise.race([describeNamespace(address, namespace), exited]);
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`it did not answer within ${timeoutMs / 1000} s`);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 200)), exited]);
  }
}

async function describeNamespace(address: string, namespace: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1000 }).catch(() => undefined);
  if (!connection) return false;
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

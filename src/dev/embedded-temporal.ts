import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { searchAttributes } from '../sandbox-safe/search-attributes.ts';
import { temporalCli } from './cli-path.ts';
import { provisionOnThisMachine } from './provision-cli.ts';
import { sessionLauncher } from './detached-launch.ts';

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
 */
export async function startEmbeddedTemporal(options: EmbeddedTemporalOptions): Promise<EmbeddedTemporal> {
  const cliPath = await provisionOnThisMachine(temporalCli, options.progress, options.env);
  const launcher = await writeLauncher(sessionLauncher(cliPath, { parentPid: process.pid, niceness: options.niceness, quiet: true }));
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: launcher.path },
      namespace: options.namespace,
      ip: '127.0.0.1',
      ...(options.port ? { port: options.port } : {}),
      ...(options.dbFilename ? { dbFilename: options.dbFilename } : {}),
      ...(options.uiPort ? { ui: true, uiPort: options.uiPort } : { ui: false }),
      searchAttributes,
      ...(options.dbFilename
        ? { extraArgs: Object.entries(options.sqlitePragmas ?? fileSqlitePragmas).flatMap(([name, value]) => ['--sqlite-pragma', `${name}=${value}`]) }
        : {}),
      log: { format: 'json', level: 'error' },
    },
  }).catch(async (error: unknown) => {
    await launcher.remove();
    throw error;
  });
  return {
    address: env.address,
    cliPath,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    async stop() {
      await env.teardown();
      await launcher.remove();
    },
  };
}

/** The SDK starts the server from an executable path alone: the launch is a small script of its own. */
async function writeLauncher(script: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'temporal-launch-'));
  const path = join(dir, 'temporal');
  await writeFile(path, script);
  await chmod(path, 0o755);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

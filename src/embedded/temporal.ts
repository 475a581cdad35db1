import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { searchAttributes } from '../temporal/search-attributes.ts';
import { temporalCli } from '../temporal/cli-path.ts';
import { provisionOnThisMachine } from '../temporal/provision-cli.ts';
import { weightedLaunchScript } from './weighted-launch.ts';

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
  /**
   * Runs the server under `nice -n <niceness>`, in a session of its own whose scheduling group has that niceness too
   * (`weightedLaunchScript`; a negative value needs the privilege to raise a priority; without it `nice` warns and
   * the server runs at the caller's priority). 0 or absent: the caller's priority, in the caller's session.
   */
  niceness?: number | undefined;
}

/**
 * The file-backed server's tuning (docs/performance.md, "File-backed dev server"): a write-ahead log instead of the
 * rollback journal, and fsync at checkpoints rather than at every commit. A crash of the machine (not of the process)
 * may lose the last commits; the service's own state is in Postgres, and a run lost this way is one a relay or a
 * retry starts again.
 */
export const fileSqlitePragmas: Record<string, string> = { journal_mode: 'wal', synchronous: 'normal' };

/**
 * Runs `temporal server start-dev` with this project's search attributes registered. The CLI is found or installed
 * first (src/temporal/provision-cli.ts).
 */
export async function startEmbeddedTemporal(options: EmbeddedTemporalOptions): Promise<EmbeddedTemporal> {
  const cliPath = await provisionOnThisMachine(temporalCli, options.progress);
  const launcher = options.niceness ? await niceLauncher(cliPath, options.niceness) : undefined;
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: launcher?.path ?? cliPath },
      namespace: options.namespace,
      ip: '127.0.0.1',
      ...(options.port ? { port: options.port } : {}),
      ...(options.dbFilename ? { dbFilename: options.dbFilename } : {}),
      ...(options.uiPort ? { ui: true, uiPort: options.uiPort } : { ui: false }),
      searchAttributes,
      ...(options.dbFilename
        ? { extraArgs: Object.entries(options.sqlitePragmas ?? fileSqlitePragmas).flatMap(([name, value]) => ['--sqlite-pragma', `${name}=${value}`]) }
        : {}),
      log: { format: 'json', level: 'warn' },
    },
  }).catch(async (error: unknown) => {
    await launcher?.remove();
    throw error;
  });
  return {
    address: env.address,
    cliPath,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    async stop() {
      await env.teardown();
      await launcher?.remove();
    },
  };
}

/**
 * The SDK starts the server from an executable path alone, so a priority is given by a small script that `exec`s,
 * in a session of its own, `nice` with the CLI (`weightedLaunchScript`): the server keeps the script's process, and
 * every thread it makes runs at that priority, which holds against other sessions too.
 */
async function niceLauncher(cliPath: string, niceness: number): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'temporal-nice-'));
  const path = join(dir, 'temporal');
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  await writeFile(path, `#!/bin/sh\nexec setsid /bin/sh -c ${quote(weightedLaunchScript(niceness))} ${quote(cliPath)} "$@"\n`);
  await chmod(path, 0o755);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

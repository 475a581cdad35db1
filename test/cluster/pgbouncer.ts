import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/dev/free-port.ts';
import { until } from '../support/wait.ts';

export interface RunningPgBouncer {
  /** `directUrl` with PgBouncer's address instead of the server's: the same database, user and password. */
  url: string;
  stop: () => Promise<void>;
}

/** `pgbouncer` on PATH, else Debian's (`apt-get install pgbouncer`: .ci/run installs it when missing). */
export function findPgBouncer(): string {
  const candidates = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin'].map((dir) => join(dir, 'pgbouncer'));
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error('pgbouncer was not found on PATH or in /usr/sbin: install it (Debian: apt-get install pgbouncer)');
  return found;
}

/**
 * The ini of a PgBouncer in transaction mode in front of `server`, as docs/operations.md describes it: any database
 * name goes to the same name on the server, logged in as the server URL's user (`auth_type = any`: loopback only).
 */
function iniFor(server: URL, port: number): string {
  const login = [`host=${server.hostname}`, `port=${server.port || 5432}`, `user=${decodeURIComponent(server.username)}`];
  if (server.password) login.push(`password=${decodeURIComponent(server.password)}`);
  return [
    '[databases]',
    `* = ${login.join(' ')}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    "unix_socket_dir = ''",
    'auth_type = any',
    'pool_mode = transaction',
    'max_client_conn = 500',
    'default_pool_size = 20',
    'reserve_pool_size = 5',
    'ignore_startup_parameters = extra_float_digits,options',
    // PgBouncer refuses to run as root; started as root, it drops to the server's system user.
    ...(userInfo().uid === 0 ? ['user = postgres'] : []),
    '',
  ].join('\n');
}

/** Starts PgBouncer on a free loopback port in front of the server of `directUrl`; resolves once it answers a query. */
export async function startPgBouncer(directUrl: string): Promise<RunningPgBouncer> {
  const server = new URL(directUrl);
  const port = await freePort();
  const folder = await mkdtemp(join(tmpdir(), 'rp-pgbouncer-'));
  const iniPath = join(folder, 'pgbouncer.ini');
  await writeFile(iniPath, iniFor(server, port));
  let output = '';
  const child = spawn(findPgBouncer(), [iniPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await exited;
    }
    await rm(folder, { recursive: true, force: true });
  };
  const url = new URL(directUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  try {
    await until(
      `PgBouncer on port ${port} to answer`,
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}: ${output}`);
        const client = new pg.Client({ connectionString: url.toString() });
        try {
          await client.connect();
          await client.query('select 1');
          return true;
        } catch {
          return false;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      (answered) => answered,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: url.toString(), stop };
}

import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import type { Logger } from '../../src/logger.ts';

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

const withDatabase = (serverUrl: string, database: string) => {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

async function admin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for this test run: on the server at DATABASE_URL when set, otherwise on an embedded
 * PostgreSQL in a temporary directory. Dropped at the end.
 */
export async function createTestDatabase(logger: Logger): Promise<TestDatabase> {
  const name = `rp_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  let serverUrl = process.env.DATABASE_URL;
  let stopServer = async () => {};
  if (!serverUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'rp-test-pg-'));
    // When the tests run as root, the server runs as the `postgres` user, which must be able to enter this directory.
    await chmod(dataDir, 0o755);
    const embedded = await startEmbeddedPostgres(join(dataDir, 'data'), logger);
    serverUrl = embedded.url;
    stopServer = async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  await admin(serverUrl, (client) => client.query(`create database "${name}"`));
  const server = serverUrl;
  return {
    url: withDatabase(server, name),
    async drop() {
      await admin(server, (client) => client.query(`drop database if exists "${name}" with (force)`));
      await stopServer();
    },
  };
}

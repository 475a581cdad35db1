import { inject } from 'vitest';
import pg from 'pg';

/** Reads the service's database directly, to check what was stored (for example, that no secret is). */
export async function query<T extends pg.QueryResultRow = any>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Runs `sql` in a transaction of its own and keeps it open until `release`, holding the locks it took: a request that
 * needs them waits for the test, deterministically, with no sleep.
 */
export async function holdInTransaction(sql: string, params: unknown[] = []): Promise<{ pid: number; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  let pid: number;
  try {
    await client.query('begin');
    await client.query(sql, params);
    pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  } catch (error) {
    await client.end();
    throw error;
  }
  let released: Promise<void> | undefined;
  return {
    /** The holding backend, for `pg_blocking_pids` to tell which sessions wait on it. */
    pid,
    release: () => (released ??= client.query('commit').then(() => client.end())),
  };
}

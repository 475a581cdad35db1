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
export async function holdInTransaction(sql: string, params: unknown[] = []): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(sql, params);
  } catch (error) {
    await client.end();
    throw error;
  }
  let released: Promise<void> | undefined;
  return {
    release: () => (released ??= client.query('commit').then(() => client.end())),
  };
}

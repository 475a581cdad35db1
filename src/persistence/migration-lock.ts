import pg from 'pg';

/** One name for every process that migrates this database: two `npm run migrate` at once take turns. */
const migrationLockName = 'richpush:migrations';

export interface MigrationLockEvents {
  /** Called once when another process holds the lock, before waiting for it. */
  onWait?: () => void;
}

/**
 * Runs `migrate` while holding a session-level advisory lock on its own connection, so that processes racing to
 * migrate apply each migration once: the second finds the first's work done. A session lock needs a direct
 * connection (not PgBouncer in transaction mode), which is why migrations get a URL of their own.
 */
export async function withMigrationLock<T>(databaseUrl: string, migrate: () => Promise<T>, events: MigrationLockEvents = {}): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'richpush-migrate-lock' });
  await client.connect();
  try {
    const tried = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as locked', [migrationLockName]);
    if (!tried.rows[0]?.locked) {
      events.onWait?.();
      await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [migrationLockName]);
    }
    return await migrate();
  } finally {
    // Ending the session releases its lock, also when the unlock itself is never reached.
    await client.end();
  }
}

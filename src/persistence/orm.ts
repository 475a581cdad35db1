import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.ts';
import { migrations } from './migrations/index.ts';
import { withMigrationLock, type MigrationLockEvents } from './migration-lock.ts';

export type Orm = MikroORM;

/**
 * The size of a pool kept for recording-job steps, apart from bulk work: the interactive worker's beside the bulk one
 * (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md) and the API's for its job routes (docs/adr/0045-the-job-routes-have-a-postgres-pool-of-their-own.md). A step holds one connection at a time.
 */
export const interactivePoolMax = 4;

/** The size of a process's main pool unless it asks for another. */
export const defaultPoolMax = 10;

export function ormOptions(databaseUrl: string, poolMax = defaultPoolMax): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, snapshot: false, transactional: true, allOrNothing: true, silent: true },
    pool: { min: 0, max: poolMax },
    // Read-your-writes: every request forks its own context; nothing is shared through the global one.
    allowGlobalContext: false,
    debug: false,
  };
}

export async function connectOrm(databaseUrl: string, poolMax?: number): Promise<Orm> {
  return MikroORM.init(ormOptions(databaseUrl, poolMax));
}

/**
 * Applies every committed migration that has not run yet; returns their names. Processes that migrate at once take
 * turns (migration-lock.ts), so each migration is applied by one of them.
 */
export async function migrateUp(orm: Orm, events?: MigrationLockEvents): Promise<string[]> {
  const databaseUrl = orm.config.get('clientUrl');
  if (!databaseUrl) throw new Error('the ORM has no clientUrl to take the migration lock on');
  const applied = await withMigrationLock(databaseUrl, () => orm.migrator.up(), events);
  return applied.map((migration) => migration.name);
}

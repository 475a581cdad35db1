import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { connectOrm, migrateUp } from '../persistence/orm.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('migrate');
  const logger = createLogger(config.LOG_LEVEL, 'migrate');
  // Behind PgBouncer in transaction mode, migrations (and their session lock) need a direct connection.
  const orm = await connectOrm(config.MIGRATION_DATABASE_URL ?? config.DATABASE_URL, 1);
  try {
    const applied = await migrateUp(orm, { onWait: () => logger.info('another process is migrating this database: waiting for it') });
    logger.info({ applied }, applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
  } finally {
    await orm.close();
  }
});

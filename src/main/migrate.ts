import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { connectOrm, migrateUp } from '../persistence/orm.ts';
import { runMain } from './run-main.ts';

runMain(async () => {
  const config = loadConfig('migrate');
  const logger = createLogger(config.LOG_LEVEL, 'migrate');
  const orm = await connectOrm(config.DATABASE_URL, 1);
  try {
    const applied = await migrateUp(orm);
    logger.info({ applied }, applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
  } finally {
    await orm.close();
  }
});

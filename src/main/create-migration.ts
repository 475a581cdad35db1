/**
 * Developer tool: diffs the entities against a database at the latest migration and writes the next migration
 * into src/persistence/migrations. Register the new class in migrations/index.ts, then commit both.
 */
import { fileURLToPath } from 'node:url';
import { connectOrm, migrateUp } from '../persistence/orm.ts';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required: point it at a scratch database.');
  process.exit(1);
}
const orm = await connectOrm(databaseUrl);
try {
  await migrateUp(orm);
  const name = process.argv[2];
  const result = await orm.migrator.create(fileURLToPath(new URL('../persistence/migrations', import.meta.url)), false, false, name);
  console.log(result.fileName ? `wrote ${result.fileName}` : 'no schema changes');
} finally {
  await orm.close();
}

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { migrations } from '../../src/persistence/migrations/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

const migrateScript = fileURLToPath(new URL('../../src/main/migrate.ts', import.meta.url));

interface MigrateRun {
  lines: Record<string, unknown>[];
  exitCode: Promise<number | null>;
  /** Resolves when the run has said it waits for another process's migrations. */
  waiting: Promise<void>;
}

/** Runs `npm run migrate`'s entry point, as production does, keeping its log lines. */
function runMigrate(databaseUrl: string): MigrateRun {
  const child = spawn(process.execPath, [migrateScript], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  let markWaiting = () => {};
  const waiting = new Promise<void>((resolve) => (markWaiting = resolve));
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const text of complete.filter(Boolean)) {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      if (String(line.msg).includes('waiting')) markWaiting();
    }
  });
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { lines, exitCode, waiting };
}

const appliedBy = (run: MigrateRun) => run.lines.flatMap((line) => (Array.isArray(line.applied) ? (line.applied as string[]) : []));

describe('npm run migrate, twice at once', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(createLogger('silent'));
  });
  afterAll(async () => database?.drop());

  it('applies each migration once: the second waits for the first, then finds nothing left to do', async () => {
    // The test holds the lock first, so that both runs are certainly racing when it lets go.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query(`select pg_advisory_lock(hashtextextended('richpush:migrations', 0))`);
    const runs = [runMigrate(database.url), runMigrate(database.url)];
    await Promise.all(runs.map((run) => run.waiting));
    await holder.end();

    expect(await Promise.all(runs.map((run) => run.exitCode))).toEqual([0, 0]);
    const applied = runs.map(appliedBy);
    expect([...applied[0]!, ...applied[1]!].sort()).toEqual(migrations.map((migration) => migration.name).sort());
    expect(applied.filter((names) => names.length === 0)).toHaveLength(1);
    const messages = runs.flatMap((run) => run.lines.map((line) => line.msg));
    expect(messages).toContain('database is up to date');

    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    try {
      const recorded = await check.query<{ name: string; times: string }>('select name, count(*) as times from mikro_orm_migrations group by name');
      expect(recorded.rows).toHaveLength(migrations.length);
      expect(recorded.rows.every((row) => Number(row.times) === 1)).toBe(true);
    } finally {
      await check.end();
    }
  });
});

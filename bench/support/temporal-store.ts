import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSqlitePragmas } from '../../src/dev/embedded-temporal.ts';
import { choice } from './env.ts';
import type { BenchContext, StackOptions } from './stack.ts';

/**
 * Where a bench's Temporal dev server keeps its state, from TEMPORAL_DB=memory|file (memory: as the tests run it;
 * file: a SQLite file, as `npm start` keeps it, which a run with many open workflows needs: in memory the dev server
 * holds every history in its resident set) and SQLITE_TUNING=on|off (the pragmas `npm start` applies, or SQLite's).
 */
export const TEMPORAL_DB = choice('TEMPORAL_DB', ['memory', 'file'] as const, 'memory');
export const SQLITE_TUNING = choice('SQLITE_TUNING', ['on', 'off'] as const, 'on');

/** How the figures name the store. */
export const temporalStore =
  TEMPORAL_DB === 'memory'
    ? 'in-memory'
    : `SQLite file, ${SQLITE_TUNING === 'on' ? Object.entries(fileSqlitePragmas).map(([name, value]) => `${name}=${value}`).join(' ') : 'SQLite default pragmas'}`;

/** The stack option for the chosen store: a SQLite file in a scratch directory the teardown removes, or nothing. */
export async function temporalDbOption(context: BenchContext, label: string): Promise<StackOptions['temporalDb']> {
  if (TEMPORAL_DB === 'memory') return undefined;
  const dir = await mkdtemp(join(tmpdir(), `bench-${label}-temporal-`));
  context.teardown.add('Temporal SQLite file', () => rm(dir, { recursive: true, force: true }));
  return { filename: join(dir, 'temporal.db'), sqlitePragmas: SQLITE_TUNING === 'on' ? undefined : {} };
}

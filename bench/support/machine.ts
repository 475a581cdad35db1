import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { fmt } from './stats.ts';

interface Sql {
  query<R extends Record<string, unknown>>(text: string): Promise<{ rows: R[] }>;
}

/** The facts every bench prints about the machine it ran on, so a figure is never read without them. */
export async function machineLines(sql: Sql, loadAtStart: number[], temporalStore = 'in-memory'): Promise<string[]> {
  const { rows } = await sql.query<{ version: string }>('select version()');
  const temporalCli = spawnSync('temporal', ['--version'], { encoding: 'utf8' });
  return [
    'Machine',
    `  CPU cores (os.availableParallelism)  ${availableParallelism()}  (${cpus()[0]?.model.trim() ?? 'unknown'})`,
    `  memory                                ${fmt(totalmem() / 1024 ** 3, 1)} GiB`,
    `  Node                                  ${process.version}`,
    `  PostgreSQL                            ${rows[0]?.version ?? 'unknown'}  (${process.env.DATABASE_URL ? 'DATABASE_URL server' : 'embedded'})`,
    `  load average at start (1/5/15 min)    ${loadAtStart.map((value) => fmt(value, 2)).join(' / ')}`,
    `  Temporal                              ${temporalCli.status === 0 ? temporalCli.stdout.trim() : 'unknown'} (dev server, ${temporalStore})`,
  ];
}

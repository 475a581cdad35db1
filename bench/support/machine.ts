import { availableParallelism, cpus, totalmem } from 'node:os';
import { fmt } from './stats.ts';

/** The facts every bench prints about the machine it ran on, so a figure is never read without them. */
export function machineLines(facts: { postgresVersion: string; loadAtStart: number[]; temporalVersion: string | undefined }): string[] {
  return [
    'Machine',
    `  CPU cores (os.availableParallelism)  ${availableParallelism()}  (${cpus()[0]?.model.trim() ?? 'unknown'})`,
    `  memory                                ${fmt(totalmem() / 1024 ** 3, 1)} GiB`,
    `  Node                                  ${process.version}`,
    `  PostgreSQL                            ${facts.postgresVersion}  (${process.env.DATABASE_URL ? 'DATABASE_URL server' : 'embedded'})`,
    `  load average at start (1/5/15 min)    ${facts.loadAtStart.map((value) => fmt(value, 2)).join(' / ')}`,
    `  Temporal                              ${facts.temporalVersion ?? 'unknown'} (dev server, in-memory)`,
  ];
}

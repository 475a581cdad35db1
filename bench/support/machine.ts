import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { temporalCli as temporalCliTool } from '../../src/dev/cli-path.ts';
import { provisionOnThisMachine } from '../../src/dev/provision-cli.ts';
import { fmt } from './stats.ts';

interface Sql {
  query<R extends Record<string, unknown>>(text: string): Promise<{ rows: R[] }>;
}

/** The facts every bench prints about the machine it ran on, so a figure is never read without them. */
export async function machineLines(sql: Sql, loadAtStart: number[], temporalStore = 'in-memory'): Promise<string[]> {
  const { rows } = await sql.query<{ version: string }>('select version()');
  // The CLI the bench's dev server ran: provisioned by then, so this only finds it (it is rarely on PATH).
  const temporalCli = spawnSync(await provisionOnThisMachine(temporalCliTool, () => undefined), ['--version'], { encoding: 'utf8' });
  return [
    'Machine',
    `  CPU cores (os.availableParallelism)  ${availableParallelism()}  (${cpus()[0]?.model.trim() ?? 'unknown'})`,
    `  memory                                ${fmt(totalmem() / 1024 ** 3, 1)} GiB`,
    `  Node                                  ${process.version}`,
    `  PostgreSQL                            ${rows[0]?.version ?? 'unknown'}  (${process.env.DATABASE_URL ? 'DATABASE_URL server' : 'embedded'})`,
    `  load average at start (1/5/15 min)    ${loadAtStart.map((value) => fmt(value, 2)).join(' / ')}`,
    `  kernel session groups                 ${sessionGroupsLine()}`,
    `  Temporal                              ${temporalCli.status === 0 ? temporalCli.stdout.trim() : 'unknown'} (dev server, ${temporalStore})`,
  ];
}

/**
 * Whether the kernel schedules by session group (`kernel.sched_autogroup_enabled`); undefined where it cannot tell.
 * When it does, a niceness orders processes only inside their session, and each PostgreSQL backend is a session of
 * its own, so the benches' CPU priorities do not reach the database (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md): a figure that depends on them is
 * read with this.
 */
export function kernelSessionGroups(): boolean | undefined {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return undefined;
  }
}

function sessionGroupsLine(): string {
  const enabled = kernelSessionGroups();
  if (enabled === undefined) return 'unknown (no /proc/sys/kernel/sched_autogroup_enabled)';
  return enabled ? 'on (a niceness orders processes within their session only; docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md)' : 'off';
}

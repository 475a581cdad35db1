import { readFileSync } from 'node:fs';
import { readProcStats, type ProcStat } from './cpu.ts';

/**
 * CPU seconds (user + system, with reaped children) of chosen processes, by a name the bench gives them, read from
 * /proc (Linux only). Unlike ./cpu.ts, which follows this process's children, it also sees PostgreSQL when it is the
 * system server (DATABASE_URL): its backends are the postmaster's children, not the bench's. A backend serving the
 * bench's database says so in its command line (`postgres: user <database> …`); everything else named postgres on the
 * machine (another user's backends, the checkpointer, the WAL writer) is counted apart, and can include others' work.
 */
export type CpuReading = Map<number, { name: string; seconds: number }>;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * One reading. `named` maps a pid to the name its process and all its descendants are counted under (the worker, the
 * fake FCM); this process counts as `bench process`, its other descendants by their process name (the Temporal dev
 * server); PostgreSQL as `PostgreSQL (this database)` and `PostgreSQL (rest of the server)`.
 */
export function readCpu(named: ReadonlyMap<number, string>, database: string): CpuReading | undefined {
  const stats = readProcStats();
  if (!stats) return undefined;
  const byPid = new Map(stats.map((value) => [value.pid, value]));
  const reading: CpuReading = new Map();
  const ownerOf = (value: ProcStat): string | undefined => {
    for (let at: ProcStat | undefined = value; at; at = byPid.get(at.ppid)) {
      const name = named.get(at.pid);
      if (name) return name;
      if (at.pid === process.pid) return at === value ? 'bench process' : value.name === 'temporal' ? 'Temporal dev server' : value.name;
      if (at.pid <= 1) return undefined;
    }
    return undefined;
  };
  for (const value of stats) {
    const owner = ownerOf(value);
    if (owner) reading.set(value.pid, { name: owner, seconds: value.cpuSeconds });
    else if (value.name.startsWith('postgres')) {
      const name = cmdline(value.pid).includes(` ${database} `) ? 'PostgreSQL (this database)' : 'PostgreSQL (rest of the server)';
      reading.set(value.pid, { name, seconds: value.cpuSeconds });
    }
  }
  return reading;
}

/**
 * CPU seconds between two readings, by name, largest first: each process's own difference (a process that started
 * between them counts from zero; one that ended between them counts nothing, except through its parent's reaped time).
 */
export function cpuSpent(before: CpuReading, after: CpuReading): Array<[string, number]> {
  const spent = new Map<string, number>();
  for (const [pid, { name, seconds }] of after) {
    const earlier = before.get(pid);
    const since = earlier && earlier.name === name ? Math.max(0, seconds - earlier.seconds) : seconds;
    spent.set(name, (spent.get(name) ?? 0) + since);
  }
  return [...spent].sort((a, b) => b[1] - a[1]);
}

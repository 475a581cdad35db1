import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) by process name, for this process and everything it started (Linux /proc only). Each
 * process also carries the CPU of its children that have exited and been reaped (cutime + cstime): PostgreSQL forks
 * a backend per connection, and without them a closed backend's CPU would vanish from the sum.
 */
export type CpuSnapshot = Map<string, number>;

const ticksPerSecond = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(result.stdout?.trim());
  return Number.isFinite(value) && value > 0 ? value : 100;
})();

export interface ProcStat {
  pid: number;
  ppid: number;
  name: string;
  cpuSeconds: number;
}

function readStat(pid: string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const name = text.slice(text.indexOf('(') + 1, close);
    // Fields after the name: state ppid …; utime, stime, cutime, cstime are fields 14 to 17 of the whole line.
    const fields = text.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return { pid: Number(pid), ppid: Number(fields[1]), name, cpuSeconds: ticks / ticksPerSecond };
  } catch {
    return undefined;
  }
}

/** Every process's CPU seconds so far (with its reaped children's); undefined where /proc is not there to read. */
export function readProcStats(): ProcStat[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  return entries.map(readStat).filter((stat): stat is ProcStat => stat !== undefined);
}

/** Undefined where /proc is not there to read. */
export function cpuSnapshot(): CpuSnapshot | undefined {
  const stats = readProcStats();
  if (!stats) return undefined;
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const snapshot: CpuSnapshot = new Map();
  const self = stats.find((stat) => stat.pid === process.pid);
  if (!self) return undefined;
  snapshot.set('this process', self.cpuSeconds);
  const queue = [...(children.get(process.pid) ?? [])];
  while (queue.length > 0) {
    const stat = queue.shift()!;
    // npm, sh and friends are not interesting; name what does the work.
    const name = stat.name === 'temporal' ? 'Temporal dev server' : stat.name.startsWith('postgres') ? 'PostgreSQL (embedded)' : stat.name;
    snapshot.set(name, (snapshot.get(name) ?? 0) + stat.cpuSeconds);
    queue.push(...(children.get(stat.pid) ?? []));
  }
  return snapshot;
}

/** CPU seconds spent between two snapshots, by name, largest first. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Array<[string, number]> {
  return [...after].map(([name, seconds]): [string, number] => [name, seconds - (before.get(name) ?? 0)]).sort((a, b) => b[1] - a[1]);
}

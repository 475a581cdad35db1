import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { freePort } from '../../src/dev/free-port.ts';
import { procStatFields } from './proc-stat.ts';

/** `npm start` running: its process group, the URLs and admin token its banner printed, and all it has written. */
export interface StartedStack {
  child: ChildProcess;
  apiUrl: string;
  uiUrl: string;
  adminToken: string;
  output: () => string;
}

/**
 * SIGKILL to `npm start`'s process group: the service. The Temporal dev server and PostgreSQL run in sessions of their
 * own; their guards stop them once the service is gone (`killStack` kills them too).
 */
export function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already
  }
}

/** Whether any process of the group is still there. */
export function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false; // ESRCH: no process left in the group
  }
}

/** The live (not zombie) processes of the machine, each with its parent and command line. */
async function liveProcesses(): Promise<Map<number, { parent: number; command: string }>> {
  const live = new Map<number, { parent: number; command: string }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = await procStatFields(`/proc/${entry}/stat`).catch(() => undefined);
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (fields && fields[0] !== 'Z') live.set(Number(entry), { parent: Number(fields[1]), command: command.replaceAll('\0', ' ') });
  }
  return live;
}

/**
 * kill -9 of the whole stack at once: `npm start`'s process and every process below it, and the Temporal dev server
 * and PostgreSQL with theirs. Those two run in sessions of their own (`setsid` may fork them away from their
 * launcher), so they are found by their data in `dataDir`; left alone, their parent guards would stop them gracefully.
 * Answers the processes it killed (`stackGone` waits for them).
 */
export async function killStack(child: ChildProcess, dataDir: string): Promise<Array<{ pid: number; command: string }>> {
  const processes = await liveProcesses();
  const stack = new Set([child.pid!, ...namingDir(processes, dataDir).map(({ pid }) => pid)]);
  // Then every process below those, to any depth.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, { parent }] of processes) {
      if (!stack.has(parent) || stack.has(pid)) continue;
      stack.add(pid);
      grew = true;
    }
  }
  for (const pid of stack) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: gone already
    }
  }
  return [...stack].map((pid) => ({ pid, command: processes.get(pid)?.command ?? '' }));
}

/** The processes whose command line names `dataDir`: the stack's Temporal dev server and PostgreSQL. */
export async function serversOf(dataDir: string): Promise<Array<{ pid: number; command: string }>> {
  return namingDir(await liveProcesses(), dataDir);
}

const namingDir = (processes: Map<number, { command: string }>, dataDir: string) =>
  [...processes].filter(([, { command }]) => command.includes(dataDir)).map(([pid, { command }]) => ({ pid, command }));

/**
 * Whether every one of these processes is gone, reaped too: PostgreSQL takes a zombie that its lock file names for a
 * postmaster still running, and would not start.
 */
export async function stackGone(killed: Array<{ pid: number }>): Promise<boolean> {
  const remaining = await Promise.all(killed.map(({ pid }) => stat(`/proc/${pid}`).then(() => true, () => false)));
  return !remaining.includes(true);
}

/**
 * Runs `npm start`'s entry point as a user would, in a process group of its own (as a terminal would), keeping its
 * data in `dataDir`; resolves once the banner is printed. `env` is the machine's environment, plus any settings. It
 * starts its own Postgres and Temporal unless `servers` names running ones (DATABASE_URL, TEMPORAL_ADDRESS).
 */
export async function startEmbeddedStack(dataDir: string, env: NodeJS.ProcessEnv, servers?: { databaseUrl: string; temporalAddress: string }): Promise<StartedStack> {
  const stackEnv: NodeJS.ProcessEnv = {
    ...env,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  delete stackEnv.DATABASE_URL;
  delete stackEnv.TEMPORAL_ADDRESS;
  delete stackEnv.ADMIN_TOKEN;
  if (servers) Object.assign(stackEnv, { DATABASE_URL: servers.databaseUrl, TEMPORAL_ADDRESS: servers.temporalAddress });
  const child = spawn(process.execPath, ['src/main/start.ts'], { env: stackEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const banner = await new Promise<string>((resolve, reject) => {
    // The first start on a fresh machine installs the Temporal CLI (about 45 MB) before anything else.
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`no banner within 180 s:\n${output}`));
    }, 180_000);
    const check = () => {
      if (/Admin token\s+\S+/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => reject(new Error(`start exited with ${code}:\n${output}`)));
  });
  const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(banner)![1]!;
  return { child, apiUrl: field('API'), uiUrl: field('Temporal UI'), adminToken: field('Admin token'), output: () => output };
}

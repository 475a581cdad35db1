import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded/postgres.ts';

interface Started {
  child: ChildProcess;
  apiUrl: string;
  uiUrl: string;
  adminToken: string;
  output: () => string;
}

const dataDirs: string[] = [];
afterAll(async () => {
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs `npm start`'s entry point as a user would, in a process group of its own, as a terminal would. */
async function start(dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
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
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${output}`)), 90_000);
    const check = () => {
      if (/Admin token\s+\S+/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout!.on('data', check);
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
  it('runs everything, keeps data across a restart, and stops cleanly on Ctrl-C', { timeout: 240_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rp-start-'));
    await chmod(dataDir, 0o755);
    dataDirs.push(dataDir);

    const first = await start(dataDir);
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

    const second = await start(dataDir);
    try {
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

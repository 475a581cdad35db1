import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { call } from '../support/api.ts';
import { verifyWith } from '../support/deliveries.ts';
import { killGroup, killStack, serversOf, stackGone, startEmbeddedStack } from '../support/embedded-stack.ts';
import { experienceDefinition } from '../support/experiences.ts';
import { directEvent, type ConnectionFixture } from '../support/ingest.ts';
import { postSignedTo } from '../support/signed-ingest.ts';
import { startReceiver } from '../support/receiver.ts';
import { until } from '../support/wait.ts';

// The whole embedded stack (`npm start`: the service, the Temporal dev server and PostgreSQL, their data in one
// directory) is killed with SIGKILL while experience runs wait for an event, then started again on the same data.

const scratchDirs: string[] = [];
const groups: ChildProcess[] = [];
afterAll(async () => {
  for (const child of groups) killGroup(child);
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A scratch directory, removed after the tests; embedded PostgreSQL runs as its own user under root and must reach it. */
async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  scratchDirs.push(dir);
  return dir;
}

/** POSTs to a stack's API and answers the body of its 200 or 201. */
async function postOk(baseUrl: string, token: string, path: string, body?: unknown): Promise<any> {
  const response = await call('POST', path, { baseUrl, token, body });
  if (response.status !== 201 && response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

describe('the whole stack killed with kill -9', () => {
  it('leaves no server running when only npm start\'s process group is killed', { timeout: 240_000 }, async () => {
    const dir = await scratchDir('rp-group-kill-');
    try {
      const started = await startEmbeddedStack(join(dir, 'data'), process.env);
      groups.push(started.child);
      expect((await serversOf(dir)).length).toBeGreaterThanOrEqual(2);
      // The Temporal dev server and PostgreSQL run in sessions of their own; their guards, each in a session of its
      // own too, outlive the group and stop them once npm start's process is gone.
      killGroup(started.child);
      await until('the servers stopped by their guards', () => serversOf(dir), (servers) => servers.length === 0, { timeoutMs: 60_000, intervalMs: 200 });
    } finally {
      // A failure here leaves servers running: they go with the test.
      for (const server of await serversOf(dir)) process.kill(server.pid, 'SIGKILL');
    }
  });

  it('loses no waiting run: after a restart on the same data each fires its action exactly once when its event comes', { timeout: 420_000 }, async () => {
    const scratch = await scratchDir('rp-stack-crash-');
    const caFile = join(scratch, 'receiver-ca.pem');
    await writeFile(caFile, inject('receiverCert'));
    const env = { ...process.env, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: caFile };
    const dataDir = join(scratch, 'data');
    const receiver = await startReceiver();
    try {
      const first = await startEmbeddedStack(dataDir, env);
      groups.push(first.child);
      const { accountId, apiKey } = await postOk(first.apiUrl, first.adminToken, '/admin/accounts', { name: 'crash' });
      const connection: ConnectionFixture = await postOk(first.apiUrl, apiKey, `/accounts/${accountId}/connections`, { provider: 'direct', label: 'shop' });
      const endpoint = await postOk(first.apiUrl, apiKey, `/accounts/${accountId}/endpoints`, { url: receiver.url, eventTypes: ['experience.action'] });
      const definition = experienceDefinition({
        nodes: [
          { id: 'await', type: 'waitForEvent', eventType: 'checkout', conditions: null, timeoutSeconds: 86_400, next: 'thanks', timeoutNext: 'done' },
          { id: 'thanks', type: 'webhook', result: { step: 'thanks' }, next: 'done' },
          { id: 'done', type: 'exit' },
        ],
      });
      const { experienceId } = await postOk(first.apiUrl, apiKey, `/accounts/${accountId}/experiences`, { definition });
      await postOk(first.apiUrl, apiKey, `/accounts/${accountId}/experiences/${experienceId}/publish`);
      const people = ['c0', 'c1', 'c2', 'c3', 'c4'];
      for (const person of people) expect((await postSignedTo(first.apiUrl, connection, directEvent({ eventType: 'signup', clientUserId: person }))).status).toBe(202);
      const runsOf = async (baseUrl: string) => {
        const page = await call('GET', `/accounts/${accountId}/experiences/${experienceId}/runs?limit=100`, { baseUrl, token: apiKey });
        return page.status === 200 ? (page.body.items as Array<{ status: string; currentNodeId: string; clientUserId: string }>) : [];
      };
      // Every run waits on its waitForEvent: its progress is saved once its workflow has reached the node.
      const progressSaved = (runs: Awaited<ReturnType<typeof runsOf>>) => runs.length === people.length && runs.every((run) => run.currentNodeId === 'await' && run.status === 'running');
      await until('every run waiting for checkout', () => runsOf(first.apiUrl), progressSaved, { timeoutMs: 60_000 });

      const killed = await killStack(first.child, dataDir);
      // The service, and the Temporal dev server and PostgreSQL, which run in sessions of their own.
      expect(killed.some(({ command }) => command.includes('server start-dev'))).toBe(true);
      expect(killed.some(({ command }) => /postgres/.test(command) && command.includes(dataDir))).toBe(true);
      await until('every process of the stack gone', () => stackGone(killed), { timeoutMs: 15_000, intervalMs: 100 });

      const second = await startEmbeddedStack(dataDir, env);
      groups.push(second.child);
      expect(second.adminToken).toBe(first.adminToken);
      for (const person of people) expect((await postSignedTo(second.apiUrl, connection, directEvent({ eventType: 'checkout', clientUserId: person }))).status).toBe(202);
      const ended = await until('every run completed', () => runsOf(second.apiUrl), (runs) => runs.length === people.length && runs.every((run) => run.status === 'completed'), {
        timeoutMs: 120_000,
      });
      expect(ended.map((run) => run.currentNodeId)).toEqual(people.map(() => 'done'));
      // Each run's action is delivered once (its delivery marked succeeded) before the receiver's count is read.
      await until(
        'every action delivered',
        async () => (await call('GET', `/accounts/${accountId}/endpoints/${endpoint.endpointId}/deliveries?limit=100`, { baseUrl: second.apiUrl, token: apiKey })).body,
        (page: { items?: Array<{ status: string }> }) => (page.items ?? []).length === people.length && page.items!.every((delivery) => delivery.status === 'succeeded'),
        { timeoutMs: 60_000 },
      );
      const actions = receiver.requests.map((request) => verifyWith(endpoint.secret as string, request));
      expect(actions.map((action) => action.type)).toEqual(people.map(() => 'experience.action'));
      expect(actions.map((action) => action.data.clientUserId as string).sort()).toEqual(people);
      await killStack(second.child, dataDir);
    } finally {
      await receiver.close();
    }
  });
});

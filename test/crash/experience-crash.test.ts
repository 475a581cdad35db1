import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { verifyWith, waitForEventsSettled } from '../support/deliveries.ts';
import { experienceDefinition, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection } from '../support/ingest.ts';
import { postSignedTo } from '../support/signed-ingest.ts';
import { killWorker, startApiInstance, startWorkerProcess, type ApiInstance } from '../support/instances.ts';
import { newEndpoint } from '../support/webhooks.ts';

let scratch: string;
const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-experience-crash-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(scratch, { recursive: true, force: true });
});

describe('experience runs survive a worker crash', () => {
  it('loses no run and no event, and sends nothing twice, when the worker is killed while runs wait', { timeout: 180_000 }, async () => {
    const caFile = join(scratch, 'receiver-ca.pem');
    await writeFile(caFile, inject('receiverCert'));
    // A stack of its own: an API and a worker process on a task queue nobody else polls.
    const taskQueue = `experience-crash-${randomUUID()}`;
    const api: ApiInstance = await startApiInstance({ taskQueue });
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['experience.action', 'experience.goal.reached', 'experience.ended']);
    try {
      const connection = await newConnection(account);
      const definition = experienceDefinition({
        goals: [{ id: 'bought', eventType: 'purchase', conditions: null, exit: true }],
        nodes: [
          { id: 'first', type: 'webhook', result: { step: 1 }, next: 'pause' },
          // Long enough that p0's purchase, posted while no worker runs, reaches its run before the pause ends
          // however slowly the second worker starts; otherwise the run may rightly finish first, without the goal.
          { id: 'pause', type: 'wait', seconds: 30, next: 'second' },
          { id: 'second', type: 'webhook', result: { step: 2 }, next: 'done' },
          { id: 'done', type: 'exit' },
        ],
      });
      const created = await call('POST', `/accounts/${account.accountId}/experiences`, { token: account.apiKey, body: { definition }, baseUrl: api.url });
      await call('POST', `/accounts/${account.accountId}/experiences/${created.body.experienceId}/publish`, { token: account.apiKey, baseUrl: api.url });
      const experienceId = created.body.experienceId;
      const people = ['p0', 'p1', 'p2', 'p3', 'p4'];

      const first = track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile }));
      for (const person of people) {
        expect((await postSignedTo(api.url, connection, directEvent({ eventType: 'signup', clientUserId: person }))).status).toBe(202);
      }
      // Every run has fired its first webhook and sleeps on `pause`.
      await waitForRuns(account, experienceId, (runs) => runs.length === people.length && runs.every((run) => run.currentNodeId === 'pause'), 60_000);
      // ... and those webhooks have been delivered: a worker killed during an HTTP attempt sends that attempt again
      // under the same webhook-id (at least once, test/crash/delivery-crash.test.ts), which is not what this test is about.
      await waitForEventsSettled([account.accountId], 60_000);
      await killWorker(first);

      // While no worker runs: p0 buys, which is a goal with exit. The event is accepted and waits for a worker.
      expect((await postSignedTo(api.url, connection, directEvent({ eventType: 'purchase', clientUserId: 'p0' }))).status).toBe(202);
      track(await startWorkerProcess(taskQueue, { NODE_EXTRA_CA_CERTS: caFile }));

      const runs = await waitForRuns(account, experienceId, (found) => found.length === people.length && found.every((run) => run.status !== 'running'), 90_000);
      const byPerson = Object.fromEntries(runs.map((run) => [run.clientUserId, run]));
      expect(byPerson.p0.status === 'goal_reached' || byPerson.p0.path.some((step: { nodeId: string }) => step.nodeId === 'goal:bought')).toBe(true);
      for (const person of people.slice(1)) expect(byPerson[person]).toMatchObject({ status: 'completed', currentNodeId: 'done' });

      // Once every outbound event has settled, the receiver's count is final: each envelope exactly once.
      await waitForEventsSettled([account.accountId], 60_000);
      const envelopes = endpoint.receiver.requests.map((request) => verifyWith(endpoint.secret, request));
      const ids = envelopes.map((envelope) => envelope.id);
      expect(new Set(ids).size).toBe(ids.length);
      const count = (type: string, step?: number) => envelopes.filter((envelope) => envelope.type === type && (step === undefined || envelope.data.result.step === step)).length;
      expect(count('experience.action', 1)).toBe(people.length);
      expect(count('experience.ended')).toBe(people.length);
      expect(count('experience.goal.reached')).toBe(1);
    } finally {
      await endpoint.receiver.close();
      await api.stop();
    }
  });
});

import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import pMap from 'p-map';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runState } from '../../workflows/experience-run.contract.ts';
import { allPages, call, newAccount, type TestAccount } from '../support/api.ts';
import { verifyWith, waitForEventsSettled } from '../support/deliveries.ts';
import { allRuns, experienceDefinition } from '../support/experiences.ts';
import { directEvent, newConnection, type ConnectionFixture } from '../support/ingest.ts';
import { eventsOf, postSignedTo } from '../support/signed-ingest.ts';
import { killWorker, startApiInstance, startWorkerProcess, type ApiInstance } from '../support/instances.ts';
import type { ReceivedRequest } from '../support/receiver.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';

// The whole path of an experience run (signed ingest posts, the ingest relay and routing, the runs' workflows, the delivery outbox,
// a local HTTPS receiver) with the worker, a process of its own, killed with SIGKILL while 1,000 runs advance.

const runCount = 1000;
/** Advancing events posted first; the worker is killed once this many runs' ends have reached the receiver. */
const advancedFirst = 600;
const endsBeforeKill = 200;
/**
 * Then a burst of advancing events is posted, and the worker is killed as soon as the first of them is routed: its
 * hand-overs, and the burst's next ones, are in flight. The rest is posted while no worker runs.
 */
const burst = 200;
const people = Array.from({ length: runCount }, (_, n) => `p${n}`);
/**
 * Even people check out: the run's waitForEvent takes the event, its webhook fires, it exits (`experience.action`,
 * `experience.ended`). Odd people buy: the exit goal ends the run (`experience.goal.reached`, `experience.ended`).
 */
const checksOut = (n: number) => n % 2 === 0;
const advancingEvent = (n: number) => (checksOut(n) ? 'checkout' : 'purchase');
const announcementsOf = (n: number) => ['experience.ended', checksOut(n) ? 'experience.action' : 'experience.goal.reached'];

const definition = experienceDefinition({
  trigger: { eventType: 'cart', conditions: null },
  goals: [{ id: 'bought', eventType: 'purchase', conditions: null, exit: true }],
  nodes: [
    { id: 'await', type: 'waitForEvent', eventType: 'checkout', conditions: null, timeoutSeconds: 86_400, next: 'thanks', timeoutNext: 'done' },
    { id: 'thanks', type: 'webhook', result: { step: 'thanks' }, next: 'done' },
    { id: 'done', type: 'exit' },
  ],
});

let scratch: string;
let temporal: { client: Client; close: () => Promise<void> };
const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-advance-crash-'));
  temporal = await temporalClient();
});
afterAll(async () => {
  for (const child of children) await killWorker(child);
  await temporal?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** Posts each person's event of the given type, signed as a client would, 16 at a time; answers each person's event id. */
async function postEvents(api: ApiInstance, connection: ConnectionFixture, persons: number[], eventType: (n: number) => string): Promise<Map<string, string>> {
  const eventIds = new Map<string, string>();
  await pMap(
    persons,
    async (n) => {
      const response = await postSignedTo(api.url, connection, directEvent({ eventType: eventType(n), clientUserId: people[n] }));
      if (response.status !== 202) throw new Error(`${eventType(n)} of ${people[n]}: ${response.status} ${JSON.stringify(response.body)}`);
      eventIds.set(people[n]!, response.body.eventId as string);
    },
    { concurrency: 16 },
  );
  return eventIds;
}

/** How many received requests carry an envelope of this type, reading each request once. */
function countOfType(requests: ReceivedRequest[], type: string): () => number {
  let read = 0;
  let count = 0;
  return () => {
    for (; read < requests.length; read++) if ((JSON.parse(requests[read]!.body) as { type: string }).type === type) count++;
    return count;
  };
}

type Description = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['describe']>>;
const isOpen = ({ status }: Description) => status.name === 'RUNNING';
const hasWork = (run: Description) => isOpen(run) && (run.raw.pendingWorkflowTask != null || (run.raw.pendingActivities?.length ?? 0) > 0);

/** The first of these workflows that matches, if any: described, not listed, as visibility may lag behind a workflow's state. */
async function firstThat(matches: (description: Description) => boolean, workflowIds: string[]): Promise<string | undefined> {
  for (const workflowId of workflowIds) if (matches(await temporal.client.workflow.getHandle(workflowId).describe())) return workflowId;
  return undefined;
}

/**
 * Waits until every run has ended, or until no open run can move any more: every event is routed, the ingest runs
 * that routed them (and handed them over) have closed, and no open run has a workflow task or an activity to do.
 * Answers the open runs' workflow ids (none when every run ended). A loaded machine ends the runs slowly: the wait
 * fails when none has ended for `stallMs`, or after `timeoutMs` in all.
 */
async function waitForRunsToSettle(account: TestAccount, experienceId: string, { stallMs, timeoutMs }: { stallMs: number; timeoutMs: number }): Promise<string[]> {
  const { client } = temporal;
  const open = `ExperienceId = '${experienceId}' AND ExecutionStatus = 'Running'`;
  let lastCount = Number.POSITIVE_INFINITY;
  let lastEndAt = Date.now();
  const settling = await until(
    'every run ended, or the open ones idle with nothing left to hand them',
    async (): Promise<{ open: number; busy: string } | { open: number; idle: string[] }> => {
      const { count } = await client.workflow.count(open);
      const ending = count < lastCount;
      lastCount = count;
      if (ending) lastEndAt = Date.now();
      else if (Date.now() - lastEndAt > stallMs) throw new Error(`no run ended for ${stallMs / 1000} s; ${count} still open`);
      if (count === 0) return { open: 0, idle: [] };
      // Runs ended since the last look: the rest may follow. The checks below are for when none did.
      if (ending) return { open: count, busy: 'runs are ending' };
      const received = await call('GET', `/accounts/${account.accountId}/events?status=RECEIVED&limit=1`, { token: account.apiKey });
      if (received.status !== 200 || received.body.items.length > 0) return { open: count, busy: 'events not yet routed' };
      const openIds: string[] = [];
      for await (const execution of client.workflow.list({ query: open })) openIds.push(execution.workflowId);
      const busyRun = await firstThat(hasWork, openIds);
      if (busyRun) return { open: count, busy: busyRun };
      // Every event is routed: once the runs that routed them have closed, every hand-over is in its run's history,
      // and a run that got one has a workflow task until it has taken it.
      const ingestRuns = [...new Set((await eventsOf(account)).map((event) => event.workflowId as string))];
      const openIngest = await firstThat(isOpen, ingestRuns);
      if (openIngest) return { open: count, busy: openIngest };
      const stillBusy = await firstThat(hasWork, openIds);
      if (stillBusy) return { open: count, busy: stillBusy };
      const idle: string[] = [];
      for (const workflowId of openIds) if (isOpen(await client.workflow.getHandle(workflowId).describe())) idle.push(workflowId);
      return { open: idle.length, idle };
    },
    (state) => 'idle' in state,
    { timeoutMs, intervalMs: 1000 },
  );
  return 'idle' in settling ? settling.idle : [];
}

/** What a report lists: how many, and the first few. */
const sample = <T>(items: T[]) => ({ count: items.length, first: items.slice(0, 10) });

/**
 * What became of each person's run: runs missing, still running (by the API), ended otherwise than their event says,
 * and what the workflows left open hold (their `state` query).
 */
async function runReport(account: TestAccount, experienceId: string, openIds: string[], advanced: Map<string, string>) {
  const leftOpen = await Promise.all(openIds.slice(0, 10).map(async (workflowId) => ({ workflowId, state: await temporal.client.workflow.getHandle(workflowId).query(runState) })));
  const runs = new Map((await allRuns(account, experienceId)).map((run) => [run.clientUserId as string, run]));
  const endedAsTold = (run: any, n: number) => {
    const steps = (run.path as Array<{ nodeId: string; outcome: string }>).map((step) => `${step.nodeId}: ${step.outcome}`);
    const eventId = advanced.get(people[n]!)!;
    return checksOut(n)
      ? run.status === 'completed' && steps.length === 3 && steps[0] === `await: checkout ${eventId}` && steps[1]!.startsWith('thanks: sent ') && steps[2] === 'done: exit'
      : run.status === 'goal_reached' && steps.length === 1 && steps[0]!.startsWith(`goal:bought: reached on purchase ${eventId}`);
  };
  return {
    missing: sample(people.filter((person) => !runs.has(person))),
    running: sample([...runs.values()].filter((run) => run.status === 'running').map((run) => `${run.clientUserId} at ${run.currentNodeId}`)),
    endedOtherwise: sample(
      people.flatMap((person, n) => {
        const run = runs.get(person);
        return run && run.status !== 'running' && !endedAsTold(run, n) ? [{ person, advancedBy: advancingEvent(n), status: run.status, path: run.path }] : [];
      }),
    ),
    leftOpen,
  };
}

/** A delivery as the API lists it, with the attempts the service recorded (by attempt number). */
interface ListedDelivery {
  eventId: string;
  attempts: Array<{ attemptNumber: number; startedAt: string; outcome: string }>;
}

/**
 * Why the requests under one webhook-id are more than the service's record of its delivery explains, if they are.
 * Explained (at least once, as test/cluster/figures.ts counts repeats): each request is an attempt the service
 * recorded, a failed one (a timeout on a loaded machine) retried; and, once, the attempt the killed worker had sent
 * and died before recording, which the next worker sent again. Attempts started before `restartedAt` are the killed
 * worker's, later ones the next worker's. Anything else is a duplicate: a second delivery of the event, a second
 * attempt recorded as delivered or one after it, or more requests than attempts.
 */
function unexplainedRepeat(requests: ReceivedRequest[], deliveries: ListedDelivery[], restartedAt: number): string | undefined {
  if (deliveries.length !== 1) return `${deliveries.length} deliveries of the event`;
  const { attempts } = deliveries[0]!;
  const delivered = attempts.filter((attempt) => attempt.outcome === 'delivered');
  if (delivered.length !== 1) return `${delivered.length} attempts recorded as delivered`;
  if (attempts.at(-1) !== delivered[0]) return 'an attempt recorded after the delivered one';
  const killedWorkers = (at: number) => at < restartedAt;
  const requestsBefore = requests.filter((request) => killedWorkers(request.receivedAt)).length;
  const attemptsBefore = attempts.filter((attempt) => killedWorkers(Date.parse(attempt.startedAt))).length;
  const cutShort = requestsBefore - attemptsBefore;
  if (cutShort > 1) return `${cutShort} requests of the killed worker with no attempt recorded`;
  // The attempt the kill cut short was the killed worker's last: the one recorded as delivered is the next worker's.
  if (cutShort === 1 && killedWorkers(Date.parse(delivered[0]!.startedAt))) return 'a request of the killed worker after its delivered attempt';
  if (requests.length - requestsBefore > attempts.length - attemptsBefore) return 'more requests from the next worker than attempts it recorded';
  return undefined;
}

/**
 * What the receiver got of each person's announcements, by envelope id (the webhook-id): announcements lost, announced
 * under more than one id, sent more than once under one id beyond what at least once explains (`unexplainedRepeat`),
 * and announced though nothing called for them.
 */
async function announcementReport(account: TestAccount, endpoint: EndpointFixture, restartedAt: number) {
  const envelopeIds = new Map<string, Set<string>>();
  const receipts = new Map<string, ReceivedRequest[]>();
  for (const request of endpoint.receiver.requests) {
    const envelope = verifyWith(endpoint.secret, request);
    const key = `${envelope.data.clientUserId} ${envelope.type}`;
    envelopeIds.set(key, (envelopeIds.get(key) ?? new Set()).add(envelope.id));
    receipts.set(envelope.id, [...(receipts.get(envelope.id) ?? []), request]);
  }
  const expected = new Set(people.flatMap((person, n) => announcementsOf(n).map((type) => `${person} ${type}`)));
  const repeated = [...receipts].filter(([, requests]) => requests.length > 1);
  const deliveries = new Map<string, ListedDelivery[]>();
  if (repeated.length > 0) {
    const listed = await allPages<ListedDelivery>(`/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/deliveries`, { token: account.apiKey });
    for (const delivery of listed) deliveries.set(delivery.eventId, [...(deliveries.get(delivery.eventId) ?? []), delivery]);
  }
  return {
    lost: sample([...expected].filter((key) => !envelopeIds.has(key))),
    duplicated: sample([...envelopeIds].filter(([, ids]) => ids.size > 1).map(([key, ids]) => `${key}: ${[...ids].join(', ')}`)),
    sentTwice: sample(
      repeated.flatMap(([eventId, requests]) => {
        const ofEvent = deliveries.get(eventId) ?? [];
        const why = unexplainedRepeat(requests, ofEvent, restartedAt);
        if (why === undefined) return [];
        const attempts = ofEvent.flatMap((delivery) => delivery.attempts.map((attempt) => `${attempt.attemptNumber}:${attempt.outcome}@${Date.parse(attempt.startedAt) - restartedAt}`));
        return [{ eventId, why, receivedAfterRestartMs: requests.map((request) => request.receivedAt - restartedAt), attempts }];
      }),
    ),
    unexpected: sample([...envelopeIds.keys()].filter((key) => !expected.has(key))),
  };
}

describe('advancing flow runs survive a worker crash', () => {
  it(`ends each of ${runCount} runs advanced across a SIGKILL of the worker, and announces each goal and end exactly once`, { timeout: 960_000 }, async () => {
    const caFile = join(scratch, 'receiver-ca.pem');
    await writeFile(caFile, inject('receiverCert'));
    const workerEnv = { NODE_EXTRA_CA_CERTS: caFile };
    // A stack of its own: an API and a worker process on a task queue nobody else polls.
    const taskQueue = `advance-crash-${randomUUID()}`;
    const api = await startApiInstance({ taskQueue });
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['experience.action', 'experience.goal.reached', 'experience.ended']);
    try {
      const connection = await newConnection(account);
      const created = await call('POST', `/accounts/${account.accountId}/experiences`, { token: account.apiKey, body: { definition }, baseUrl: api.url });
      const experienceId = created.body.experienceId as string;
      expect((await call('POST', `/accounts/${account.accountId}/experiences/${experienceId}/publish`, { token: account.apiKey, baseUrl: api.url })).status).toBe(200);

      const first = track(await startWorkerProcess(taskQueue, workerEnv));
      const indices = people.map((_, n) => n);
      await postEvents(api, connection, indices, () => 'cart');
      await until(
        `${runCount} runs live`,
        async () => (await temporal.client.workflow.count(`ExperienceId = '${experienceId}' AND ExecutionStatus = 'Running'`)).count,
        (live) => live === runCount,
        { timeoutMs: 120_000, intervalMs: 250 },
      );

      const advanced = await postEvents(api, connection, indices.slice(0, advancedFirst), advancingEvent);
      const endsReceived = countOfType(endpoint.receiver.requests, 'experience.ended');
      // Beside a bench, 111 ends had come in 120 s: the bound is for a stall, not for a busy machine.
      await until(`${endsBeforeKill} ends at the receiver`, endsReceived, (ends) => ends >= endsBeforeKill, { timeoutMs: 300_000, intervalMs: 25 });
      const bursting = postEvents(api, connection, indices.slice(advancedFirst, advancedFirst + burst), advancingEvent);
      // Awaited below; this keeps a failure meanwhile from counting as unhandled.
      bursting.catch(() => undefined);
      // The newest routed event is the burst's once any of the burst is routed: every other event is older.
      const newestRouted = async () => (await call('GET', `/accounts/${account.accountId}/events?status=PROCESSED&limit=1`, { token: account.apiKey })).body.items[0];
      const burstPeople = new Set(people.slice(advancedFirst, advancedFirst + burst));
      await until('the first event of the burst routed', newestRouted, (event) => burstPeople.has(event?.clientUserId), { timeoutMs: 60_000, intervalMs: 10 });
      await killWorker(first);
      // The burst's last posts and the rest are accepted while no worker runs: the next one hands them over.
      for (const [person, eventId] of [...(await bursting), ...(await postEvents(api, connection, indices.slice(advancedFirst + burst), advancingEvent))]) advanced.set(person, eventId);
      // Every request the receiver has read by now came from the killed worker; every later one, from the next.
      const restartedAt = Date.now();
      track(await startWorkerProcess(taskQueue, workerEnv));

      // Runs: each ended as its event says, none left open (a run left waiting shows what its workflow holds).
      const openIds = await waitForRunsToSettle(account, experienceId, { stallMs: 90_000, timeoutMs: 480_000 });
      expect(await runReport(account, experienceId, openIds, advanced)).toEqual({ missing: sample([]), running: sample([]), endedOtherwise: sample([]), leftOpen: [] });

      // Announcements: once every outbound event has settled, the receiver's count is final.
      await waitForEventsSettled([account.accountId], 120_000);
      expect(await announcementReport(account, endpoint, restartedAt)).toEqual({ lost: sample([]), duplicated: sample([]), sentTwice: sample([]), unexpected: sample([]) });
    } finally {
      await endpoint.receiver.close();
      await api.stop();
    }
  });
});

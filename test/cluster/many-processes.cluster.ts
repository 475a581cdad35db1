import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeFcm, type FakeFcm } from '../../src/dev/fake-fcm.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { newAudience, newStockMessage, scheduleSend, waitForSend } from '../support/campaigns.ts';
import { experienceDefinition, publishedExperience } from '../support/experiences.ts';
import { writeServiceAccount, type TestServiceAccount } from '../support/fcm.ts';
import { ok } from '../support/http-assertions.ts';
import { newConnection, type ConnectionFixture } from '../support/ingest.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';
import { processedEvents, pushFigures, webhookRepeats } from './figures.ts';
import { ApiPair, jobToAccepted, pollReadyz, postEvents } from './load.ts';
import { clusterApi, clusterWorker, migrate, signalAndWait, unlessCrashed } from './processes.ts';

// The service as a deployment runs it, on one machine: two API processes and three workers (two bulk, one
// interactive) behind a PgBouncer in transaction mode, loaded through both APIs at once while one bulk worker and
// one API are killed (SIGKILL), the other bulk worker drains (SIGTERM) and a new one starts. At the end every
// accepted event was processed once, every webhook delivered once, every device pushed once, every job ACCEPTED,
// and no run is left open; the surviving API stayed ready. Prints one JSON line of figures. docs/operations.md.

const users = 150;
const devices = 5_000;
const jobs = 6;
const settleMs = 180_000;

const progress = (message: string) => process.stderr.write(`[cluster ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

interface Cluster {
  apiA: { child: ChildProcess; url: string };
  apiB: { child: ChildProcess; url: string };
  workers: Record<'interactive' | 'bulk1' | 'bulk2', ChildProcess>;
  pushEnv: NodeJS.ProcessEnv;
}

interface Workload {
  account: TestAccount;
  connection: ConnectionFixture;
  endpoint: EndpointFixture;
  segmentId: string;
  messageId: string;
}

let fake: FakeFcm;
let serviceAccount: TestServiceAccount;
let cluster: Cluster;
let workload: Workload;
const migrations: Array<Awaited<ReturnType<typeof migrate>>> = [];
/** Every process the test started, stopped at the end whatever happened (one already gone is skipped). */
const children: ChildProcess[] = [];

/** Keeps the started process (or API) for the end. */
async function kept<T extends ChildProcess | { child: ChildProcess }>(starting: Promise<T>): Promise<T> {
  const started = await starting;
  children.push('child' in started ? started.child : started);
  return started;
}

async function startCluster(): Promise<Cluster> {
  fake = await startFakeFcm({ cert: inject('receiverCert'), key: inject('receiverKey'), projectId: 'richpush-cluster' });
  serviceAccount = await writeServiceAccount({ project_id: 'richpush-cluster', token_uri: fake.tokenUri });
  // The workers trust the fake FCM's and the receivers' certificate (one, for localhost) as the suite's do.
  const caFile = await serviceAccount.writeVariant('local-ca.pem', inject('receiverCert'));
  const pushEnv = { PUSH_PROVIDER: 'fcm', FCM_SERVICE_ACCOUNT_FILE: serviceAccount.file, FCM_BASE_URL: fake.baseUrl, NODE_EXTRA_CA_CERTS: caFile };
  // The APIs side by side, then one worker at a time: five processes starting at once on 2 cores take longer together.
  const [apiA, apiB] = await Promise.all([clusterApi(caFile, progress, Number(new URL(inject('apiUrl')).port)), clusterApi(caFile, progress)].map(kept));
  const interactive = await kept(clusterWorker('interactive', pushEnv, progress));
  const bulk1 = await kept(clusterWorker('bulk', pushEnv, progress));
  const bulk2 = await kept(clusterWorker('bulk', pushEnv, progress));
  progress('two APIs and three workers running');
  return { apiA: apiA!, apiB: apiB!, workers: { interactive, bulk1, bulk2 }, pushEnv };
}

async function prepareWorkload(): Promise<Workload> {
  const account = await newAccount('cluster');
  const connection = await newConnection(account);
  const endpoint = await newEndpoint(account, ['experience.action']);
  // A flow each user's signup starts: a webhook, a wait for the user's app.opened, another webhook, the end.
  const nodes = [
    { id: 'hello', type: 'webhook', result: { step: 'hello' }, next: 'await' },
    { id: 'await', type: 'waitForEvent', eventType: 'app.opened', conditions: null, timeoutSeconds: 600, next: 'bye', timeoutNext: 'done' },
    { id: 'bye', type: 'webhook', result: { step: 'bye' }, next: 'done' },
    { id: 'done', type: 'exit' },
  ];
  await publishedExperience(account, experienceDefinition({ nodes }));
  const { segment } = await newAudience(account, devices, 'cluster');
  const { message } = await newStockMessage(account);
  return { account, connection, endpoint, segmentId: segment.id, messageId: message.id };
}

beforeAll(async () => {
  // Two `npm run migrate` at once, as two pods' hook jobs would: each migration applied once.
  migrations.push(...(await Promise.all([migrate(), migrate()])));
  cluster = await startCluster();
  workload = await prepareWorkload();
}, 300_000);

afterAll(async () => {
  await Promise.all(children.map((child) => signalAndWait(child, 'SIGTERM')));
  await workload?.endpoint.receiver.close();
  await fake?.close();
  await serviceAccount?.remove();
});

/** The faults, each once the load is under way: a bulk worker killed and another started, the other drained. */
async function workerFaults(): Promise<void> {
  await fake.waitForAccepted(devices / 5, settleMs);
  await signalAndWait(cluster.workers.bulk1, 'SIGKILL');
  progress(`bulk worker 1 killed (SIGKILL) at ${fake.accepted()} pushes`);
  await kept(clusterWorker('bulk', cluster.pushEnv, progress));
  progress('bulk worker 3 started');
  await signalAndWait(cluster.workers.bulk2, 'SIGTERM');
  progress(`bulk worker 2 drained (SIGTERM) at ${fake.accepted()} pushes`);
}

/** Every accepted event's flow sent its webhook: the receiver has `count` distinct webhook-ids. */
const webhookIds = () => new Set(workload.endpoint.receiver.requests.map((request) => String(request.headers['webhook-id'])));

async function runLoad(apis: ApiPair) {
  const { account, connection, messageId, segmentId } = workload;
  const caller = { ...account, baseUrl: cluster.apiB.url };
  ok(await scheduleSend(caller, messageId, { playTime: Date.now() + 1_000, filterId: segmentId }));
  const faults = workerFaults();
  const jobRuns = Promise.all(Array.from({ length: jobs }, (_, index) => jobToAccepted(account, apis, index)));
  const signups = await postEvents(apis, connection, 'signup', users, () => {});
  progress(`${signups} signups accepted`);
  await until('a hello webhook for every signup', () => webhookIds().size >= signups, { timeoutMs: settleMs, intervalMs: 200 });
  // The second half of the app.opened events meets an API that was killed: they go to the other one.
  const opened = await postEvents(apis, connection, 'app.opened', users, (posted) => {
    if (posted !== users / 2) return;
    void signalAndWait(cluster.apiB.child, 'SIGKILL').then(() => {
      apis.markGone(cluster.apiB.url);
      progress(`API B killed (SIGKILL) after ${posted} app.opened events`);
    });
  });
  await faults;
  const jobIds = await jobRuns;
  return { accepted: signups + opened, signups, jobIds };
}

/**
 * What the open runs wait for (their pending activities and workflow task, with attempts and last failures), said on
 * stderr when the test gives up waiting: the histories are gone with the dev server once the run ends.
 */
async function reportOpenRuns(): Promise<void> {
  const { client, close } = await temporalClient();
  try {
    let shown = 0;
    for await (const run of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
      if (++shown > 10) break;
      const { raw } = await client.workflow.getHandle(run.workflowId, run.runId).describe();
      const activities = (raw.pendingActivities ?? []).map((activity) => ({
        type: activity.activityType?.name,
        state: activity.state,
        attempt: activity.attempt,
        lastFailure: activity.lastFailure?.message,
        lastWorker: activity.lastWorkerIdentity,
      }));
      const task = raw.pendingWorkflowTask && { state: raw.pendingWorkflowTask.state, attempt: raw.pendingWorkflowTask.attempt };
      progress(`open run ${run.type}:${run.workflowId} (history ${run.historyLength}): ${JSON.stringify({ activities, task })}`);
    }
  } finally {
    await close();
  }
}

async function openRuns(): Promise<string[]> {
  const { client, close } = await temporalClient();
  try {
    const open: string[] = [];
    for await (const run of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) open.push(`${run.type}:${run.workflowId}`);
    return open;
  } finally {
    await close();
  }
}

describe('the service as many processes behind PgBouncer', () => {
  it('migrates once from two processes at once', () => {
    expect(migrations.map((run) => run.code)).toEqual([0, 0]);
    const said = migrations.flatMap((run) => run.messages);
    expect(said.filter((message) => /^applied \d+ migration/.test(message))).toHaveLength(1);
    expect(said).toContain('database is up to date');
  });

  it('processes every accepted event, webhook, push and job once while processes die', { timeout: 900_000 }, async () => {
    const readyz = pollReadyz(cluster.apiA.url);
    const apis = new ApiPair(cluster.apiA.url, cluster.apiB.url);
    const { account, endpoint, messageId } = workload;
    // A process that dies on its own fails the test at once (the rest would wait for work nobody does).
    const load = await unlessCrashed(runLoad(apis));
    progress(`load sent: ${load.accepted} events accepted, ${load.jobIds.length} jobs accepted`);
    const settled = unlessCrashed(
      (async () => {
        const sent = await waitForSend(account, messageId, (state) => state.state === 'SENT', settleMs);
        await until('a webhook for every accepted event', () => webhookIds().size >= load.accepted, { timeoutMs: settleMs, intervalMs: 200 });
        return sent;
      })(),
    );
    const send = await settled.catch(async (error: unknown) => {
      await reportOpenRuns();
      throw error;
    });
    const stillOpen = await unlessCrashed(until('no run left open', openRuns, (open) => open.length === 0, { timeoutMs: settleMs, intervalMs: 1_000 }).catch(() => openRuns()));
    const gap = await readyz.stop();

    const processed = await processedEvents(account.accountId);
    const jobStates = await Promise.all(load.jobIds.map(async (id) => ok(await call('GET', `/job/get?id=${id}`, { token: account.apiKey })).status as string));
    const acceptedJobs = jobStates.filter((state) => state === 'ACCEPTED').length;
    const delivered = webhookIds().size;
    const pushes = pushFigures(fake);
    const repeats = await webhookRepeats(endpoint.receiver);
    const figures = {
      events: processed,
      deliveries: delivered,
      pushes: pushes.pushed,
      jobs: acceptedJobs,
      lost: load.accepted - processed + (load.accepted - delivered) + (devices - pushes.pushed) + (jobs - acceptedJobs),
      duplicates: repeats.repeats + pushes.duplicates,
      webhookRetriesAfterFailedAttempt: repeats.afterFailedAttempt,
      webhookResentAfterRecordedDelivery: repeats.afterRecordedDelivery,
      pushesUnconfirmed: send.failed,
      readyzLongestGapMs: gap.longestGapMs,
      readyzFailures: gap.failures.length,
      openRuns: stillOpen.length,
    };
    if (repeats.samples.length > 0) progress(`repeated webhooks: ${JSON.stringify(repeats.samples)}`);
    if (gap.failures.length > 0 || stillOpen.length > 0) progress(`readyz failures: ${JSON.stringify(gap.failures)}; open runs: ${JSON.stringify(stillOpen.slice(0, 10))}`);
    // Printed by the set-up as the run ends (test/cluster/global-setup.ts), on a line of its own.
    await writeFile(inject('figuresFile'), JSON.stringify(figures));

    // Each device got its push once; the send counts those whose answer a dying worker never recorded as failed
    // (unconfirmed: never sent again), so sent and failed add up to the audience.
    expect(send.sent + send.failed).toBe(devices);
    expect(load.accepted).toBe(2 * users);
    expect(figures).toMatchObject({ events: load.accepted, deliveries: load.accepted, pushes: devices, jobs, lost: 0, openRuns: 0 });
    // Never a second push, nor a webhook sent again once its delivery was recorded. A webhook whose receiver answered
    // just before its worker was killed, with nothing recorded yet, is sent again (at least once, under the same
    // webhook-id for the receiver to drop): counted in `duplicates`, not failed on.
    expect(pushes.duplicates).toBe(0);
    expect(repeats.afterRecordedDelivery).toBe(0);
    expect(gap.failures).toEqual([]);
  });
});

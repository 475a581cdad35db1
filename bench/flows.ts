/**
 * `npm run bench:flows`: ingested events routed into flows while many experiences are active and many runs are live,
 * through the whole service (the real API, worker, Postgres and a Temporal dev server, all in this process).
 *
 * The worker and the API run in processes of their own (`npm run worker`, `npm run api`), so each one's CPU and the
 * worker's peak memory are its own.
 *
 * 1. Set-up: EXPERIENCES active experiences. All but two start on `visit` and then wait 30 days; enough `visit`
 *    events are posted that RUNS runs are live (each `visit` enters every waiting experience). One starts on
 *    `signup` and fires a webhook action at once (routing takes such a run to its end: ADR 0066). The last,
 *    `Checkout`, starts on `cart` and waits for `checkout`, with an exit goal on `purchase`: ADVANCE_RUNS shoppers
 *    post a `cart` each. Timed until the runs' rows are written, until Temporal has started every run, and until
 *    the task queue is empty; nothing is measured before.
 * 2. Ingest acceptance (the bench:ingest service path): CLIENTS closed-loop clients post an event type no experience
 *    listens to for DURATION_S; accepted/s. Then the events are processed and their batch runs closed.
 * 3. One at a time: SOLO `webhook.test` events, then SOLO `signup` events of new people, each sent once the last one
 *    arrived; publish → receipt and post → `experience.action` receipt with nothing queued.
 * 4. Delivery under load (the bench:delivery service path): DELIVERIES `webhook.test` events through
 *    `POST …/endpoints/{id}/test`, CONCURRENCY in flight; publish → receipt per event.
 * 5. Flows under load: CLIENTS clients post `signup` events of new people for DURATION_S; each is routed against
 *    every active experience and the people's live runs, starts a run, and the run's webhook action reaches a local
 *    HTTPS receiver. Events routed per second (post of the first → the last PROCESSED) and post →
 *    `experience.action` receipt per event (which, with acceptance far faster than processing, is mostly queueing).
 * 6. Advancing live runs: CLIENTS clients post, for one shopper after another, a `checkout` (the run's waitForEvent
 *    takes it) and a `purchase` (its goal ends the run), side by side, for DURATION_S or until the shoppers run out.
 *    Events routed per second, the later post → `experience.goal.reached` receipt per shopper, and runs ended on
 *    their goal per second (first post → last goal receipt).
 * 7. The Temporal floor (one workflow, one activity per unit) on the same server, and the hand-over floor:
 *    HANDOVER_RUNS bare runs left waiting, each then handed a checkout and a purchase in one signal, on which it ends
 *    (a worker caching as many runs as the service's): what any design that keeps each live run a workflow pays per
 *    advance before doing any work. Advancing is also divided by it (two events per hand-over).
 *
 * Phases 5 and 6 also print what each routed event cost: workflow tasks, activities, local activities and history
 * events (read from the histories of the runs the phase started or closed), and CPU ms of the dev server, the
 * worker, PostgreSQL and the API. Ratios: routed/s over ingest accepted/s, flow latency over delivery latency,
 * routed/s over the floor. Figures go to stdout (the last line is one JSON object), progress to stderr. Optional
 * environment: EXPERIENCES (100), RUNS (10000), ADVANCE_RUNS (4000), HANDOVER_RUNS (2000), DURATION_S (15), CLIENTS (16), DELIVERIES
 * (200), CONCURRENCY (16), SOLO (20), SETTLE_TIMEOUT_S (900), TEMPORAL_DB=memory|file (file for RUNS=100000:
 * in memory the dev server keeps every open run's history resident), DATABASE_URL, LOG_LEVEL; for experiments,
 * WORKER_NODE_OPTIONS (NODE_OPTIONS of the worker process, e.g. --cpu-prof).
 */
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import type pg from 'pg';
import protos from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createConnection } from '../src/domain/connections/create-connection.ts';
import { createEndpoint } from '../src/domain/endpoints/create-endpoint.ts';
import { createExperience } from '../src/domain/experiences/create-experience.ts';
import { experienceDefinitionSchema, type ExperienceDefinitionInput } from '../src/domain/experiences/definition-schema.ts';
import { publishExperience } from '../src/domain/experiences/publish-experience.ts';
import { parseAllowCidrs, systemResolve } from '../src/security/ip-policy.ts';
import { createSecretBox } from '../src/security/secret-box.ts';
import { buildWebhookHeaders } from '../src/security/standard-webhooks.ts';
import { generateLocalCertificate } from '../src/dev/local-certificate.ts';
import { positiveInt } from './support/env.ts';
import { experienceRunWorkflowType } from '../workflows/experience-run.contract.ts';
import { ingestBatchWorkflowType } from '../workflows/ingest-batch.contract.ts';
import { driveLoad, type LoadRequest, type LoadResult } from './support/http-load.ts';
import { createJsonClient } from './support/json-client.ts';
import { medianStages, type TracedEvent } from './support/flow-stages.ts';
import { machineLines } from './support/machine.ts';
import { Recording, startBenchReceiver } from './support/receiver.ts';
import { processMemoryMiB, sampleMemoryPeak } from './support/memory.ts';
import { freePort } from '../src/dev/free-port.ts';
import { metricPrefix } from '../src/metrics/registry.ts';
import { cpuSpent, readCpu, type CpuReading } from './support/process-cpu.ts';
import { runBench, startBenchApiProcess, startBenchWorkerProcess, startStack, type BenchContext } from './support/stack.ts';
import { temporalCostSince, totalCost, type TemporalCost } from './support/temporal-cost.ts';
import { ascending, fmt, percentile, runBounded } from './support/stats.ts';
import { handOverEventTypes, measureHandOverFloor, measureTemporalFloor } from './support/temporal-floor.ts';
import { cachedWorkflowsPerWorker } from '../src/temporal/worker.ts';
import { temporalDbOption, temporalStore } from './support/temporal-store.ts';

const EXPERIENCES = positiveInt('EXPERIENCES', 100, 3);
const RUNS = positiveInt('RUNS', 10_000);
const ADVANCE_RUNS = positiveInt('ADVANCE_RUNS', 4000);
const HANDOVER_RUNS = positiveInt('HANDOVER_RUNS', 2000);
const WORKER_NODE_OPTIONS = process.env.WORKER_NODE_OPTIONS ?? '';
const DURATION_S = positiveInt('DURATION_S', 15);
const CLIENTS = positiveInt('CLIENTS', 16);
const DELIVERIES = positiveInt('DELIVERIES', 200);
const CONCURRENCY = positiveInt('CONCURRENCY', 16);
const SOLO = positiveInt('SOLO', 20);
const SETTLE_TIMEOUT_MS = positiveInt('SETTLE_TIMEOUT_S', 900) * 1000;
const allowCidrs = '127.0.0.0/8,::1/128';
const runTag = randomBytes(4).toString('hex');
const taskQueue = `bench-flows-${runTag}`;
const namespace = 'default';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[bench:flows] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

const waitingDefinition = (index: number): ExperienceDefinitionInput => ({
  name: `Waiting ${index}`,
  trigger: { eventType: 'visit' },
  entry: { reentry: 'never' },
  goals: [{ id: 'bought', eventType: 'purchase', exit: true }],
  start: 'wait',
  nodes: [
    { id: 'wait', type: 'wait', seconds: 30 * 86_400, next: 'done' },
    { id: 'done', type: 'exit' },
  ],
});

const measuredDefinition: ExperienceDefinitionInput = {
  name: 'Welcome (measured)',
  trigger: { eventType: 'signup' },
  entry: { reentry: 'never' },
  goals: [],
  start: 'welcome',
  nodes: [
    { id: 'welcome', type: 'webhook', result: { step: 'welcome' }, next: 'done' },
    { id: 'done', type: 'exit' },
  ],
};

const checkoutDefinition: ExperienceDefinitionInput = {
  name: 'Checkout (advanced)',
  trigger: { eventType: 'cart' },
  entry: { reentry: 'never' },
  goals: [{ id: 'bought', eventType: 'purchase', exit: true }],
  start: 'await',
  nodes: [
    { id: 'await', type: 'waitForEvent', eventType: 'checkout', timeoutSeconds: 30 * 86_400, next: 'linger', timeoutNext: 'done' },
    { id: 'linger', type: 'wait', seconds: 30 * 86_400, next: 'done' },
    { id: 'done', type: 'exit' },
  ],
};

interface Target {
  origin: string;
  inboundKey: string;
  secret: string;
}

/** A signed direct envelope of `eventType` for person `clientUserId(index)`, built at the moment it is sent. */
const eventRequests =
  (target: Target, phase: string, eventType: string, clientUserId: (index: number) => string) =>
  (index: number): LoadRequest => {
    const messageId = `${phase}-${runTag}-${index}`;
    const body = JSON.stringify({ version: '1', messageId, occurredAt: new Date().toISOString(), eventType, clientUserId: clientUserId(index), attributes: { plan: 'pro' } });
    const headers = buildWebhookHeaders({ id: messageId, timestamp: Math.floor(Date.now() / 1000), body, secrets: [target.secret] });
    return { path: `/v1/in/${target.inboundKey}`, headers, body, tag: clientUserId(index) };
  };

async function load(label: string, options: { origin: string; next: (index: number) => LoadRequest }, signal: AbortSignal): Promise<LoadResult> {
  progress(`${label}: ${CLIENTS} clients for ${DURATION_S} s`);
  const result = await driveLoad({
    origin: options.origin,
    clients: CLIENTS,
    durationMs: DURATION_S * 1000,
    next: options.next,
    signal,
    onProgress: (elapsedMs, accepted) => progress(`${label}: ${fmt(elapsedMs / 1000, 0)} s, ${accepted} accepted`),
  });
  signal.throwIfAborted();
  return result;
}

/** Polls `check` until it says done, printing its progress line about every 2 s; fails after the deadline. */
async function waitUntil(label: string, check: () => Promise<{ done: boolean; line: string }>, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let lastReport = 0;
  for (;;) {
    signal.throwIfAborted();
    const { done, line } = await check();
    if (done || Date.now() - lastReport >= 2000) {
      progress(`${label}: ${line}`);
      lastReport = Date.now();
    }
    if (done) return;
    if (Date.now() > deadline) throw new Error(`${label}: not done within ${SETTLE_TIMEOUT_MS / 1000} s (${line})`);
    await sleep(200);
  }
}

/** Tasks waiting on the task queue (workflow + activity), from the server's own approximate backlog counts. */
async function taskQueueBacklog(client: Client): Promise<number> {
  const { TaskQueueType } = protos.temporal.api.enums.v1;
  const types = [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY];
  let backlog = 0;
  for (const taskQueueType of types) {
    const answer = await client.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType, reportStats: true });
    backlog += Number(answer.stats?.approximateBacklogCount ?? 0);
  }
  return backlog;
}

/** When each person's outbound event of this type (`experience.action` unless named) arrived, from the bodies a recording kept. */
function receiptsByPerson(recording: Recording, type = 'experience.action'): Map<string, number> {
  return new Map([...receivedEventsByPerson(recording, type)].map(([user, { at }]) => [user, at]));
}

/** As `receiptsByPerson`, with each receipt's webhook-id (the outbound event's id). */
function receivedEventsByPerson(recording: Recording, type = 'experience.action'): Map<string, { at: number; id: string }> {
  const byUser = new Map<string, { at: number; id: string }>();
  for (const [id, body] of recording.bodies) {
    const envelope = JSON.parse(body) as { type: string; data: { clientUserId: string | null } };
    if (envelope.type === type && envelope.data.clientUserId) byUser.set(envelope.data.clientUserId, { at: recording.receivedAt.get(id)!, id });
  }
  return byUser;
}

/** Resolves once `condition` holds (polled every 5 ms), or fails after 60 s. */
async function until(label: string, condition: () => boolean, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    signal.throwIfAborted();
    if (Date.now() > deadline) throw new Error(`${label}: not done within 60 s`);
    await sleep(5);
  }
}

const countOf = async (sql: pg.Client, text: string, params: unknown[]) => Number((await sql.query<{ n: string }>(text, params)).rows[0]!.n);

const latencyFigures = (latencies: number[]) => {
  const sorted = ascending(latencies);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
};

/** Waits until no ingest batch run is open and no task is queued: what a phase set going has finished. */
async function waitForQuiet(client: Client, signal: AbortSignal): Promise<void> {
  await waitUntil(
    'quiet',
    async () => {
      const { count } = await client.workflow.count(`TaskQueue = '${taskQueue}' AND WorkflowType = '${ingestBatchWorkflowType}' AND ExecutionStatus = 'Running'`);
      const backlog = await taskQueueBacklog(client);
      return { done: count === 0 && backlog === 0, line: `${count} ingest batch runs open, ${backlog} tasks queued` };
    },
    signal,
  );
}

/** CPU ms per routed event of the dev server, the worker, PostgreSQL (this database) and the API, between two readings. */
function cpuPerEvent(before: CpuReading | undefined, after: CpuReading | undefined, events: number) {
  const spent = new Map(before && after ? cpuSpent(before, after) : []);
  const ms = (name: string) => ((spent.get(name) ?? Number.NaN) * 1000) / events;
  return { temporal: ms('Temporal dev server'), worker: ms('worker'), postgres: ms('PostgreSQL (this database)'), api: ms('API') };
}

/** A phase's Temporal cost per routed event, with the runs of each workflow type. */
function perEvent(byType: Map<string, TemporalCost>, events: number) {
  const total = totalCost(byType);
  return {
    workflowTasks: total.workflowTasks / events,
    activities: total.activities / events,
    localActivities: total.localActivities / events,
    historyEvents: total.historyEvents / events,
    /** Per type: runs read, and workflow tasks, activities and local activities per routed event. */
    byType: [...byType].map(([type, cost]) => ({ type, runs: cost.runs, workflowTasks: cost.workflowTasks / events, activities: cost.activities / events, localActivities: cost.localActivities / events })),
  };
}

async function main(context: BenchContext): Promise<number> {
  const { signal, teardown } = context;
  const loadAtStart = loadavg();
  const waitingExperiences = EXPERIENCES - 2;
  const visitors = Math.ceil(RUNS / waitingExperiences);
  progress(
    `EXPERIENCES=${EXPERIENCES} RUNS=${RUNS} (${visitors} people × ${waitingExperiences} waiting experiences) ADVANCE_RUNS=${ADVANCE_RUNS} DURATION_S=${DURATION_S} CLIENTS=${CLIENTS} Temporal: ${temporalStore}`,
  );

  const temporalDb = await temporalDbOption(context, 'flows');
  const stack = await startStack(context, progress, { taskQueue, namespace, outboundAllowCidrs: allowCidrs, temporalDb });
  const { workerOrm, sql, settings } = stack;
  const certificate = await generateLocalCertificate();
  const receiver = await startBenchReceiver(certificate);
  teardown.add('receiver', receiver.close);
  // The worker trusts the receiver's certificate as production trusts a private CA: NODE_EXTRA_CA_CERTS.
  const caFile = join(tmpdir(), `bench-flows-ca-${runTag}.pem`);
  await writeFile(caFile, certificate.cert);
  teardown.add('CA file', () => rm(caFile, { force: true }));
  progress('starting the worker and the API, each in a process of its own');
  const workerMetricsPort = await freePort();
  const worker = await startBenchWorkerProcess(context, stack, {
    METRICS_PORT: String(workerMetricsPort),
    NODE_EXTRA_CA_CERTS: caFile,
    OUTBOUND_ALLOW_CIDRS: allowCidrs,
    ...(WORKER_NODE_OPTIONS ? { NODE_OPTIONS: WORKER_NODE_OPTIONS } : {}),
  });
  // The worker's memory at its highest sample, heap against native, to say what a peak is made of.
  const workerMemory = sampleMemoryPeak(`http://127.0.0.1:${workerMetricsPort}/metrics`, metricPrefix);
  teardown.add('worker memory sampler', async () => workerMemory.stop());
  const api = await startBenchApiProcess(context, stack, { INGEST_RATE_LIMIT_PER_SECOND: '1000000', INGEST_RATE_LIMIT_BURST: '1000000' });
  const processes = new Map([
    [worker.pid!, 'worker'],
    [api.pid, 'API'],
  ]);
  const databaseName = new URL(settings.databaseUrl).pathname.slice(1);

  const em = () => workerOrm.em.fork();
  const secrets = createSecretBox(settings.secretsKey);
  const outbound = { allow: parseAllowCidrs(allowCidrs), resolve: systemResolve };
  const { account, apiKey } = await createAccount(em(), { name: 'bench-flows' });
  const { connection, signingSecret } = await createConnection({ em: em(), secrets, outbound }, account.id, { provider: 'direct', label: 'bench' });
  const { endpoint, secret } = await createEndpoint({ em: em(), secrets, outbound }, account.id, {
    url: receiver.url,
    eventTypes: ['experience.action', 'experience.goal.reached', 'webhook.test'],
    description: 'bench receiver',
  });
  receiver.secrets = [secret];
  const target: Target = { origin: api.url, inboundKey: connection.inboundKey, secret: signingSecret };

  // --- 1. Active experiences and live runs ---------------------------------------------------------------------
  progress(`publishing ${EXPERIENCES} experiences`);
  const definitions = [...Array.from({ length: waitingExperiences }, (_, index) => waitingDefinition(index)), measuredDefinition, checkoutDefinition];
  for (const input of definitions) {
    const experience = await createExperience(em(), account.id, { definition: experienceDefinitionSchema.parse(input) });
    await publishExperience(em(), account.id, experience.id);
  }
  progress(`posting ${visitors} visit events to start ${visitors * waitingExperiences} waiting runs`);
  const visitRequest = eventRequests(target, 'visit', 'visit', (index) => `visitor-${index}`);
  const client = createJsonClient(api.url, CONCURRENCY);
  teardown.add('API client', async () => client.close());
  const post = async (request: LoadRequest) => {
    const answer = await fetch(`${api.url}${request.path}`, { method: 'POST', headers: { ...request.headers, 'content-type': 'application/json' }, body: request.body });
    if (answer.status !== 202) throw new Error(`event answered ${answer.status}: ${await answer.text()}`);
  };
  const liveStarted = now();
  await runBounded(visitors, CONCURRENCY, (index) => post(visitRequest(index)));
  progress(`posting ${ADVANCE_RUNS} cart events to start as many checkout runs`);
  const cartRequest = eventRequests(target, 'cart', 'cart', (index) => `shopper-${index}`);
  await runBounded(ADVANCE_RUNS, CONCURRENCY, (index) => post(cartRequest(index)));
  const liveTarget = visitors * waitingExperiences;
  const setupRuns = liveTarget + ADVANCE_RUNS;
  await waitUntil(
    'live runs',
    async () => {
      const live = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and status = 'running' and current_node_id in ('wait', 'await')`, [account.id]);
      return { done: live >= setupRuns, line: `${live}/${setupRuns} runs waiting` };
    },
    signal,
  );
  const liveS = (now() - liveStarted) / 1000;
  // Routing writes a run's row before it starts the run: count the runs Temporal has, to time the starts themselves.
  await waitUntil(
    'runs started',
    async () => {
      const { count } = await stack.temporal.client.workflow.count(`TaskQueue = '${taskQueue}' AND WorkflowType = '${experienceRunWorkflowType}' AND ExecutionStatus = 'Running'`);
      return { done: count >= setupRuns, line: `${count}/${setupRuns} runs started` };
    },
    signal,
  );
  const startedS = (now() - liveStarted) / 1000;
  // The runs' rows say `wait` before their timers are set; measure only once the set-up's tasks are all done.
  await waitUntil(
    'set-up tasks',
    async () => {
      const backlog = await taskQueueBacklog(stack.temporal.client);
      return { done: backlog === 0, line: `${backlog} tasks still queued` };
    },
    signal,
  );
  const settledS = (now() - liveStarted) / 1000;
  // The worker's peak RSS so far at the end of each phase: which phase raised it.
  const peakAfter: Array<[string, number]> = [['set-up', (await processMemoryMiB(worker.pid!)).peakMiB]];

  // --- 2. Ingest acceptance ------------------------------------------------------------------------------------
  const ingest = await load('ingest acceptance', { origin: api.url, next: eventRequests(target, 'order', 'order.completed', (index) => `buyer-${index % 1000}`) }, signal);
  const ingestPerSecond = ingest.acceptedMs.length / (ingest.wallMs / 1000);
  const ingestLatency = latencyFigures(ingest.acceptedMs);
  await waitUntil(
    'ingest drain',
    async () => {
      const open = await countOf(sql, `select count(*) as n from inbound_events where connection_id = $1 and status not in ('PROCESSED', 'IGNORED', 'HELD', 'EXPIRED', 'FAILED')`, [connection.id]);
      return { done: open === 0, line: `${open} events still being processed` };
    },
    signal,
  );

  // The events are PROCESSED before their batch runs close: wait for those runs and every queued task, so that the
  // one-at-a-time phase measures latency with nothing queued, not the tail of this backlog.
  await waitForQuiet(stack.temporal.client, signal);

  // --- 3. One at a time: latency with nothing queued ------------------------------------------------------------
  progress(`one in flight: ${SOLO} test events, then ${SOLO} signups, each after the last one arrived`);
  const soloRecording = new Recording(true);
  receiver.recording = soloRecording;
  const soloDelivery: number[] = [];
  for (let index = 0; index < SOLO; index++) {
    const sent = now();
    const { status, body } = await client.call('POST', `/accounts/${account.id}/endpoints/${endpoint.id}/test`, { token: apiKey, body: {} });
    if (status !== 202) throw new Error(`test event answered ${status}`);
    const { eventId } = body as { eventId: string };
    await until('one test event', () => soloRecording.receivedAt.has(eventId), signal);
    soloDelivery.push(soloRecording.receivedAt.get(eventId)! - sent);
  }
  const soloSignup = eventRequests(target, 'solo', 'signup', (index) => `solo-${index}`);
  const soloFlow: TracedEvent[] = [];
  for (let index = 0; index < SOLO; index++) {
    const request = soloSignup(index);
    const sent = now();
    const answer = await fetch(`${api.url}${request.path}`, { method: 'POST', headers: { ...request.headers, 'content-type': 'application/json' }, body: request.body });
    if (answer.status !== 202) throw new Error(`signup answered ${answer.status}`);
    let received: { at: number; id: string } | undefined;
    await until('one signup', () => (received = receivedEventsByPerson(soloRecording).get(`solo-${index}`)) !== undefined, signal);
    soloFlow.push({ messageId: (JSON.parse(request.body) as { messageId: string }).messageId, postedAt: sent, receivedAt: received!.at, actionEventId: received!.id });
  }
  const soloDeliveryLatency = latencyFigures(soloDelivery);
  const soloFlowLatency = latencyFigures(soloFlow.map((event) => event.receivedAt - event.postedAt));
  const soloStages = await medianStages(sql, stack.temporal.client, soloFlow);

  // --- 4. Delivery under load ----------------------------------------------------------------------------------
  progress(`delivery: ${DELIVERIES} test events, ${CONCURRENCY} in flight`);
  const deliveryRecording = new Recording();
  receiver.recording = deliveryRecording;
  const testSentAt = new Map<string, number>();
  await runBounded(DELIVERIES, CONCURRENCY, async () => {
    const sent = now();
    const { status, body } = await client.call('POST', `/accounts/${account.id}/endpoints/${endpoint.id}/test`, { token: apiKey, body: {} });
    if (status !== 202) throw new Error(`test event answered ${status}`);
    testSentAt.set((body as { eventId: string }).eventId, sent);
  });
  await waitUntil('delivery', async () => ({ done: deliveryRecording.receivedAt.size >= DELIVERIES, line: `${deliveryRecording.receivedAt.size}/${DELIVERIES} received` }), signal);
  const deliveryLatency = latencyFigures([...testSentAt].map(([id, sent]) => deliveryRecording.receivedAt.get(id)! - sent));

  // --- 5. Flows under load ------------------------------------------------------------------------------------
  await waitForQuiet(stack.temporal.client, signal);
  const flowRecording = new Recording(true);
  receiver.recording = flowRecording;
  const flowCpuBefore = readCpu(processes, databaseName);
  const flowStarted = now();
  const signups = await load('flows', { origin: api.url, next: eventRequests(target, 'signup', 'signup', (index) => `newcomer-${index}`) }, signal);
  await waitUntil('flows', async () => ({ done: flowRecording.receivedAt.size >= signups.acceptedTags.length, line: `${flowRecording.receivedAt.size}/${signups.acceptedTags.length} actions received` }), signal);
  const { rows: routed } = await sql.query<{ n: string; first: Date; last: Date }>(
    `select count(*) as n, min(created_at) as first, max(processed_at) as last from inbound_events where connection_id = $1 and status = 'PROCESSED' and event_type = 'signup' and message_id like 'signup-%'`,
    [connection.id],
  );
  const routedCount = Number(routed[0]!.n);
  const routedPerSecond = routedCount / ((new Date(routed[0]!.last).getTime() - flowStarted) / 1000);
  const received = receiptsByPerson(flowRecording);
  const flowLatency = latencyFigures(signups.acceptedTags.flatMap((user, index) => (received.has(user) ? [received.get(user)! - signups.acceptedSentAt[index]!] : [])));
  const flowLost = signups.acceptedTags.filter((user) => !received.has(user)).length;
  await waitForQuiet(stack.temporal.client, signal);
  const flowCpu = cpuPerEvent(flowCpuBefore, readCpu(processes, databaseName), routedCount);
  peakAfter.push(['starting runs', (await processMemoryMiB(worker.pid!)).peakMiB]);
  progress('reading the histories of the flows phase');
  const flowCost = perEvent(await temporalCostSince(stack.temporal.client, taskQueue, flowStarted), routedCount);

  // --- 6. Advancing live runs ----------------------------------------------------------------------------------
  const advanceRecording = new Recording(true);
  receiver.recording = advanceRecording;
  const shoppersLeft = new AbortController();
  const shopperOf = (index: number) => `shopper-${Math.floor(index / 2)}`;
  const checkout = eventRequests(target, 'advance', 'checkout', shopperOf);
  const purchase = eventRequests(target, 'advance', 'purchase', shopperOf);
  const advanceCpuBefore = readCpu(processes, databaseName);
  const advanceStarted = now();
  progress(`advancing: ${CLIENTS} clients post a checkout and a purchase per shopper for ${DURATION_S} s (${ADVANCE_RUNS} shoppers at most)`);
  const advance = await driveLoad({
    origin: api.url,
    clients: CLIENTS,
    durationMs: DURATION_S * 1000,
    next: (index) => {
      if (index >= 2 * ADVANCE_RUNS - 1) shoppersLeft.abort();
      // A shopper's two events go out one after the other, from two clients side by side: they arrive together.
      return (index % 2 === 0 ? checkout : purchase)(index);
    },
    signal: AbortSignal.any([signal, shoppersLeft.signal]),
    onProgress: (elapsedMs, accepted) => progress(`advancing: ${fmt(elapsedMs / 1000, 0)} s, ${accepted} accepted`),
  });
  signal.throwIfAborted();
  // Per shopper: when the later of its events was posted, and how many were accepted (both, or the load stopped between).
  const advanced = new Map<string, { lastPostedAt: number; accepted: number }>();
  advance.acceptedTags.forEach((shopper, index) => {
    const seen = advanced.get(shopper);
    advanced.set(shopper, { lastPostedAt: Math.max(seen?.lastPostedAt ?? 0, advance.acceptedSentAt[index]!), accepted: (seen?.accepted ?? 0) + 1 });
  });
  const fullyPosted = [...advanced].filter(([, posted]) => posted.accepted === 2).map(([shopper]) => shopper);
  await waitUntil(
    'advancing',
    async () => {
      const goals = receiptsByPerson(advanceRecording, 'experience.goal.reached').size;
      return { done: goals >= fullyPosted.length, line: `${goals}/${fullyPosted.length} goals received` };
    },
    signal,
  );
  const { rows: advancedRows } = await sql.query<{ n: string; last: Date }>(
    `select count(*) as n, max(processed_at) as last from inbound_events where connection_id = $1 and status = 'PROCESSED' and message_id like 'advance-%'`,
    [connection.id],
  );
  const advancedCount = Number(advancedRows[0]!.n);
  const advancePerSecond = advancedCount / ((new Date(advancedRows[0]!.last).getTime() - advanceStarted) / 1000);
  const goalReceipts = receiptsByPerson(advanceRecording, 'experience.goal.reached');
  const advanceLatency = latencyFigures(fullyPosted.flatMap((shopper) => (goalReceipts.has(shopper) ? [goalReceipts.get(shopper)! - advanced.get(shopper)!.lastPostedAt] : [])));
  const advanceLost = fullyPosted.filter((shopper) => !goalReceipts.has(shopper)).length;
  // End to end: runs moved to their goal per second, from the first post to the last goal receipt (routing is ahead
  // of the runs under this load, so routed/s alone does not say how fast runs move).
  const advanceEndedPerSecond = goalReceipts.size / ((Math.max(...goalReceipts.values()) - advanceStarted) / 1000);
  await waitForQuiet(stack.temporal.client, signal);
  // A run records its end after it has published its goal, which may arrive first: wait for the ends too.
  let endedByGoal = 0;
  await waitUntil(
    'advanced runs ended',
    async () => {
      endedByGoal = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and client_user_id = any($2) and status = 'goal_reached'`, [account.id, fullyPosted]);
      return { done: endedByGoal >= fullyPosted.length, line: `${endedByGoal}/${fullyPosted.length} ended by their goal` };
    },
    signal,
  );
  const advanceCpu = cpuPerEvent(advanceCpuBefore, readCpu(processes, databaseName), advancedCount);
  peakAfter.push(['advancing runs', (await processMemoryMiB(worker.pid!)).peakMiB]);
  progress('reading the histories of the advancing phase');
  const advanceCost = perEvent(await temporalCostSince(stack.temporal.client, taskQueue, advanceStarted), advancedCount);

  const recordings = [soloRecording, deliveryRecording, flowRecording, advanceRecording];
  const duplicates = recordings.reduce((sum, recording) => sum + recording.duplicates, 0);
  const phaseNames = ['one in flight', 'deliveries', 'starting runs', 'advancing'];
  const duplicatesBy = recordings.flatMap((recording, index) => [...recording.duplicateTypes].map(([type, n]) => `${phaseNames[index]} ${type} ${n}`));
  const signatureFailures = recordings.reduce((sum, recording) => sum + recording.signatureFailures, 0);
  const lost = flowLost + advanceLost;
  const stillLive = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and status = 'running' and current_node_id = 'wait'`, [account.id]);
  const workerPeakRssMiB = (await processMemoryMiB(worker.pid!)).peakMiB;

  // --- 7. The Temporal floor -----------------------------------------------------------------------------------
  progress('measuring the Temporal floor');
  const floor = await measureTemporalFloor({ address: settings.temporalAddress, namespace, units: 300, concurrency: CLIENTS });
  progress(`measuring the hand-over floor: ${HANDOVER_RUNS} waiting runs, ${cachedWorkflowsPerWorker} cached`);
  const handOver = await measureHandOverFloor({
    address: settings.temporalAddress,
    namespace,
    units: HANDOVER_RUNS,
    concurrency: CLIENTS,
    cachedWorkflows: cachedWorkflowsPerWorker,
  });
  /** The hand-over floor in events (a shopper's checkout and purchase, handed over together), as advancing counts. */
  const handOverEventsPerSecond = handOver.perSecond * handOverEventTypes.length;

  // --- Report --------------------------------------------------------------------------------------------------
  const ms = (value: number) => fmt(value, 1);
  const costLine = (label: string, cost: ReturnType<typeof perEvent>, cpu: ReturnType<typeof cpuPerEvent>) =>
    `  ${label}: ${fmt(cost.workflowTasks, 2)} workflow tasks, ${fmt(cost.activities, 2)} activities, ${fmt(cost.localActivities, 2)} local activities, ` +
    `${fmt(cost.historyEvents, 1)} history events; CPU ms: dev server ${fmt(cpu.temporal, 2)}, worker ${fmt(cpu.worker, 2)}, PostgreSQL ${fmt(cpu.postgres, 2)}, API ${fmt(cpu.api, 2)} ` +
    `\n    by type: ${cost.byType.map((entry) => `${entry.type} (${entry.runs} runs) ${fmt(entry.workflowTasks, 2)}/${fmt(entry.activities, 2)}/${fmt(entry.localActivities, 2)}`).join(', ')} (workflow tasks/activities/local activities)`;
  out(`bench/flows  EXPERIENCES=${EXPERIENCES}  live runs=${stillLive}  ADVANCE_RUNS=${ADVANCE_RUNS}  DURATION_S=${DURATION_S}  CLIENTS=${CLIENTS}  DELIVERIES=${DELIVERIES}  CONCURRENCY=${CONCURRENCY}`);
  out();
  out(
    `Set-up: ${setupRuns} runs routed (rows written) after ${fmt(liveS, 1)} s, started in Temporal after ${fmt(startedS, 1)} s ` +
      `(${fmt(setupRuns / startedS, 1)} runs started/s from ${visitors} visit and ${ADVANCE_RUNS} cart events, posting included); task queue empty after ${fmt(settledS, 1)} s`,
  );
  out();
  out('| Path | Units | Per second | p50 ms | p99 ms | max ms |');
  out('|---|---|---|---|---|---|');
  out(`| flows: signup routed (post → PROCESSED), post → experience.action receipt | ${routedCount} routed, ${flowLatency.count} actions | ${fmt(routedPerSecond, 1)} routed/s | ${ms(flowLatency.p50)} | ${ms(flowLatency.p99)} | ${ms(flowLatency.max)} |`);
  out(
    `| advancing: checkout + purchase routed to live runs, later post → goal receipt | ${advancedCount} routed, ${advanceLatency.count} goals | ${fmt(advancePerSecond, 1)} routed/s | ${ms(advanceLatency.p50)} | ${ms(advanceLatency.p99)} | ${ms(advanceLatency.max)} |`,
  );
  out(`| ingest acceptance (202s, event no flow listens to) | ${ingestLatency.count} | ${fmt(ingestPerSecond, 1)} accepted/s | ${ms(ingestLatency.p50)} | ${ms(ingestLatency.p99)} | ${ms(ingestLatency.max)} |`);
  out(`| delivery (webhook.test, publish → receipt) | ${deliveryLatency.count} | – | ${ms(deliveryLatency.p50)} | ${ms(deliveryLatency.p99)} | ${ms(deliveryLatency.max)} |`);
  out(`| flows, one event in flight: post → experience.action receipt | ${soloFlowLatency.count} | – | ${ms(soloFlowLatency.p50)} | ${ms(soloFlowLatency.p99)} | ${ms(soloFlowLatency.max)} |`);
  out(`| delivery, one event in flight: publish → receipt | ${soloDeliveryLatency.count} | – | ${ms(soloDeliveryLatency.p50)} | ${ms(soloDeliveryLatency.p99)} | ${ms(soloDeliveryLatency.max)} |`);
  out(`| Temporal floor (one workflow, one activity) | ${floor.units} | ${fmt(floor.perSecond, 1)} runs/s | ${ms(floor.p50)} | ${ms(floor.p99)} | – |`);
  out(`| hand-over floor (a waiting run handed ${handOverEventTypes.length} events in one signal, ends) | ${handOver.units} | ${fmt(handOver.perSecond, 1)} runs/s | ${ms(handOver.p50)} | ${ms(handOver.p99)} | – |`);
  out();
  out('One event in flight, where the time goes (median ms of each stage)');
  for (const [stage, ms] of soloStages) out(`  ${stage.padEnd(40)} ${fmt(ms, 1)}`);
  out();
  out('Per routed event');
  out(costLine('flows (starting runs)', flowCost, flowCpu));
  out(costLine('advancing live runs', advanceCost, advanceCpu));
  out();
  out('Ratios');
  out(`  routed/s over ingest accepted/s      ${fmt(routedPerSecond / ingestPerSecond, 3)}`);
  out(`  routed/s over the floor              ${fmt(routedPerSecond / floor.perSecond, 3)}`);
  out(`  advancing/s over the floor           ${fmt(advancePerSecond / floor.perSecond, 3)}`);
  out(`  hand-over floor over the floor       ${fmt(handOverEventsPerSecond / floor.perSecond, 3)} (events/s, ${handOverEventTypes.length} per hand-over)`);
  out(`  advancing/s over the hand-over floor ${fmt(advancePerSecond / handOverEventsPerSecond, 3)}`);
  out(`  advanced runs ended/s (first post → last goal receipt) ${fmt(advanceEndedPerSecond, 1)}: over the hand-over floor ${fmt(advanceEndedPerSecond / handOver.perSecond, 3)}, its events over the floor ${fmt((advanceEndedPerSecond * handOverEventTypes.length) / floor.perSecond, 3)}`);
  out(`  one in flight: flow over delivery   p50 ${fmt(soloFlowLatency.p50 / soloDeliveryLatency.p50, 2)}x, p99 ${fmt(soloFlowLatency.p99 / soloDeliveryLatency.p99, 2)}x`);
  out(`  under load: flow over delivery       p50 ${fmt(flowLatency.p50 / deliveryLatency.p50, 2)}x, p99 ${fmt(flowLatency.p99 / deliveryLatency.p99, 2)}x`);
  out(
    `  lost actions and goals ${lost}, duplicate receipts ${duplicates}${duplicatesBy.length ? ` (${duplicatesBy.join(', ')})` : ''}, signature failures ${signatureFailures}, waiting runs still live ${stillLive}/${liveTarget}, ` +
      `advanced runs ended by their goal ${endedByGoal}/${fullyPosted.length}`,
  );
  out(`  worker peak RSS ${fmt(workerPeakRssMiB, 0)} MiB${WORKER_NODE_OPTIONS ? ` (worker NODE_OPTIONS ${WORKER_NODE_OPTIONS})` : ''}`);
  out(`  worker peak RSS so far, after ${peakAfter.map(([phase, mib]) => `${phase} ${fmt(mib, 0)} MiB`).join(', ')}`);
  const atPeak = workerMemory.highest();
  if (atPeak) {
    out(
      `  worker at its highest sample (every 2 s): RSS ${fmt(atPeak.rssMiB, 0)} MiB = heap ${fmt(atPeak.heapTotalMiB, 0)} (${fmt(atPeak.heapUsedMiB, 0)} used) ` +
        `+ external ${fmt(atPeak.externalMiB, 0)} + other (the workflow threads' heaps, malloc, the SDK's native core, code) ${fmt(atPeak.otherMiB, 0)}`,
    );
  }
  out();
  for (const line of await machineLines(sql, loadAtStart, temporalStore)) out(line);
  out(
    JSON.stringify({
      bench: 'flows',
      unit: 'events/s',
      experiences: EXPERIENCES,
      temporal: temporalStore,
      liveRuns: stillLive,
      setupRunsStartedPerSecond: setupRuns / startedS,
      setupRatioToFloor: setupRuns / startedS / floor.perSecond,
      setupSettledS: settledS,
      service: routedPerSecond,
      baseline: ingestPerSecond,
      floor: floor.perSecond,
      ratioToBaseline: routedPerSecond / ingestPerSecond,
      ratioToFloor: routedPerSecond / floor.perSecond,
      advancePerSecond,
      advanceRatioToFloor: advancePerSecond / floor.perSecond,
      advanceP50Ms: advanceLatency.p50,
      advanceEndedPerSecond,
      advanceEndedRatioToHandOverFloor: advanceEndedPerSecond / handOver.perSecond,
      handOverFloor: handOver.perSecond,
      handOverEventsRatioToFloor: handOverEventsPerSecond / floor.perSecond,
      advanceRatioToHandOverFloor: advancePerSecond / handOverEventsPerSecond,
      actionP50Ms: flowLatency.p50,
      actionP99Ms: flowLatency.p99,
      deliveryP50Ms: deliveryLatency.p50,
      deliveryP99Ms: deliveryLatency.p99,
      soloActionP50Ms: soloFlowLatency.p50,
      soloActionP99Ms: soloFlowLatency.p99,
      soloDeliveryP50Ms: soloDeliveryLatency.p50,
      soloDeliveryP99Ms: soloDeliveryLatency.p99,
      soloLatencyRatioP50: soloFlowLatency.p50 / soloDeliveryLatency.p50,
      soloStagesMs: Object.fromEntries(soloStages),
      latencyRatioP50: flowLatency.p50 / deliveryLatency.p50,
      latencyRatioP99: flowLatency.p99 / deliveryLatency.p99,
      workerPeakRssMiB,
      workerPeakRssAfterMiB: Object.fromEntries(peakAfter),
      workerHighestSampleMiB: atPeak ?? null,
      workflowTasksPerEvent: flowCost.workflowTasks,
      activitiesPerEvent: flowCost.activities,
      localActivitiesPerEvent: flowCost.localActivities,
      historyEventsPerEvent: flowCost.historyEvents,
      cpuMsPerEvent: flowCpu,
      advanceWorkflowTasksPerEvent: advanceCost.workflowTasks,
      advanceActivitiesPerEvent: advanceCost.activities,
      advanceLocalActivitiesPerEvent: advanceCost.localActivities,
      advanceHistoryEventsPerEvent: advanceCost.historyEvents,
      advanceCpuMsPerEvent: advanceCpu,
      lost,
      duplicates,
    }),
  );
  return lost === 0 && duplicates === 0 && signatureFailures === 0 && stillLive === liveTarget && endedByGoal === fullyPosted.length ? 0 : 1;
}

runBench(progress, main);

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
 * 6. Advancing live runs, in ADVANCE_ROUNDS rounds: each round's share of the shoppers post a `checkout` (the run's
 *    waitForEvent takes it) and a `purchase` (its goal ends the run), side by side, all at once; timed from the first
 *    post until every `experience.goal.reached` has arrived, the runs have ended and nothing is queued. Events of
 *    runs ended per second (end to end) and routed per second, the later post → goal receipt per shopper.
 * 7. Right after each round, the Temporal floor (one workflow, one activity per unit) and the hand-over floor on the
 *    same server, FLOOR_CONCURRENCY in flight: HANDOVER_RUNS bare runs left waiting, each then handed a checkout and
 *    a purchase in one signal, on which it ends (a worker caching as many runs as the service's): what any design
 *    that keeps each live run a workflow pays per advance before doing any work (two events per hand-over).
 *    Each round and floor also gives its CPU ms per unit, and advancing is divided by both floors in CPU and in
 *    events per second; the report takes each figure's median over the rounds (docs/adr/0095-…).
 *
 * Phases 5 and 6 also print what each routed event cost: workflow tasks, activities, local activities and history
 * events (read from the histories of the runs the phase started or closed), and CPU ms of the dev server, the
 * worker, PostgreSQL and the API. Ratios: routed/s over ingest accepted/s, flow latency over delivery latency,
 * routed/s over the floor, CPU per unit over the floors'. Figures go to stdout (the last line is one JSON object),
 * progress to stderr. Optional
 * environment: EXPERIENCES (100), RUNS (10000), ADVANCE_RUNS (4000, over all rounds), ADVANCE_ROUNDS (3), HANDOVER_RUNS
 * (1000 a round), FLOOR_UNITS (300 a round), FLOOR_CONCURRENCY (128), DURATION_S (15), CLIENTS (16), DELIVERIES
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
import { waitingFlow } from './support/waiting-flow.ts';
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
import { handOverEventTypes, measureHandOverFloor, measureTemporalFloor, type FloorFigures } from './support/temporal-floor.ts';
import { cachedWorkflowsPerWorker } from '../src/temporal/worker.ts';
import { temporalDbOption, temporalStore } from './support/temporal-store.ts';

const EXPERIENCES = positiveInt('EXPERIENCES', 100, 3);
const RUNS = positiveInt('RUNS', 10_000);
const ADVANCE_RUNS = positiveInt('ADVANCE_RUNS', 4000);
const HANDOVER_RUNS = positiveInt('HANDOVER_RUNS', 1000);
const ADVANCE_ROUNDS = positiveInt('ADVANCE_ROUNDS', 3);
const FLOOR_UNITS = positiveInt('FLOOR_UNITS', 300);
const FLOOR_CONCURRENCY = positiveInt('FLOOR_CONCURRENCY', 128);
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

/** What the floors' CPU is counted over: the dev server, and this process, where their worker and client run. */
const floorProcesses = ['Temporal dev server', 'bench process'];

/** CPU seconds so far of the processes named. */
function cpuSecondsOf(reading: CpuReading | undefined, names: readonly string[]): number {
  if (!reading) return Number.NaN;
  let seconds = 0;
  for (const { name, seconds: spent } of reading.values()) if (names.includes(name)) seconds += spent;
  return seconds;
}

interface MeasuredAdvance {
  /** Events routed (PROCESSED) in the round, and per second from the first post to the last of them. */
  events: number;
  routedPerSecond: number;
  /** End to end: the events of the runs ended on their goal, per second from the first post to the last goal receipt. */
  eventsPerSecond: number;
  latency: ReturnType<typeof latencyFigures>;
  lost: number;
  goalsExpected: number;
  endedByGoal: number;
  cpu: ReturnType<typeof cpuPerEvent>;
  /** The dev server's, the worker's, PostgreSQL's and the API's CPU ms per routed event. */
  cpuMsPerEvent: number;
}

type AdvanceRound = MeasuredAdvance & { floor: FloorFigures; handOver: FloorFigures };

/** A round's figures, and its ratios to the floors measured right after it (in events: two per hand-over). */
function roundFigures(round: AdvanceRound) {
  const handOverEventsPerSecond = round.handOver.perSecond * handOverEventTypes.length;
  const handOverCpuMsPerEvent = round.handOver.cpuMsPerUnit / handOverEventTypes.length;
  return {
    routedPerSecond: round.routedPerSecond,
    eventsPerSecond: round.eventsPerSecond,
    latencyP50: round.latency.p50,
    latencyP99: round.latency.p99,
    cpuTemporal: round.cpu.temporal,
    cpuWorker: round.cpu.worker,
    cpuPostgres: round.cpu.postgres,
    cpuApi: round.cpu.api,
    cpuMsPerEvent: round.cpuMsPerEvent,
    floorPerSecond: round.floor.perSecond,
    floorCpuMsPerUnit: round.floor.cpuMsPerUnit,
    handOverPerSecond: round.handOver.perSecond,
    handOverEventsPerSecond,
    handOverCpuMsPerEvent,
    ratioToHandOver: round.eventsPerSecond / handOverEventsPerSecond,
    ratioToFloor: round.eventsPerSecond / round.floor.perSecond,
    cpuRatioToHandOver: handOverCpuMsPerEvent / round.cpuMsPerEvent,
    cpuRatioToFloor: round.floor.cpuMsPerUnit / round.cpuMsPerEvent,
  };
}
type RoundFigures = ReturnType<typeof roundFigures>;

/** Each figure's median over the rounds (each figure on its own). */
function medianFigures(rounds: RoundFigures[]): RoundFigures {
  const keys = Object.keys(rounds[0]!) as Array<keyof RoundFigures>;
  return Object.fromEntries(keys.map((key) => [key, median(rounds.map((round) => round[key]))])) as RoundFigures;
}

const median = (values: number[]) => {
  const sorted = ascending(values);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One round in a line: wall-clock and CPU figures and both ratios to the hand-over floor and to the floor. */
const roundLine = (figures: RoundFigures) =>
  `advancing ${fmt(figures.eventsPerSecond, 1)} events/s end to end (${fmt(figures.routedPerSecond, 1)} routed/s), ${fmt(figures.cpuMsPerEvent, 1)} CPU ms/event; ` +
  `hand-over floor ${fmt(figures.handOverEventsPerSecond, 1)} events/s, ${fmt(figures.handOverCpuMsPerEvent, 1)} CPU ms/event; floor ${fmt(figures.floorPerSecond, 1)}/s, ${fmt(figures.floorCpuMsPerUnit, 1)} CPU ms/unit; ` +
  `over the hand-over floor ${fmt(figures.ratioToHandOver, 2)}x (CPU ${fmt(figures.cpuRatioToHandOver, 2)}x), over the floor ${fmt(figures.ratioToFloor, 2)}x (CPU ${fmt(figures.cpuRatioToFloor, 2)}x)`;

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
  const definitions = [...Array.from({ length: waitingExperiences }, (_, index) => waitingFlow(`Waiting ${index}`)), measuredDefinition, checkoutDefinition];
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

  /**
   * One advancing round: `shoppers` shoppers from `firstShopper` on each post a `checkout` and a `purchase` side by
   * side (from two clients: they arrive together); measured from the first post until every goal has arrived, the
   * runs have ended and nothing is queued.
   */
  async function advanceRound(options: { target: Target; apiUrl: string; recording: Recording; round: number; shoppers: number }): Promise<MeasuredAdvance> {
    const { recording, round, shoppers } = options;
    const prefix = `advance${round}`;
    const shopperOf = (index: number) => `shopper-${round * shoppers + Math.floor(index / 2)}`;
    const checkout = eventRequests(options.target, prefix, 'checkout', shopperOf);
    const purchase = eventRequests(options.target, prefix, 'purchase', shopperOf);
    const shoppersLeft = new AbortController();
    const cpuBefore = readCpu(processes, databaseName);
    const started = now();
    const label = `advancing, round ${round + 1}/${ADVANCE_ROUNDS}`;
    progress(`${label}: ${CLIENTS} clients post a checkout and a purchase for each of ${shoppers} shoppers`);
    const posted = await driveLoad({
      origin: options.apiUrl,
      clients: CLIENTS,
      durationMs: SETTLE_TIMEOUT_MS,
      next: (index) => {
        if (index >= 2 * shoppers - 1) shoppersLeft.abort();
        return (index % 2 === 0 ? checkout : purchase)(index);
      },
      signal: AbortSignal.any([signal, shoppersLeft.signal]),
      onProgress: (elapsedMs, accepted) => progress(`${label}: ${fmt(elapsedMs / 1000, 0)} s, ${accepted} accepted`),
    });
    signal.throwIfAborted();
    // Per shopper: when the later of its events was posted, and how many were accepted.
    const byShopper = new Map<string, { lastPostedAt: number; accepted: number }>();
    posted.acceptedTags.forEach((shopper, index) => {
      const seen = byShopper.get(shopper);
      byShopper.set(shopper, { lastPostedAt: Math.max(seen?.lastPostedAt ?? 0, posted.acceptedSentAt[index]!), accepted: (seen?.accepted ?? 0) + 1 });
    });
    const fullyPosted = [...byShopper].filter(([, seen]) => seen.accepted === 2).map(([shopper]) => shopper);
    const goalsOfRound = () => {
      const all = receiptsByPerson(recording, 'experience.goal.reached');
      return new Map(fullyPosted.flatMap((shopper) => (all.has(shopper) ? [[shopper, all.get(shopper)!] as const] : [])));
    };
    await waitUntil(label, async () => ({ done: goalsOfRound().size >= fullyPosted.length, line: `${goalsOfRound().size}/${fullyPosted.length} goals received` }), signal);
    const goals = goalsOfRound();
    const { rows } = await sql.query<{ n: string; last: Date }>(
      `select count(*) as n, max(processed_at) as last from inbound_events where connection_id = $1 and status = 'PROCESSED' and message_id like $2`,
      [connection.id, `${prefix}-%`],
    );
    const events = Number(rows[0]!.n);
    await waitForQuiet(stack.temporal.client, signal);
    // A run records its end after it has published its goal, which may arrive first: wait for the ends too.
    let endedByGoal = 0;
    await waitUntil(
      `${label}: runs ended`,
      async () => {
        endedByGoal = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and client_user_id = any($2) and status = 'goal_reached'`, [account.id, fullyPosted]);
        return { done: endedByGoal >= fullyPosted.length, line: `${endedByGoal}/${fullyPosted.length} ended by their goal` };
      },
      signal,
    );
    const cpu = cpuPerEvent(cpuBefore, readCpu(processes, databaseName), events);
    return {
      events,
      routedPerSecond: events / ((new Date(rows[0]!.last).getTime() - started) / 1000),
      // End to end: the events of the runs that reached their goal, per second from the first post to the last goal.
      eventsPerSecond: (goals.size * handOverEventTypes.length) / ((Math.max(...goals.values()) - started) / 1000),
      latency: latencyFigures(fullyPosted.flatMap((shopper) => (goals.has(shopper) ? [goals.get(shopper)! - byShopper.get(shopper)!.lastPostedAt] : []))),
      lost: fullyPosted.length - goals.size,
      goalsExpected: fullyPosted.length,
      endedByGoal,
      cpu,
      cpuMsPerEvent: cpu.temporal + cpu.worker + cpu.postgres + cpu.api,
    };
  }

  // --- 6 and 7. Advancing live runs, in rounds, each followed by the floors ----------------------------------
  // A round posts a fixed share of the shoppers and waits until every goal has arrived and the runs have ended: a
  // backlog that keeps the machine busy, so the round is bound by CPU. The floors are measured right after it, at
  // FLOOR_CONCURRENCY in flight, so that they are bound by CPU too, on the same server and under the same load from
  // others. Each round says what an event cost in CPU beside what a floor unit cost: that ratio holds on a busy
  // machine, where events per second do not. The report gives the median of the rounds.
  const advanceRecording = new Recording(true);
  receiver.recording = advanceRecording;
  const shoppersPerRound = Math.floor(ADVANCE_RUNS / ADVANCE_ROUNDS);
  const floorCpuSeconds = () => cpuSecondsOf(readCpu(processes, databaseName), floorProcesses);
  const rounds: RoundFigures[] = [];
  let lostInRounds = 0;
  let expectedGoals = 0;
  let endedByGoal = 0;
  let advanceCost: ReturnType<typeof perEvent> | undefined;
  for (let round = 0; round < ADVANCE_ROUNDS; round++) {
    await waitForQuiet(stack.temporal.client, signal);
    const roundStarted = now();
    const measured = await advanceRound({ target, apiUrl: api.url, recording: advanceRecording, round, shoppers: shoppersPerRound });
    if (round === 0) {
      progress('reading the histories of the first advancing round');
      advanceCost = perEvent(await temporalCostSince(stack.temporal.client, taskQueue, roundStarted), measured.events);
    }
    progress(`round ${round + 1}: the Temporal floor and the hand-over floor, ${FLOOR_CONCURRENCY} in flight`);
    const floorOptions = { address: settings.temporalAddress, namespace, concurrency: FLOOR_CONCURRENCY, cpuSeconds: floorCpuSeconds };
    const floor = await measureTemporalFloor({ ...floorOptions, units: FLOOR_UNITS });
    const handOver = await measureHandOverFloor({ ...floorOptions, units: HANDOVER_RUNS, cachedWorkflows: cachedWorkflowsPerWorker });
    rounds.push(roundFigures({ ...measured, floor, handOver }));
    lostInRounds += measured.lost;
    expectedGoals += measured.goalsExpected;
    endedByGoal += measured.endedByGoal;
    progress(`round ${round + 1}: ${roundLine(rounds.at(-1)!)}`);
  }
  peakAfter.push(['advancing runs', (await processMemoryMiB(worker.pid!)).peakMiB]);
  const advance = medianFigures(rounds);

  const recordings = [soloRecording, deliveryRecording, flowRecording, advanceRecording];
  const duplicates = recordings.reduce((sum, recording) => sum + recording.duplicates, 0);
  const phaseNames = ['one in flight', 'deliveries', 'starting runs', 'advancing'];
  const duplicatesBy = recordings.flatMap((recording, index) => [...recording.duplicateTypes].map(([type, n]) => `${phaseNames[index]} ${type} ${n}`));
  const signatureFailures = recordings.reduce((sum, recording) => sum + recording.signatureFailures, 0);
  const lost = flowLost + lostInRounds;
  const stillLive = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and status = 'running' and current_node_id = 'wait'`, [account.id]);
  const workerPeakRssMiB = (await processMemoryMiB(worker.pid!)).peakMiB;

  // --- Report --------------------------------------------------------------------------------------------------
  const ms = (value: number) => fmt(value, 1);
  const flowCpuMs = flowCpu.temporal + flowCpu.worker + flowCpu.postgres + flowCpu.api;
  const costLine = (label: string, cost: ReturnType<typeof perEvent>, cpu: ReturnType<typeof cpuPerEvent>) =>
    `  ${label}: ${fmt(cost.workflowTasks, 2)} workflow tasks, ${fmt(cost.activities, 2)} activities, ${fmt(cost.localActivities, 2)} local activities, ` +
    `${fmt(cost.historyEvents, 1)} history events; CPU ms: dev server ${fmt(cpu.temporal, 2)}, worker ${fmt(cpu.worker, 2)}, PostgreSQL ${fmt(cpu.postgres, 2)}, API ${fmt(cpu.api, 2)} ` +
    `\n    by type: ${cost.byType.map((entry) => `${entry.type} (${entry.runs} runs) ${fmt(entry.workflowTasks, 2)}/${fmt(entry.activities, 2)}/${fmt(entry.localActivities, 2)}`).join(', ')} (workflow tasks/activities/local activities)`;
  const advanceCpu = { temporal: advance.cpuTemporal, worker: advance.cpuWorker, postgres: advance.cpuPostgres, api: advance.cpuApi };
  out(
    `bench/flows  EXPERIENCES=${EXPERIENCES}  live runs=${stillLive}  ADVANCE_RUNS=${ADVANCE_RUNS}  ADVANCE_ROUNDS=${ADVANCE_ROUNDS}  DURATION_S=${DURATION_S}  CLIENTS=${CLIENTS}  ` +
      `FLOOR_CONCURRENCY=${FLOOR_CONCURRENCY}  DELIVERIES=${DELIVERIES}  CONCURRENCY=${CONCURRENCY}`,
  );
  out();
  out(
    `Set-up: ${setupRuns} runs routed (rows written) after ${fmt(liveS, 1)} s, started in Temporal after ${fmt(startedS, 1)} s ` +
      `(${fmt(setupRuns / startedS, 1)} runs started/s from ${visitors} visit and ${ADVANCE_RUNS} cart events, posting included); task queue empty after ${fmt(settledS, 1)} s`,
  );
  out();
  out(`| Path | Units | Per second | p50 ms | p99 ms | max ms |`);
  out('|---|---|---|---|---|---|');
  out(`| flows: signup routed (post → PROCESSED), post → experience.action receipt | ${routedCount} routed, ${flowLatency.count} actions | ${fmt(routedPerSecond, 1)} routed/s | ${ms(flowLatency.p50)} | ${ms(flowLatency.p99)} | ${ms(flowLatency.max)} |`);
  out(
    `| advancing (median of ${ADVANCE_ROUNDS} rounds of ${shoppersPerRound} shoppers): events of runs ended on their goal, later post → goal receipt | ${expectedGoals} goals | ` +
      `${fmt(advance.eventsPerSecond, 1)} events/s (${fmt(advance.routedPerSecond, 1)} routed/s) | ${ms(advance.latencyP50)} | ${ms(advance.latencyP99)} | – |`,
  );
  out(`| ingest acceptance (202s, event no flow listens to) | ${ingestLatency.count} | ${fmt(ingestPerSecond, 1)} accepted/s | ${ms(ingestLatency.p50)} | ${ms(ingestLatency.p99)} | ${ms(ingestLatency.max)} |`);
  out(`| delivery (webhook.test, publish → receipt) | ${deliveryLatency.count} | – | ${ms(deliveryLatency.p50)} | ${ms(deliveryLatency.p99)} | ${ms(deliveryLatency.max)} |`);
  out(`| flows, one event in flight: post → experience.action receipt | ${soloFlowLatency.count} | – | ${ms(soloFlowLatency.p50)} | ${ms(soloFlowLatency.p99)} | ${ms(soloFlowLatency.max)} |`);
  out(`| delivery, one event in flight: publish → receipt | ${soloDeliveryLatency.count} | – | ${ms(soloDeliveryLatency.p50)} | ${ms(soloDeliveryLatency.p99)} | ${ms(soloDeliveryLatency.max)} |`);
  out(`| Temporal floor (one workflow, one activity; median of rounds) | ${FLOOR_UNITS} a round | ${fmt(advance.floorPerSecond, 1)} runs/s | – | – | – |`);
  out(`| hand-over floor (a waiting run handed ${handOverEventTypes.length} events in one signal, ends; median) | ${HANDOVER_RUNS} a round | ${fmt(advance.handOverPerSecond, 1)} runs/s | – | – | – |`);
  out();
  out('One event in flight, where the time goes (median ms of each stage)');
  for (const [stage, ms] of soloStages) out(`  ${stage.padEnd(40)} ${fmt(ms, 1)}`);
  out();
  out('Per routed event');
  out(costLine('flows (starting runs)', flowCost, flowCpu));
  out(costLine('advancing live runs (CPU: median of rounds; tasks: first round)', advanceCost!, advanceCpu));
  out(`  floor: ${fmt(advance.floorCpuMsPerUnit, 2)} CPU ms per run; hand-over floor: ${fmt(advance.handOverCpuMsPerEvent, 2)} CPU ms per event (dev server and the floor's worker and client)`);
  out();
  out(`Advancing, round by round (each followed by its floors, ${FLOOR_CONCURRENCY} in flight)`);
  rounds.forEach((round, index) => out(`  ${index + 1}. ${roundLine(round)}`));
  out();
  out('Ratios (advancing: median of the rounds; by CPU: the floor\'s CPU per unit over the service\'s per event, which holds on a busy machine)');
  out(`  routed/s over ingest accepted/s      ${fmt(routedPerSecond / ingestPerSecond, 3)}`);
  out(`  starting runs over the floor         ${fmt(routedPerSecond / advance.floorPerSecond, 3)}, by CPU ${fmt(advance.floorCpuMsPerUnit / flowCpuMs, 3)}`);
  out(`  advancing over the floor             ${fmt(advance.ratioToFloor, 3)}, by CPU ${fmt(advance.cpuRatioToFloor, 3)}`);
  out(`  advancing over the hand-over floor   ${fmt(advance.ratioToHandOver, 3)}, by CPU ${fmt(advance.cpuRatioToHandOver, 3)}`);
  out(`  hand-over floor over the floor       ${fmt(advance.handOverEventsPerSecond / advance.floorPerSecond, 3)} (events/s, ${handOverEventTypes.length} per hand-over), by CPU ${fmt(advance.floorCpuMsPerUnit / advance.handOverCpuMsPerEvent, 3)}`);
  out(`  one in flight: flow over delivery   p50 ${fmt(soloFlowLatency.p50 / soloDeliveryLatency.p50, 2)}x, p99 ${fmt(soloFlowLatency.p99 / soloDeliveryLatency.p99, 2)}x`);
  out(`  under load: flow over delivery       p50 ${fmt(flowLatency.p50 / deliveryLatency.p50, 2)}x, p99 ${fmt(flowLatency.p99 / deliveryLatency.p99, 2)}x`);
  out(
    `  lost actions and goals ${lost}, duplicate receipts ${duplicates}${duplicatesBy.length ? ` (${duplicatesBy.join(', ')})` : ''}, signature failures ${signatureFailures}, waiting runs still live ${stillLive}/${liveTarget}, ` +
      `advanced runs ended by their goal ${endedByGoal}/${expectedGoals}`,
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
      setupRatioToFloor: setupRuns / startedS / advance.floorPerSecond,
      setupSettledS: settledS,
      service: routedPerSecond,
      baseline: ingestPerSecond,
      floor: advance.floorPerSecond,
      floorCpuMsPerUnit: advance.floorCpuMsPerUnit,
      floorConcurrency: FLOOR_CONCURRENCY,
      ratioToBaseline: routedPerSecond / ingestPerSecond,
      ratioToFloor: routedPerSecond / advance.floorPerSecond,
      cpuRatioToFloor: advance.floorCpuMsPerUnit / flowCpuMs,
      advanceRounds: rounds,
      advancePerSecond: advance.eventsPerSecond,
      advanceRoutedPerSecond: advance.routedPerSecond,
      advanceRatioToFloor: advance.ratioToFloor,
      advanceCpuRatioToFloor: advance.cpuRatioToFloor,
      advanceP50Ms: advance.latencyP50,
      handOverFloor: advance.handOverPerSecond,
      handOverCpuMsPerEvent: advance.handOverCpuMsPerEvent,
      handOverEventsRatioToFloor: advance.handOverEventsPerSecond / advance.floorPerSecond,
      advanceRatioToHandOverFloor: advance.ratioToHandOver,
      advanceCpuRatioToHandOverFloor: advance.cpuRatioToHandOver,
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
      advanceWorkflowTasksPerEvent: advanceCost!.workflowTasks,
      advanceActivitiesPerEvent: advanceCost!.activities,
      advanceLocalActivitiesPerEvent: advanceCost!.localActivities,
      advanceHistoryEventsPerEvent: advanceCost!.historyEvents,
      advanceCpuMsPerEvent: advanceCpu,
      lost,
      duplicates,
    }),
  );
  return lost === 0 && duplicates === 0 && signatureFailures === 0 && stillLive === liveTarget && endedByGoal === expectedGoals ? 0 : 1;
}

runBench(progress, main);

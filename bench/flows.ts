/**
 * `npm run bench:flows`: ingested events routed into flows while many experiences are active and many runs are live,
 * through the whole service (the real API, worker, Postgres and a Temporal dev server, all in this process).
 *
 * 1. Set-up: EXPERIENCES active experiences. All but one start on `visit` and then wait 30 days; enough `visit`
 *    events are posted that RUNS runs are live (each `visit` enters every waiting experience). The last one starts on
 *    `signup` and fires a webhook action at once. Timed until the runs' rows are written, until Temporal has started
 *    every run, and until the task queue is empty; nothing is measured before then.
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
 * 6. The Temporal floor (one workflow, one activity per unit) on the same server.
 *
 * Ratios: routed/s over ingest accepted/s, flow latency over delivery latency, routed/s over the floor. Figures go to
 * stdout (the last line is one JSON object), progress to stderr. Optional environment: EXPERIENCES (100), RUNS
 * (10000), DURATION_S (15), CLIENTS (16), DELIVERIES (200), CONCURRENCY (16), SOLO (20), DATABASE_URL, LOG_LEVEL.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
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
import { generateTestCertificate } from '../test/support/certificate.ts';
import { positiveInt } from './support/env.ts';
import { experienceRunWorkflowType } from '../workflows/experience-run.contract.ts';
import { ingestBatchWorkflowType } from '../workflows/ingest-batch.contract.ts';
import { driveLoad, type LoadRequest, type LoadResult } from './support/http-load.ts';
import { createJsonClient } from './support/json-client.ts';
import { machineLines } from './support/machine.ts';
import { Recording, startBenchReceiver } from './support/receiver.ts';
import { runBench, startBenchApi, startBenchWorker, startStack, type BenchContext } from './support/stack.ts';
import { ascending, fmt, percentile, runBounded } from './support/stats.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';

const EXPERIENCES = positiveInt('EXPERIENCES', 100, 2);
const RUNS = positiveInt('RUNS', 10_000);
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

/** When each person's `experience.action` arrived, from the bodies a recording kept. */
function actionReceipts(recording: Recording): Map<string, number> {
  const byUser = new Map<string, number>();
  for (const [id, body] of recording.bodies) {
    const envelope = JSON.parse(body) as { type: string; data: { clientUserId: string | null } };
    if (envelope.type === 'experience.action' && envelope.data.clientUserId) byUser.set(envelope.data.clientUserId, recording.receivedAt.get(id)!);
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

async function main(context: BenchContext): Promise<number> {
  const { signal, teardown } = context;
  const loadAtStart = loadavg();
  const waitingExperiences = EXPERIENCES - 1;
  const visitors = Math.ceil(RUNS / waitingExperiences);
  progress(`EXPERIENCES=${EXPERIENCES} RUNS=${RUNS} (${visitors} people × ${waitingExperiences} waiting experiences) DURATION_S=${DURATION_S} CLIENTS=${CLIENTS}`);

  const stack = await startStack(context, progress, { taskQueue, namespace, outboundAllowCidrs: allowCidrs });
  const { workerOrm, sql, settings } = stack;
  const certificate = await generateTestCertificate();
  const receiver = await startBenchReceiver(certificate);
  teardown.add('receiver', receiver.close);
  await startBenchWorker(context, progress, stack, { outboundCa: certificate.cert });
  const { api } = await startBenchApi(context, progress, stack, { rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });

  const em = () => workerOrm.em.fork();
  const secrets = createSecretBox(settings.secretsKey);
  const outbound = { allow: parseAllowCidrs(allowCidrs), resolve: systemResolve };
  const { account, apiKey } = await createAccount(em(), { name: 'bench-flows' });
  const { connection, signingSecret } = await createConnection({ em: em(), secrets, outbound }, account.id, { provider: 'direct', label: 'bench' });
  const { endpoint, secret } = await createEndpoint({ em: em(), secrets, outbound }, account.id, {
    url: receiver.url,
    eventTypes: ['experience.action', 'webhook.test'],
    description: 'bench receiver',
  });
  receiver.secrets = [secret];
  const target: Target = { origin: api.url, inboundKey: connection.inboundKey, secret: signingSecret };

  // --- 1. Active experiences and live runs ---------------------------------------------------------------------
  progress(`publishing ${EXPERIENCES} experiences`);
  const definitions = [...Array.from({ length: waitingExperiences }, (_, index) => waitingDefinition(index)), measuredDefinition];
  for (const input of definitions) {
    const experience = await createExperience(em(), account.id, { definition: experienceDefinitionSchema.parse(input) });
    await publishExperience(em(), account.id, experience.id);
  }
  progress(`posting ${visitors} visit events to start ${visitors * waitingExperiences} waiting runs`);
  const visitRequest = eventRequests(target, 'visit', 'visit', (index) => `visitor-${index}`);
  const client = createJsonClient(api.url, CONCURRENCY);
  teardown.add('API client', async () => client.close());
  await runBounded(visitors, CONCURRENCY, async (index) => {
    const request = visitRequest(index);
    const answer = await fetch(`${api.url}${request.path}`, { method: 'POST', headers: { ...request.headers, 'content-type': 'application/json' }, body: request.body });
    if (answer.status !== 202) throw new Error(`visit event answered ${answer.status}: ${await answer.text()}`);
  });
  const liveTarget = visitors * waitingExperiences;
  const liveStarted = now();
  await waitUntil(
    'live runs',
    async () => {
      const live = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and status = 'running' and current_node_id = 'wait'`, [account.id]);
      return { done: live >= liveTarget, line: `${live}/${liveTarget} runs waiting` };
    },
    signal,
  );
  const liveS = (now() - liveStarted) / 1000;
  // Routing writes a run's row before it starts the run: count the runs Temporal has, to time the starts themselves.
  await waitUntil(
    'runs started',
    async () => {
      const { count } = await stack.temporal.client.workflow.count(`TaskQueue = '${taskQueue}' AND WorkflowType = '${experienceRunWorkflowType}' AND ExecutionStatus = 'Running'`);
      return { done: count >= liveTarget, line: `${count}/${liveTarget} runs started` };
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
  await waitUntil(
    'ingest runs',
    async () => {
      const { count } = await stack.temporal.client.workflow.count(`TaskQueue = '${taskQueue}' AND WorkflowType = '${ingestBatchWorkflowType}' AND ExecutionStatus = 'Running'`);
      const backlog = await taskQueueBacklog(stack.temporal.client);
      return { done: count === 0 && backlog === 0, line: `${count} ingest batch runs open, ${backlog} tasks queued` };
    },
    signal,
  );

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
  const soloFlow: number[] = [];
  for (let index = 0; index < SOLO; index++) {
    const request = soloSignup(index);
    const sent = now();
    const answer = await fetch(`${api.url}${request.path}`, { method: 'POST', headers: { ...request.headers, 'content-type': 'application/json' }, body: request.body });
    if (answer.status !== 202) throw new Error(`signup answered ${answer.status}`);
    let receivedAt: number | undefined;
    await until('one signup', () => (receivedAt = actionReceipts(soloRecording).get(`solo-${index}`)) !== undefined, signal);
    soloFlow.push(receivedAt! - sent);
  }
  const soloDeliveryLatency = latencyFigures(soloDelivery);
  const soloFlowLatency = latencyFigures(soloFlow);

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
  const flowRecording = new Recording(true);
  receiver.recording = flowRecording;
  const flowStarted = now();
  const signups = await load('flows', { origin: api.url, next: eventRequests(target, 'signup', 'signup', (index) => `newcomer-${index}`) }, signal);
  await waitUntil('flows', async () => ({ done: flowRecording.receivedAt.size >= signups.acceptedTags.length, line: `${flowRecording.receivedAt.size}/${signups.acceptedTags.length} actions received` }), signal);
  const { rows: routed } = await sql.query<{ n: string; first: Date; last: Date }>(
    `select count(*) as n, min(created_at) as first, max(processed_at) as last from inbound_events where connection_id = $1 and status = 'PROCESSED' and event_type = 'signup' and message_id like 'signup-%'`,
    [connection.id],
  );
  const routedCount = Number(routed[0]!.n);
  const routedPerSecond = routedCount / ((new Date(routed[0]!.last).getTime() - flowStarted) / 1000);
  const received = actionReceipts(flowRecording);
  const flowLatency = latencyFigures(signups.acceptedTags.flatMap((user, index) => (received.has(user) ? [received.get(user)! - signups.acceptedSentAt[index]!] : [])));
  const lost = signups.acceptedTags.filter((user) => !received.has(user)).length;
  const recordings = [soloRecording, deliveryRecording, flowRecording];
  const duplicates = recordings.reduce((sum, recording) => sum + recording.duplicates, 0);
  const signatureFailures = recordings.reduce((sum, recording) => sum + recording.signatureFailures, 0);
  const stillLive = await countOf(sql, `select count(*) as n from experience_runs where account_id = $1 and status = 'running' and current_node_id = 'wait'`, [account.id]);

  // --- 6. The Temporal floor -----------------------------------------------------------------------------------
  progress('measuring the Temporal floor');
  const floor = await measureTemporalFloor({ address: settings.temporalAddress, namespace, units: 300, concurrency: CLIENTS });

  // --- Report --------------------------------------------------------------------------------------------------
  const ms = (value: number) => fmt(value, 1);
  out(`bench/flows  EXPERIENCES=${EXPERIENCES}  live runs=${stillLive}  DURATION_S=${DURATION_S}  CLIENTS=${CLIENTS}  DELIVERIES=${DELIVERIES}  CONCURRENCY=${CONCURRENCY}`);
  out();
  out(`Set-up: ${liveTarget} runs routed (rows written) after ${fmt(liveS, 1)} s, started in Temporal after ${fmt(startedS, 1)} s (${fmt(liveTarget / startedS, 1)} runs started/s from ${visitors} visit events); task queue empty after ${fmt(settledS, 1)} s`);
  out();
  out('| Path | Units | Per second | p50 ms | p99 ms | max ms |');
  out('|---|---|---|---|---|---|');
  out(`| flows: signup routed (post → PROCESSED), post → experience.action receipt | ${routedCount} routed, ${flowLatency.count} actions | ${fmt(routedPerSecond, 1)} routed/s | ${ms(flowLatency.p50)} | ${ms(flowLatency.p99)} | ${ms(flowLatency.max)} |`);
  out(`| ingest acceptance (202s, event no flow listens to) | ${ingestLatency.count} | ${fmt(ingestPerSecond, 1)} accepted/s | ${ms(ingestLatency.p50)} | ${ms(ingestLatency.p99)} | ${ms(ingestLatency.max)} |`);
  out(`| delivery (webhook.test, publish → receipt) | ${deliveryLatency.count} | – | ${ms(deliveryLatency.p50)} | ${ms(deliveryLatency.p99)} | ${ms(deliveryLatency.max)} |`);
  out(`| flows, one event in flight: post → experience.action receipt | ${soloFlowLatency.count} | – | ${ms(soloFlowLatency.p50)} | ${ms(soloFlowLatency.p99)} | ${ms(soloFlowLatency.max)} |`);
  out(`| delivery, one event in flight: publish → receipt | ${soloDeliveryLatency.count} | – | ${ms(soloDeliveryLatency.p50)} | ${ms(soloDeliveryLatency.p99)} | ${ms(soloDeliveryLatency.max)} |`);
  out(`| Temporal floor (one workflow, one activity) | ${floor.units} | ${fmt(floor.perSecond, 1)} runs/s | ${ms(floor.p50)} | ${ms(floor.p99)} | – |`);
  out();
  out('Ratios');
  out(`  routed/s over ingest accepted/s      ${fmt(routedPerSecond / ingestPerSecond, 3)}`);
  out(`  routed/s over the floor              ${fmt(routedPerSecond / floor.perSecond, 3)}`);
  out(`  one in flight: flow over delivery   p50 ${fmt(soloFlowLatency.p50 / soloDeliveryLatency.p50, 2)}x, p99 ${fmt(soloFlowLatency.p99 / soloDeliveryLatency.p99, 2)}x`);
  out(`  under load: flow over delivery       p50 ${fmt(flowLatency.p50 / deliveryLatency.p50, 2)}x, p99 ${fmt(flowLatency.p99 / deliveryLatency.p99, 2)}x`);
  out(`  lost actions ${lost}, duplicate receipts ${duplicates}, signature failures ${signatureFailures}, waiting runs still live ${stillLive}/${liveTarget}`);
  out();
  for (const line of await machineLines(sql, loadAtStart)) out(line);
  out(
    JSON.stringify({
      bench: 'flows',
      unit: 'events/s',
      experiences: EXPERIENCES,
      liveRuns: stillLive,
      setupRunsStartedPerSecond: liveTarget / startedS,
      setupSettledS: settledS,
      service: routedPerSecond,
      baseline: ingestPerSecond,
      floor: floor.perSecond,
      ratioToBaseline: routedPerSecond / ingestPerSecond,
      ratioToFloor: routedPerSecond / floor.perSecond,
      actionP50Ms: flowLatency.p50,
      actionP99Ms: flowLatency.p99,
      deliveryP50Ms: deliveryLatency.p50,
      deliveryP99Ms: deliveryLatency.p99,
      soloActionP50Ms: soloFlowLatency.p50,
      soloActionP99Ms: soloFlowLatency.p99,
      soloDeliveryP50Ms: soloDeliveryLatency.p50,
      soloDeliveryP99Ms: soloDeliveryLatency.p99,
      soloLatencyRatioP50: soloFlowLatency.p50 / soloDeliveryLatency.p50,
      latencyRatioP50: flowLatency.p50 / deliveryLatency.p50,
      latencyRatioP99: flowLatency.p99 / deliveryLatency.p99,
      lost,
      duplicates,
    }),
  );
  return lost === 0 && duplicates === 0 && signatureFailures === 0 && stillLive === liveTarget ? 0 : 1;
}

runBench(progress, main);

/**
 * `npm run bench:delivery`: outbound webhook delivery through the whole service (Postgres, Temporal dev server,
 * the real worker and its HTTPS client) against a bare Node process that signs the same bodies and POSTs them
 * straight to the same receiver. Figures go to stdout, progress to stderr.
 *
 * Environment (all optional): N events (300), CONCURRENCY publishers (16), WARMUP events per path before measuring
 * (10, not counted), DATABASE_URL (a server to create a scratch database on; embedded PostgreSQL otherwise),
 * LOG_LEVEL for the service's own logs on stderr (warn).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import type { DeliverySettings } from '../src/domain/deliveries/delivery-settings.ts';
import { buildEnvelope } from '../src/domain/events/envelope.ts';
import { connectOrm, type Orm } from '../src/persistence/orm.ts';
import { newId } from '../src/security/ids.ts';
import { buildWebhookHeaders } from '../src/security/standard-webhooks.ts';
import { createBaselineClient } from './support/baseline.ts';
import { generateTestCertificate } from '../test/support/certificate.ts';
import { cpuBetween, cpuSnapshot } from './support/cpu.ts';
import { Recording, startBenchReceiver, type BenchReceiver } from './support/receiver.ts';
import { runBench, startBenchWorker, startStack, type BenchContext } from './support/stack.ts';
import { ascending, figuresOf, fmt, percentile, runBounded, type PhaseFigures } from './support/stats.ts';
import { machineLines } from './support/machine.ts';
import { positiveInt } from './support/env.ts';
import { benchEventData, loopbackCidrs, publishBenchEvent, subscribeReceiver } from './support/webhook-load.ts';


const N = positiveInt('N', 300);
const CONCURRENCY = positiveInt('CONCURRENCY', 16);
const WARMUP = positiveInt('WARMUP', 10, 0);
// The production schedule: nothing retries in this run, so these only matter if something goes wrong.
const delivery: DeliverySettings = { retryInitialMs: 5000, retryBackoff: 3, maxAttempts: 12, timeoutMs: 15000, disableAfterHours: 120 };
const namespace = 'default';
const taskQueue = `bench-${randomBytes(4).toString('hex')}`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[bench:delivery] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/** Waits until the recording holds every id, printing "delivered k/N" about every 2 s. */
async function waitForReceipts(label: string, recording: Recording, ids: readonly string[], timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastReport = Date.now();
  const received = () => ids.reduce((count, id) => count + (recording.receivedAt.has(id) ? 1 : 0), 0);
  for (;;) {
    signal.throwIfAborted();
    const count = received();
    if (count === ids.length) {
      progress(`${label}: delivered ${count}/${ids.length}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`${label}: only ${count}/${ids.length} events arrived within ${Math.round(timeoutMs / 1000)} s`);
    if (Date.now() - lastReport >= 2000) {
      progress(`${label}: delivered ${count}/${ids.length}`);
      lastReport = Date.now();
    }
    await sleep(10);
  }
}

async function main(context: BenchContext): Promise<number> {
  const { signal, teardown } = context;
  const loadAtStart = loadavg();
  progress(`N=${N} CONCURRENCY=${CONCURRENCY} WARMUP=${WARMUP}`);
  const stack = await startStack(context, progress, { taskQueue, namespace, delivery, outboundAllowCidrs: loopbackCidrs });
  const { sql, settings } = stack;
  const temporalClients = stack.temporal;

  // Two pools, as in a deployment where the API (which publishes) and the worker are separate processes.
  const publisherOrm: Orm = await connectOrm(settings.databaseUrl);
  teardown.add('publisher ORM', () => publisherOrm.close());

  const certificate = await generateTestCertificate();
  const receiver: BenchReceiver = await startBenchReceiver(certificate);
  teardown.add('receiver', receiver.close);

  await startBenchWorker(context, progress, stack, { outboundCa: certificate.cert });
  const { accountId, endpointId, secret } = await subscribeReceiver(publisherOrm, settings.secretsKey, receiver, 'bench');
  const publisher = { orm: publisherOrm, temporal: { client: temporalClients.client, taskQueue }, delivery, accountId };
  progress(`receiver at ${receiver.url}, endpoint ${endpointId}`);

  /** Publishes `count` events through the service; returns publish start times and publish call durations. */
  const publishThroughService = async (count: number) => {
    const ids = Array.from({ length: count }, () => newId('evt_'));
    const sentAt = new Map<string, number>();
    const callMs: number[] = [];
    await runBounded(count, CONCURRENCY, async (index) => {
      const eventId = ids[index]!;
      const started = now();
      sentAt.set(eventId, started);
      await publishBenchEvent(publisher, eventId, index);
      callMs.push(now() - started);
    });
    return { ids, sentAt, callMs };
  };

  /** Waits until every delivery of these events is closed: its row finished and its workflow no longer running. */
  const waitForServiceToSettle = async (ids: string[], timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      signal.throwIfAborted();
      const { rows } = await sql.query<{ n: string }>(
        `select count(*) as n from deliveries where event_id = any($1) and status = 'succeeded'`,
        [ids],
      );
      const running = await temporalClients.client.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`);
      if (Number(rows[0]!.n) === ids.length && running.count === 0) return;
      if (Date.now() > deadline) throw new Error(`deliveries did not settle: ${rows[0]!.n}/${ids.length} succeeded, ${running.count} runs open`);
      await sleep(100);
    }
  };

  const baseline = createBaselineClient(certificate.cert);
  teardown.add('baseline agent', async () => baseline.close());
  /** The bare path: the same envelope, signed with the same secret, POSTed straight to the receiver. */
  const postDirectly = async (count: number) => {
    const ids = Array.from({ length: count }, () => newId('evt_'));
    const sentAt = new Map<string, number>();
    let non2xx = 0;
    await runBounded(count, CONCURRENCY, async (index) => {
      const eventId = ids[index]!;
      const started = now();
      sentAt.set(eventId, started);
      const createdAt = new Date();
      const body = JSON.stringify(buildEnvelope(eventId, { accountId, type: 'webhook.test', data: benchEventData(index) }, createdAt));
      const headers = buildWebhookHeaders({ id: eventId, timestamp: Math.floor(createdAt.getTime() / 1000), body, secrets: [secret] });
      const status = await baseline.post(receiver.url, headers, body);
      if (status < 200 || status > 299) non2xx += 1;
    });
    return { ids, sentAt, non2xx };
  };

  const timeoutFor = (count: number) => 120_000 + 200 * count;

  // --- Service path ---------------------------------------------------------------------------------------------
  if (WARMUP > 0) {
    progress(`service warm-up: ${WARMUP} events (not counted)`);
    receiver.recording = new Recording();
    const warm = await publishThroughService(WARMUP);
    await waitForReceipts('service warm-up', receiver.recording, warm.ids, timeoutFor(WARMUP), signal);
    await waitForServiceToSettle(warm.ids, timeoutFor(WARMUP));
  }
  progress(`service: publishing ${N} events with ${CONCURRENCY} publishers`);
  const serviceRecording = new Recording();
  receiver.recording = serviceRecording;
  const cpuBefore = cpuSnapshot();
  const publishStarted = now();
  const published = await publishThroughService(N);
  const publishDoneMs = now() - publishStarted;
  progress(`service: all ${N} published in ${fmt(publishDoneMs, 0)} ms`);
  await waitForReceipts('service', serviceRecording, published.ids, timeoutFor(N) - publishDoneMs, signal);
  const settleStarted = now();
  await waitForServiceToSettle(published.ids, timeoutFor(N));
  const settledAfterLastReceiptMs = now() - Math.max(...serviceRecording.receivedAt.values());
  const settleWaitMs = now() - settleStarted;
  const serviceWallS = (now() - publishStarted) / 1000;
  const cpuAfter = cpuSnapshot();
  const service = figuresOf(published.sentAt, serviceRecording.receivedAt, serviceRecording);

  // Where the service's time goes, per event, from the timestamps the service itself stored.
  const { rows: stageRows } = await sql.query<{ event_id: string; prepared_at: Date; attempt_started_at: Date; completed_at: Date }>(
    `select d.event_id, d.created_at as prepared_at, a.started_at as attempt_started_at, d.completed_at
       from deliveries d join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = 1
      where d.event_id = any($1)`,
    [published.ids],
  );
  const { rows: attemptCounts } = await sql.query<{ n: string }>(
    `select count(*) as n from delivery_attempts a join deliveries d on d.id = a.delivery_id where d.event_id = any($1)`,
    [published.ids],
  );
  const stages = { publishToPrepared: [] as number[], preparedToAttempt: [] as number[], attemptToReceipt: [] as number[], receiptToCompleted: [] as number[] };
  for (const row of stageRows) {
    const sent = published.sentAt.get(row.event_id)!;
    const received = serviceRecording.receivedAt.get(row.event_id)!;
    const prepared = new Date(row.prepared_at).getTime();
    const attempt = new Date(row.attempt_started_at).getTime();
    stages.publishToPrepared.push(prepared - sent);
    stages.preparedToAttempt.push(attempt - prepared);
    stages.attemptToReceipt.push(received - attempt);
    if (row.completed_at) stages.receiptToCompleted.push(new Date(row.completed_at).getTime() - received);
  }

  // --- Baseline path --------------------------------------------------------------------------------------------
  if (WARMUP > 0) {
    progress(`baseline warm-up: ${WARMUP} requests (not counted)`);
    receiver.recording = new Recording();
    const warm = await postDirectly(WARMUP);
    await waitForReceipts('baseline warm-up', receiver.recording, warm.ids, timeoutFor(WARMUP), signal);
  }
  progress(`baseline: posting ${N} events with ${CONCURRENCY} senders`);
  const baselineRecording = new Recording();
  receiver.recording = baselineRecording;
  const direct = await postDirectly(N);
  await waitForReceipts('baseline', baselineRecording, direct.ids, timeoutFor(N), signal);
  const bare = figuresOf(direct.sentAt, baselineRecording.receivedAt, baselineRecording);

  const machine = await machineLines(sql, loadAtStart);

  // --- Report ----------------------------------------------------------------------------------------------------
  const ms = (value: number) => fmt(value, 1);
  const row = (name: string, f: PhaseFigures) =>
    `| ${name} | ${f.received}/${f.events} | ${fmt(f.throughput, 1)} | ${ms(f.p50)} | ${ms(f.p90)} | ${ms(f.p99)} | ${ms(f.max)} | ${f.signatureFailures} | ${f.duplicates} |`;
  const stageLine = (name: string, values: number[]) => {
    const sorted = ascending(values);
    return `| ${name} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 99))} |`;
  };
  const callSorted = ascending(published.callMs);

  out(`bench/delivery  N=${N}  CONCURRENCY=${CONCURRENCY}  warm-up=${WARMUP} per path (not counted)`);
  out();
  out('Service (publishEvent -> Postgres + Temporal -> worker -> HTTPS POST)');
  out(`  deliveries per second   ${fmt(service.throughput, 1)}   (${N} events / ${fmt(service.wallMs / 1000, 2)} s, first publish -> last receipt)`);
  out(`  latency p50 / p99       ${ms(service.p50)} ms / ${ms(service.p99)} ms   (publish -> receipt)`);
  out(`  signature failures      ${service.signatureFailures}`);
  out(`  duplicates              ${service.duplicates}`);
  out(`  publish calls           all ${N} returned after ${fmt(publishDoneMs, 0)} ms; one call p50 ${ms(percentile(callSorted, 50))} ms, p99 ${ms(percentile(callSorted, 99))} ms`);
  out(`  attempts recorded       ${attemptCounts[0]!.n} for ${N} deliveries`);
  out(`  settled                 every delivery row succeeded and every run closed ${fmt(settledAfterLastReceiptMs, 0)} ms after the last receipt (waited ${fmt(settleWaitMs, 0)} ms)`);
  out();
  out('Baseline (same signed envelopes, POSTed directly with a keep-alive https.Agent)');
  out(`  deliveries per second   ${fmt(bare.throughput, 1)}   (${N} events / ${fmt(bare.wallMs / 1000, 3)} s, first send -> last receipt)`);
  out(`  latency p50 / p99       ${ms(bare.p50)} ms / ${ms(bare.p99)} ms   (send -> receipt)`);
  out(`  signature failures      ${bare.signatureFailures}`);
  out(`  duplicates              ${bare.duplicates}`);
  out(`  non-2xx answers         ${direct.non2xx}`);
  out();
  out('Ratio');
  out(`  throughput  service / baseline   ${fmt(service.throughput / bare.throughput, 4)}  (baseline is ${fmt(bare.throughput / service.throughput, 0)}x faster)`);
  out(`  p50         service / baseline   ${fmt(service.p50 / bare.p50, 0)}x`);
  out();
  out('| Path | Received | Deliveries/s | p50 ms | p90 ms | p99 ms | max ms | Signature failures | Duplicates |');
  out('|---|---|---|---|---|---|---|---|---|');
  out(row('service', service));
  out(row('baseline', bare));
  out();
  out('Service latency by stage (from the rows the service wrote)');
  out('| Stage | p50 ms | p99 ms |');
  out('|---|---|---|');
  out(stageLine('publish -> delivery row inserted (insert, fan-out start, fan-out task, prepareDeliveries)', stages.publishToPrepared));
  out(stageLine('delivery row -> attempt started (child start, delivery task, attemptDelivery reads)', stages.preparedToAttempt));
  out(stageLine('attempt started -> received (sign, HTTPS POST)', stages.attemptToReceipt));
  out(stageLine('received -> delivery row marked succeeded', stages.receiptToCompleted));
  if (cpuBefore && cpuAfter) {
    out();
    out(`CPU seconds during the service phase (${fmt(serviceWallS, 1)} s wall, publish -> settled; ${availableParallelism()} cores = ${fmt(serviceWallS * availableParallelism(), 1)} core-s)`);
    for (const [name, seconds] of cpuBetween(cpuBefore, cpuAfter)) {
      if (seconds >= 0.05) out(`  ${name.padEnd(36)}  ${fmt(seconds, 1)} s  (${fmt((100 * seconds) / serviceWallS, 0)}% of one core)`);
    }
    if (process.env.DATABASE_URL) out('  (PostgreSQL at DATABASE_URL is not this process tree\'s, so it is not counted)');
  }
  out();
  for (const line of machine) out(line);

  const ok =
    service.received === N &&
    bare.received === N &&
    service.signatureFailures + bare.signatureFailures === 0 &&
    service.duplicates + bare.duplicates === 0 &&
    direct.non2xx === 0;
  if (!ok) progress('FAILED: missing events, signature failures, duplicates or non-2xx answers (see above)');
  return ok ? 0 : 1;
}

runBench(progress, main);

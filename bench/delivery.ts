/**
 * `npm run bench:delivery`: outbound webhook delivery through the whole service (Postgres, Temporal dev server,
 * the real worker and its HTTPS client) against a bare Node process that signs the same bodies and POSTs them
 * straight to the same receiver. Figures go to stdout, progress to stderr.
 *
 * In the same run, on the same dev server and at the same concurrency, it measures the Temporal floor (one workflow
 * with one activity per unit, bench/support/temporal-floor.ts; N runs, half before the service phase and half after)
 * and prints the service's ratio to it; and it publishes
 * events one at a time (the next once the last has arrived) for the publish → receipt latency of a single event in
 * flight.
 *
 * Environment (all optional): N events (300), CONCURRENCY publishers (16), WARMUP events per path before measuring
 * (10, not counted), SINGLE events published one at a time (30), TEMPORAL_DB=memory|file (memory: the dev server as
 * the tests run it; file: its state in a SQLite file, as `npm start` keeps it), SQLITE_TUNING=on|off (on: the pragmas
 * `npm start` applies, src/dev/embedded-temporal.ts; off: SQLite's defaults), DATABASE_URL (a server to create a scratch
 * database on; embedded PostgreSQL otherwise), DELIVERY_RELAY_LINGER_MS (the relay's, 20), LOG_LEVEL for the
 * service's own logs on stderr (warn).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createEndpoint } from '../src/domain/endpoints/create-endpoint.ts';
import { buildEnvelope } from '../src/domain/events/envelope.ts';
import { publishEvent } from '../src/domain/events/publish-event.ts';
import { connectOrm, type Orm } from '../src/persistence/orm.ts';
import { newId } from '../src/security/ids.ts';
import { parseAllowCidrs, systemResolve } from '../src/security/ip-policy.ts';
import { createSecretBox } from '../src/security/secret-box.ts';
import { buildWebhookHeaders } from '../src/security/standard-webhooks.ts';
import { createBaselineClient } from './support/baseline.ts';
import { generateLocalCertificate } from '../src/dev/local-certificate.ts';
import { cpuBetween, cpuSnapshot } from './support/cpu.ts';
import { Recording, startBenchReceiver, type BenchReceiver } from './support/receiver.ts';
import { runBench, startBenchWorker, startStack, type BenchContext } from './support/stack.ts';
import { ascending, figuresOf, fmt, percentile, runBounded, type PhaseFigures } from './support/stats.ts';
import { machineLines } from './support/machine.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';
import { positiveInt } from './support/env.ts';
import { SQLITE_TUNING, TEMPORAL_DB, temporalDbOption, temporalStore } from './support/temporal-store.ts';
import { defaultDeliveryRelaySettings } from '../src/outbox/delivery-relay.ts';

const N = positiveInt('N', 300);
const CONCURRENCY = positiveInt('CONCURRENCY', 16);
const WARMUP = positiveInt('WARMUP', 10, 0);
const SINGLE = positiveInt('SINGLE', 30);
const allowCidrs = '127.0.0.0/8,::1/128';
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
  progress(`N=${N} CONCURRENCY=${CONCURRENCY} WARMUP=${WARMUP} SINGLE=${SINGLE} TEMPORAL_DB=${TEMPORAL_DB} SQLITE_TUNING=${SQLITE_TUNING}`);
  const temporalDb = await temporalDbOption(context, 'delivery');
  const stack = await startStack(context, progress, { taskQueue, namespace, outboundAllowCidrs: allowCidrs, temporalDb });
  const { sql, settings } = stack;
  const lingerMs = positiveInt('DELIVERY_RELAY_LINGER_MS', defaultDeliveryRelaySettings.lingerMs, 0);
  settings.deliveryRelay = { ...defaultDeliveryRelaySettings, lingerMs };
  const temporalClients = stack.temporal;

  // Two pools, as in a deployment where the API (which publishes) and the worker are separate processes.
  const publisherOrm: Orm = await connectOrm(settings.databaseUrl);
  teardown.add('publisher ORM', () => publisherOrm.close());

  const certificate = await generateLocalCertificate();
  const receiver: BenchReceiver = await startBenchReceiver(certificate);
  teardown.add('receiver', receiver.close);

  await startBenchWorker(context, progress, stack, { outboundCa: certificate.cert });
  const publishDeps = () => ({ em: publisherOrm.em.fork(), temporal: { client: temporalClients.client, taskQueue }, delivery: settings.delivery });

  const { account } = await createAccount(publisherOrm.em.fork(), { name: 'bench' });
  const { endpoint, secret } = await createEndpoint(
    { em: publisherOrm.em.fork(), secrets: createSecretBox(settings.secretsKey), outbound: { allow: parseAllowCidrs(allowCidrs), resolve: systemResolve } },
    account.id,
    { url: receiver.url, eventTypes: ['webhook.test'], description: 'bench receiver' },
  );
  receiver.secrets = [secret];
  progress(`receiver at ${receiver.url}, endpoint ${endpoint.id}`);

  const data = (index: number) => ({ result: { message: 'This is a test event from the rich push service.', seq: index } });

  /** Publishes `count` events through the service; returns publish start times and publish call durations. */
  const publishThroughService = async (count: number) => {
    const ids = Array.from({ length: count }, () => newId('evt_'));
    const sentAt = new Map<string, number>();
    const callMs: number[] = [];
    await runBounded(count, CONCURRENCY, async (index) => {
      const eventId = ids[index]!;
      const started = now();
      sentAt.set(eventId, started);
      await publishEvent(publishDeps(), { eventId, accountId: account.id, type: 'webhook.test', data: data(index) });
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

  /** Where the service's time goes, per event, from the timestamps the service itself stored. */
  const stagesOf = async (sentAt: ReadonlyMap<string, number>, recording: Recording) => {
    const { rows } = await sql.query<{ event_id: string; claimed_at: Date; attempt_started_at: Date; completed_at: Date }>(
      `select d.event_id, b.claimed_at, a.started_at as attempt_started_at, d.completed_at
         from deliveries d join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = 1
         join delivery_batches b on b.id = d.batch_id
        where d.event_id = any($1)`,
      [[...sentAt.keys()]],
    );
    const stages = { publishToClaimed: [] as number[], claimedToAttempt: [] as number[], attemptToReceipt: [] as number[], receiptToCompleted: [] as number[] };
    for (const row of rows) {
      const sent = sentAt.get(row.event_id)!;
      const received = recording.receivedAt.get(row.event_id)!;
      const claimed = new Date(row.claimed_at).getTime();
      const attempt = new Date(row.attempt_started_at).getTime();
      stages.publishToClaimed.push(claimed - sent);
      stages.claimedToAttempt.push(attempt - claimed);
      stages.attemptToReceipt.push(received - attempt);
      if (row.completed_at) stages.receiptToCompleted.push(new Date(row.completed_at).getTime() - received);
    }
    return stages;
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
      const body = JSON.stringify(buildEnvelope(eventId, { accountId: account.id, type: 'webhook.test', data: data(index) }, createdAt));
      const headers = buildWebhookHeaders({ id: eventId, timestamp: Math.floor(createdAt.getTime() / 1000), body, secrets: [secret] });
      const status = await baseline.post(receiver.url, headers, body);
      if (status < 200 || status > 299) non2xx += 1;
    });
    return { ids, sentAt, non2xx };
  };

  const timeoutFor = (count: number) => 120_000 + 200 * count;

  // --- Temporal floor, first half (same server, same concurrency) ---------------------------------------------------
  // The machine is shared: measuring half of the floor before the service phase and half after it keeps a change of
  // load during the run from favouring either side of the ratio.
  const floorUnits = [Math.ceil(N / 2), Math.floor(N / 2)];
  /** CPU seconds by process over both halves of the floor, measurement only (warm-up included: it is 10 runs). */
  const floorCpu = new Map<string, number>();
  const measureFloor = async (units: number) => {
    progress(`floor: ${units} runs of one workflow with one activity, ${CONCURRENCY} in flight`);
    const before = cpuSnapshot();
    const figures = await measureTemporalFloor({ address: settings.temporalAddress, namespace, units, concurrency: CONCURRENCY, warmup: WARMUP });
    const after = cpuSnapshot();
    if (before && after) for (const [name, seconds] of cpuBetween(before, after)) floorCpu.set(name, (floorCpu.get(name) ?? 0) + seconds);
    return figures;
  };
  const floorBefore = await measureFloor(floorUnits[0]!);

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

  // How the deliveries were batched, and what their runs cost in history events.
  const { rows: batchRows } = await sql.query<{ workflow_id: string; n: string }>(
    `select workflow_id, count(*) as n from deliveries where event_id = any($1) group by workflow_id`,
    [published.ids],
  );
  const batchSizes = ascending(batchRows.map((row) => Number(row.n)));
  // History events per delivery: every batch run's history, summed, over the deliveries they sent.
  let historyEvents = 0;
  await runBounded(batchRows.length, 8, async (index) => {
    const history = await temporalClients.client.workflow.getHandle(batchRows[index]!.workflow_id).fetchHistory();
    historyEvents += history.events?.length ?? 0;
  });
  const { rows: attemptCounts } = await sql.query<{ n: string }>(
    `select count(*) as n from delivery_attempts a join deliveries d on d.id = a.delivery_id where d.event_id = any($1)`,
    [published.ids],
  );
  const stages = await stagesOf(published.sentAt, serviceRecording);

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

  // --- One event in flight ------------------------------------------------------------------------------------------
  progress(`single: publishing ${SINGLE} events one at a time`);
  const singleRecording = new Recording();
  receiver.recording = singleRecording;
  const singleSent = new Map<string, number>();
  for (let index = 0; index < SINGLE; index++) {
    const eventId = newId('evt_');
    singleSent.set(eventId, now());
    await publishEvent(publishDeps(), { eventId, accountId: account.id, type: 'webhook.test', data: data(index) });
    await waitForReceipts('single', singleRecording, [eventId], timeoutFor(1), signal);
  }
  const single = figuresOf(singleSent, singleRecording.receivedAt, singleRecording);
  const singleStages = await stagesOf(singleSent, singleRecording);

  // --- Temporal floor, second half ----------------------------------------------------------------------------------
  const floorAfter = await measureFloor(floorUnits[1]!);
  const floorWallMs = floorBefore.wallMs + floorAfter.wallMs;
  const floor = { perSecond: N / (floorWallMs / 1000), wallMs: floorWallMs };

  const machine = await machineLines(sql, loadAtStart, temporalStore);

  // --- Report ----------------------------------------------------------------------------------------------------
  const ms = (value: number) => fmt(value, 1);
  const row = (name: string, f: PhaseFigures) =>
    `| ${name} | ${f.received}/${f.events} | ${fmt(f.throughput, 1)} | ${ms(f.p50)} | ${ms(f.p90)} | ${ms(f.p99)} | ${ms(f.max)} | ${f.signatureFailures} | ${f.duplicates} |`;
  const stageLine = (name: string, values: number[], single: number[]) => {
    const sorted = ascending(values);
    const singleSorted = ascending(single);
    return `| ${name} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 99))} | ${ms(percentile(singleSorted, 50))} | ${ms(percentile(singleSorted, 99))} |`;
  };
  const callSorted = ascending(published.callMs);

  out(`bench/delivery  N=${N}  CONCURRENCY=${CONCURRENCY}  warm-up=${WARMUP} per path (not counted)  relay linger ${lingerMs} ms  Temporal: ${temporalStore}`);
  out();
  out('Service (publishEvent -> Postgres + Temporal -> worker -> HTTPS POST)');
  out(`  deliveries per second   ${fmt(service.throughput, 1)}   (${N} events / ${fmt(service.wallMs / 1000, 2)} s, first publish -> last receipt)`);
  out(`  latency p50 / p99       ${ms(service.p50)} ms / ${ms(service.p99)} ms   (publish -> receipt)`);
  out(`  signature failures      ${service.signatureFailures}`);
  out(`  duplicates              ${service.duplicates}`);
  out(`  publish calls           all ${N} returned after ${fmt(publishDoneMs, 0)} ms; one call p50 ${ms(percentile(callSorted, 50))} ms, p99 ${ms(percentile(callSorted, 99))} ms`);
  out(`  attempts recorded       ${attemptCounts[0]!.n} for ${N} deliveries`);
  out(`  batch runs              ${batchRows.length} for ${N} deliveries: ${fmt(N / batchRows.length, 1)} per run on average, median ${percentile(batchSizes, 50)}, largest ${batchSizes.at(-1)}`);
  out(`  history events          ${fmt(historyEvents / N, 2)} per delivery (${historyEvents} in ${batchRows.length} runs)`);
  out(`  settled                 every delivery row succeeded and every run closed ${fmt(settledAfterLastReceiptMs, 0)} ms after the last receipt (waited ${fmt(settleWaitMs, 0)} ms)`);
  out();
  out('Baseline (same signed envelopes, POSTed directly with a keep-alive https.Agent)');
  out(`  deliveries per second   ${fmt(bare.throughput, 1)}   (${N} events / ${fmt(bare.wallMs / 1000, 3)} s, first send -> last receipt)`);
  out(`  latency p50 / p99       ${ms(bare.p50)} ms / ${ms(bare.p99)} ms   (send -> receipt)`);
  out(`  signature failures      ${bare.signatureFailures}`);
  out(`  duplicates              ${bare.duplicates}`);
  out(`  non-2xx answers         ${direct.non2xx}`);
  out();
  out(`One event in flight (${SINGLE} events, each published once the previous one has arrived)`);
  out(`  publish -> receipt p50 / p99 / max   ${ms(single.p50)} ms / ${ms(single.p99)} ms / ${ms(single.max)} ms   (goal: p50 <= 100 ms)`);
  out();
  out(`Temporal floor (one workflow with one activity per unit, own worker and task queue, same server, ${CONCURRENCY} in flight)`);
  out(`  runs per second         ${fmt(floor.perSecond, 1)}   (${N} runs / ${fmt(floor.wallMs / 1000, 2)} s: half before the service phase, half after)`);
  out(`  before / after          ${fmt(floorBefore.perSecond, 1)} / ${fmt(floorAfter.perSecond, 1)} runs/s; run p50 ${ms(floorBefore.p50)} / ${ms(floorAfter.p50)} ms`);
  out();
  out('Ratio');
  out(`  throughput  service / floor      ${fmt(service.throughput / floor.perSecond, 2)}  (goal: >= 1.5)`);
  out(`  throughput  service / baseline   ${fmt(service.throughput / bare.throughput, 4)}  (baseline is ${fmt(bare.throughput / service.throughput, 0)}x faster)`);
  out(`  p50         service / baseline   ${fmt(service.p50 / bare.p50, 0)}x`);
  out();
  out('| Path | Received | Deliveries/s | p50 ms | p90 ms | p99 ms | max ms | Signature failures | Duplicates |');
  out('|---|---|---|---|---|---|---|---|---|');
  out(row('service', service));
  out(row('baseline', bare));
  out();
  out('Service latency by stage (from the rows the service wrote): under load (N events) | one event in flight');
  out('| Stage | p50 ms | p99 ms | one in flight: p50 ms | p99 ms |');
  out('|---|---|---|---|---|');
  out(stageLine('publish -> claimed into a batch (event and delivery rows, NOTIFY, relay claim)', stages.publishToClaimed, singleStages.publishToClaimed));
  out(stageLine('claimed -> attempt started (batch run start, workflow task, attemptDelivery reads)', stages.claimedToAttempt, singleStages.claimedToAttempt));
  out(stageLine('attempt started -> received (sign, HTTPS POST)', stages.attemptToReceipt, singleStages.attemptToReceipt));
  out(stageLine('received -> delivery row marked succeeded', stages.receiptToCompleted, singleStages.receiptToCompleted));
  if (cpuBefore && cpuAfter) {
    out();
    out(`CPU seconds during the service phase (${fmt(serviceWallS, 1)} s wall, publish -> settled; ${availableParallelism()} cores = ${fmt(serviceWallS * availableParallelism(), 1)} core-s)`);
    for (const [name, seconds] of cpuBetween(cpuBefore, cpuAfter)) {
      if (seconds >= 0.05) {
        const perFloorRun = floorCpu.get(name);
        const floorText = perFloorRun === undefined ? '' : `; the floor: ${fmt((1000 * perFloorRun) / (N + 2 * WARMUP), 1)} ms per run`;
        out(`  ${name.padEnd(36)}  ${fmt(seconds, 1)} s  (${fmt((100 * seconds) / serviceWallS, 0)}% of one core; ${fmt((1000 * seconds) / N, 1)} ms per delivery${floorText})`);
      }
    }
    if (process.env.DATABASE_URL) out('  (PostgreSQL at DATABASE_URL is not this process tree\'s, so it is not counted)');
  }
  out();
  for (const line of machine) out(line);

  const lost = N - service.received + (SINGLE - single.received);
  const duplicates = service.duplicates + single.duplicates;
  out();
  out(
    JSON.stringify({
      bench: 'delivery',
      unit: 'deliveries/s',
      service: service.throughput,
      baseline: bare.throughput,
      floor: floor.perSecond,
      ratioToBaseline: service.throughput / bare.throughput,
      ratioToFloor: service.throughput / floor.perSecond,
      lost,
      duplicates,
      singleInFlightP50Ms: single.p50,
      serviceP50Ms: service.p50,
      serviceP99Ms: service.p99,
      deliveriesPerRun: N / batchRows.length,
      historyEventsPerDelivery: historyEvents / N,
      temporal: temporalStore,
      relayLingerMs: lingerMs,
      n: N,
      concurrency: CONCURRENCY,
    }),
  );

  const ok =
    lost === 0 &&
    single.signatureFailures === 0 &&
    single.duplicates === 0 &&
    service.received === N &&
    bare.received === N &&
    service.signatureFailures + bare.signatureFailures === 0 &&
    service.duplicates + bare.duplicates === 0 &&
    direct.non2xx === 0;
  if (!ok) progress('FAILED: missing events, signature failures, duplicates or non-2xx answers (see above)');
  return ok ? 0 : 1;
}

runBench(progress, main);

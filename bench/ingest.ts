/**
 * `npm run bench:ingest`: signed event ingest through the whole service (`POST /v1/in/{inboundKey}` on the real API:
 * connection lookup (cached per instance for a second), signature, Postgres rate limiter (points reserved in blocks),
 * envelope validation, one statement that inserts the row into the ingest outbox and NOTIFYs the relay; then the
 * worker's relay claims batches and the `ingestBatch` runs take the events to PROCESSED) against a bare node:http
 * server that checks the same signature and inserts the same row with one plain `pg` INSERT, and against the
 * Temporal floor (one workflow with one activity per unit, same server, same concurrency, same run). Figures go to
 * stdout, progress to stderr; the last stdout line is one JSON object.
 *
 * Environment (all optional): DURATION_S of load per path (20), CLIENTS concurrent clients (32), WARMUP_S of load per
 * path before measuring (2, not counted), DRAIN_TIMEOUT_S to wait for the accepted events' runs (600), API_POOL_MAX
 * for the API's ORM pool (connectOrm's default, 10, as in `npm run api`; the baseline's pool follows it),
 * DATABASE_URL (a server to create a scratch database on; embedded PostgreSQL otherwise), LOG_LEVEL for the
 * service's own logs on stderr (warn), FLOOR_UNITS for the floor (1000), WORKER_PROCESS=1 to run the worker in
 * a process of its own (as deployed) instead of in the bench process.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import type pg from 'pg';
import type { Client } from '@temporalio/client';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createConnection } from '../src/domain/connections/create-connection.ts';
import type { DeliverySettings } from '../src/domain/deliveries/delivery-settings.ts';
import { systemResolve } from '../src/security/ip-policy.ts';
import { createSecretBox } from '../src/security/secret-box.ts';
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './support/cpu.ts';
import { positiveInt } from './support/env.ts';
import { driveLoad, type LoadResult } from './support/http-load.ts';
import { signedEnvelopes, unlimitedIngest, type IngestTarget } from './support/ingest-load.ts';
import { startIngestBaseline, type BaselineConnection } from './support/ingest-baseline.ts';
import { PoolProbe } from './support/pg-probe.ts';
import { runBench, startBenchApi, startBenchWorker, startBenchWorkerProcess, startStack, type BenchContext } from './support/stack.ts';
import { StageTimer } from './support/stage-timer.ts';
import { ascending, fmt, percentile } from './support/stats.ts';
import { machineLines } from './support/machine.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';

const DURATION_S = positiveInt('DURATION_S', 20);
const CLIENTS = positiveInt('CLIENTS', 32);
const WARMUP_S = positiveInt('WARMUP_S', 2, 0);
const DRAIN_TIMEOUT_S = positiveInt('DRAIN_TIMEOUT_S', 600);
const FLOOR_UNITS = positiveInt('FLOOR_UNITS', 1000);
const WORKER_PROCESS = process.env.WORKER_PROCESS === '1';
/** The API's ORM pool; unset, createApiServices opens its own with connectOrm's default (10), as `npm run api` does. */
const API_POOL_MAX = process.env.API_POOL_MAX ? positiveInt('API_POOL_MAX', 10) : undefined;
/** The bare server's pool, as large as the API's ORM pool. */
const BASELINE_POOL_MAX = API_POOL_MAX ?? 10;
// The production schedule; the ingest runs do not deliver anything, so these only matter to an unused code path.
const delivery: DeliverySettings = { retryInitialMs: 5000, retryBackoff: 3, maxAttempts: 12, timeoutMs: 15000, disableAfterHours: 120 };
const namespace = 'default';
const runTag = randomBytes(4).toString('hex');
const taskQueue = `bench-ingest-${runTag}`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[bench:ingest] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

async function load(label: string, target: IngestTarget, phase: string, seconds: number, signal: AbortSignal): Promise<LoadResult> {
  progress(`${label}: ${CLIENTS} clients for ${seconds} s against ${target.origin}`);
  const result = await driveLoad({
    origin: target.origin,
    clients: CLIENTS,
    durationMs: seconds * 1000,
    next: signedEnvelopes(runTag, phase, target),
    signal,
    onProgress: (elapsedMs, accepted, other, since) =>
      progress(`${label}: ${fmt(elapsedMs / 1000, 0)} s, ${accepted} accepted (${fmt(since / 2, 0)}/s over the last 2 s), ${other} other answers`),
  });
  signal.throwIfAborted();
  const others = [...result.statuses].filter(([status]) => status !== '202');
  progress(`${label}: ${result.acceptedTags.length} accepted of ${result.sent} in ${fmt(result.wallMs / 1000, 2)} s${others.length ? `; other answers ${others.map(([s, n]) => `${s}×${n}`).join(', ')}` : ''}`);
  return result;
}

interface RunCounts {
  rows: number;
  processed: number;
  /** Distinct relay batches the rows were claimed into. */
  batches: number;
  runs: number;
  completed: number;
  running: number;
}

async function countRuns(sql: pg.Client, temporal: Client, connectionId: string): Promise<RunCounts> {
  const { rows } = await sql.query<{ rows: string; processed: string; batches: string }>(
    `select count(*) as rows, count(*) filter (where status = 'PROCESSED') as processed, count(distinct relay_batch_id) as batches
       from inbound_events where connection_id = $1`,
    [connectionId],
  );
  // Batches mix connections; this bench's accounts are alone on the task queue, so every batch run is theirs.
  const scope = `WorkflowType = "ingestBatch" AND TaskQueue = "${taskQueue}"`;
  const [runs, completed, running] = await Promise.all([
    temporal.workflow.count(scope),
    temporal.workflow.count(`${scope} AND ExecutionStatus = "Completed"`),
    temporal.workflow.count(`${scope} AND ExecutionStatus = "Running"`),
  ]);
  return {
    rows: Number(rows[0]!.rows),
    processed: Number(rows[0]!.processed),
    batches: Number(rows[0]!.batches),
    runs: runs.count,
    completed: completed.count,
    running: running.count,
  };
}

/**
 * Waits until `expected` rows of the connection are PROCESSED and no batch run is open, printing progress about
 * every 2 s. Fails after `timeoutMs`, or when nothing has been processed for 60 s.
 */
async function waitForRuns(label: string, sql: pg.Client, temporal: Client, connectionId: string, expected: number, timeoutMs: number, signal: AbortSignal): Promise<RunCounts> {
  const deadline = Date.now() + timeoutMs;
  let lastReport = 0;
  let lastProcessed = -1;
  let lastChange = Date.now();
  for (;;) {
    if (signal.aborted) throw new Error(`${label}: interrupted`);
    const counts = await countRuns(sql, temporal, connectionId);
    if (counts.processed !== lastProcessed) {
      lastProcessed = counts.processed;
      lastChange = Date.now();
    }
    const done = counts.running === 0 && counts.processed >= expected;
    if (done || Date.now() - lastReport >= 2000) {
      progress(`${label}: ${counts.processed}/${expected} rows PROCESSED, ${counts.completed} ingestBatch runs completed, ${counts.running} running`);
      lastReport = Date.now();
    }
    if (done) return counts;
    if (Date.now() > deadline) throw new Error(`${label}: events not processed within ${Math.round(timeoutMs / 1000)} s`);
    if (Date.now() - lastChange > 60_000) throw new Error(`${label}: nothing processed for 60 s (${counts.processed}/${expected})`);
    await sleep(500);
  }
}

interface PathFigures {
  accepted: number;
  sent: number;
  perSecond: number;
  wallS: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  others: Array<[string, number]>;
}

function figures(result: LoadResult): PathFigures {
  const sorted = ascending(result.acceptedMs);
  return {
    accepted: sorted.length,
    sent: result.sent,
    perSecond: sorted.length / (result.wallMs / 1000),
    wallS: result.wallMs / 1000,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    others: [...result.statuses].filter(([status]) => status !== '202').sort((a, b) => b[1] - a[1]),
  };
}

const cpuLines = (title: string, before: CpuSnapshot | undefined, after: CpuSnapshot | undefined, wallS: number) => {
  if (!before || !after) return;
  out(`${title} (${fmt(wallS, 1)} s wall; ${availableParallelism()} cores = ${fmt(wallS * availableParallelism(), 1)} core-s)`);
  for (const [name, seconds] of cpuBetween(before, after)) {
    if (seconds >= 0.05) out(`  ${name.padEnd(36)}  ${fmt(seconds, 1)} s  (${fmt((100 * seconds) / wallS, 0)}% of one core)`);
  }
};

async function main(context: BenchContext): Promise<number> {
  const loadAtStart = loadavg();
  progress(`DURATION_S=${DURATION_S} CLIENTS=${CLIENTS} WARMUP_S=${WARMUP_S}`);
  const stack = await startStack(context, progress, { taskQueue, namespace, delivery });
  const { workerOrm, sql, settings } = stack;
  const temporalClients = stack.temporal;
  // WORKER_PROCESS=1: the worker in a process of its own, as deployed (`npm run worker`), so that the events it
  // processes during the load do not share the API's event loop.
  if (WORKER_PROCESS) await startBenchWorkerProcess(context, stack);
  else await startBenchWorker(context, progress, stack);

  // The API as in its own process: its own ORM pool, its own Temporal client, the Postgres rate limiter.
  const { services, api } = await startBenchApi(context, progress, stack, { poolMax: API_POOL_MAX, rateLimit: unlimitedIngest });
  // Stage timings: the two calls that leave the process besides the ORM's, wrapped where the API composes them
  // (before any request: the routes read these at request time).
  const rateLimitTimer = new StageTimer();
  const limiter = services.ingest.rateLimiter;
  services.ingest.rateLimiter = { ...limiter, consume: rateLimitTimer.wrap(limiter.consume.bind(limiter)) };
  // And the API's ORM pool: waits for a connection, how long one is held, each statement by kind.
  const apiPool = new PoolProbe();
  apiPool.attach(await services.orm.em.getConnection().getNativeClient());

  // One account and direct connection measured; another for the warm-ups, so its runs never mix with the counts.
  const em = () => workerOrm.em.fork();
  const connectionDeps = () => ({ em: em(), secrets: createSecretBox(settings.secretsKey), outbound: { allow: [], resolve: systemResolve } });
  const { account } = await createAccount(em(), { name: 'bench-ingest' });
  const measured = await createConnection(connectionDeps(), account.id, { provider: 'direct', label: 'bench' });
  const baselineRows = await createConnection(connectionDeps(), account.id, { provider: 'direct', label: 'bench baseline rows' });
  const { account: warmAccount } = await createAccount(em(), { name: 'bench-ingest warm-up' });
  const warm = await createConnection(connectionDeps(), warmAccount.id, { provider: 'direct', label: 'bench warm-up' });
  progress(`account ${account.id}, connection ${measured.connection.id}`);

  const drainTimeoutMs = DRAIN_TIMEOUT_S * 1000;

  // --- Service path ---------------------------------------------------------------------------------------------
  if (WARMUP_S > 0) {
    const warmed = await load('service warm-up', { origin: api.url, inboundKey: warm.connection.inboundKey, secret: warm.signingSecret }, 'warm', WARMUP_S, context.signal);
    await waitForRuns('service warm-up', sql, temporalClients.client, warm.connection.id, warmed.acceptedTags.length, drainTimeoutMs, context.signal);
  }
  const before = await countRuns(sql, temporalClients.client, warm.connection.id);
  rateLimitTimer.recording = true;
  apiPool.recording = true;
  const reservationsBefore = limiter.reservations();
  const serviceLoop = monitorEventLoopDelay({ resolution: 10 });
  serviceLoop.enable();
  const cpuServiceStart = cpuSnapshot();
  const threadServiceStart = process.threadCpuUsage();
  const serviceLoad = await load('service', { origin: api.url, inboundKey: measured.connection.inboundKey, secret: measured.signingSecret }, 'svc', DURATION_S, context.signal);
  const cpuServiceLoaded = cpuSnapshot();
  const threadService = process.threadCpuUsage(threadServiceStart);
  serviceLoop.disable();
  rateLimitTimer.recording = false;
  apiPool.recording = false;
  const rateLimitTrips = limiter.reservations() - reservationsBefore;
  const service = figures(serviceLoad);
  const drainStarted = now();
  const counts = await waitForRuns('service runs', sql, temporalClients.client, measured.connection.id, service.accepted, drainTimeoutMs, context.signal);
  const cpuServiceDrained = cpuSnapshot();
  const drainS = (now() - drainStarted) / 1000;

  // Which accepted messages ended PROCESSED, and how long each took from its row's insert to PROCESSED.
  const { rows: eventRows } = await sql.query<{ message_id: string; status: string; created_at: Date; processed_at: Date | null }>(
    `select message_id, status, created_at, processed_at from inbound_events where connection_id = $1`,
    [measured.connection.id],
  );
  const acceptedIds = new Set(serviceLoad.acceptedTags);
  const processedIds = new Set(eventRows.filter((row) => row.status === 'PROCESSED').map((row) => row.message_id));
  const lost = [...acceptedIds].filter((id) => !processedIds.has(id)).length;
  const unanswered = eventRows.filter((row) => !acceptedIds.has(row.message_id)).length;
  // Each row names one batch; each batch must have exactly one run (the warm-up's runs were counted before).
  const measuredRuns = counts.runs - before.runs;
  const duplicatedRuns = Math.max(0, measuredRuns - counts.batches);
  const statusCounts = new Map<string, number>();
  for (const row of eventRows) statusCounts.set(row.status, (statusCounts.get(row.status) ?? 0) + 1);
  const toProcessed = ascending(
    eventRows.filter((row) => row.processed_at).map((row) => new Date(row.processed_at!).getTime() - new Date(row.created_at).getTime()),
  );
  const lastProcessed = Math.max(...eventRows.map((row) => (row.processed_at ? new Date(row.processed_at).getTime() : -Infinity)));
  const endToEndS = (lastProcessed - serviceLoad.startedAt) / 1000;
  const processedPerSecond = eventRows.length / endToEndS;

  // --- Baseline path --------------------------------------------------------------------------------------------
  const connections = new Map<string, BaselineConnection>([
    // The measured posts are signed with the service connection's secret; their rows go under another connection id.
    [measured.connection.inboundKey, { accountId: account.id, connectionId: baselineRows.connection.id, secret: measured.signingSecret }],
    [warm.connection.inboundKey, { accountId: warmAccount.id, connectionId: warm.connection.id, secret: warm.signingSecret }],
  ]);
  const bare = await startIngestBaseline({ databaseUrl: settings.databaseUrl, poolMax: BASELINE_POOL_MAX, connections });
  context.teardown.add('baseline server', bare.close);
  progress(`baseline at ${bare.origin}`);
  if (WARMUP_S > 0) await load('baseline warm-up', { origin: bare.origin, inboundKey: warm.connection.inboundKey, secret: warm.signingSecret }, 'bwarm', WARMUP_S, context.signal);
  const baselineLoop = monitorEventLoopDelay({ resolution: 10 });
  baselineLoop.enable();
  const cpuBaselineStart = cpuSnapshot();
  const threadBaselineStart = process.threadCpuUsage();
  const baselineLoad = await load('baseline', { origin: bare.origin, inboundKey: measured.connection.inboundKey, secret: measured.signingSecret }, 'base', DURATION_S, context.signal);
  const cpuBaselineEnd = cpuSnapshot();
  const threadBaseline = process.threadCpuUsage(threadBaselineStart);
  baselineLoop.disable();
  const baseline = figures(baselineLoad);
  const { rows: baselineCount } = await sql.query<{ n: string }>(`select count(*) as n from inbound_events where connection_id = $1`, [baselineRows.connection.id]);
  const baselineStored = Number(baselineCount[0]!.n);

  // --- Temporal floor: one workflow, one activity per unit, on the same dev server, at the same concurrency -------
  progress(`Temporal floor: ${FLOOR_UNITS} runs, ${CLIENTS} in flight`);
  const cpuFloorStart = cpuSnapshot();
  const floor = await measureTemporalFloor({ address: settings.temporalAddress, namespace, units: FLOOR_UNITS, concurrency: CLIENTS });
  const cpuFloorEnd = cpuSnapshot();
  context.signal.throwIfAborted();

  const machine = await machineLines(sql, loadAtStart);

  // --- Report ----------------------------------------------------------------------------------------------------
  const ms = (value: number) => fmt(value, 1);
  const others = (f: PathFigures) => (f.others.length ? f.others.map(([status, n]) => `${status}: ${n}`).join(', ') : 'none');
  const loopMs = (ns: number) => fmt(ns / 1e6, 1);
  const pathLines = (f: PathFigures, path: 'service' | 'baseline', loop: ELDHistogram, thread: NodeJS.CpuUsage) => {
    out(`  accepted per second     ${fmt(f.perSecond, 1)}   (${f.accepted} answered 202 / ${fmt(f.wallS, 2)} s; ${f.sent} sent)`);
    out(`  HTTP call p50 / p99     ${ms(f.p50)} ms / ${ms(f.p99)} ms   (p90 ${ms(f.p90)}, max ${ms(f.max)}; 202s only, request written -> response read)`);
    out(`  non-202 answers         ${others(f)}`);
    out(`  event-loop delay        p50 ${loopMs(loop.percentile(50))} ms, p99 ${loopMs(loop.percentile(99))} ms, max ${loopMs(loop.max)} ms   (this process, during the load)`);
    const threadS = (thread.user + thread.system) / 1e6;
    out(`  main thread CPU         ${fmt(threadS, 1)} s in ${fmt(f.wallS, 1)} s (${fmt((100 * threadS) / f.wallS, 0)}% of one core; event loop of the API/baseline server, the client${path === 'service' ? ' and the worker\'s activities' : ''})`);
  };
  const row = (name: string, f: PathFigures) =>
    `| ${name} | ${f.accepted} | ${fmt(f.perSecond, 1)} | ${ms(f.p50)} | ${ms(f.p90)} | ${ms(f.p99)} | ${ms(f.max)} | ${others(f)} |`;
  const httpMean = serviceLoad.acceptedMs.reduce((sum, value) => sum + value, 0) / serviceLoad.acceptedMs.length;
  const pool = apiPool.summary();
  const requests = serviceLoad.sent;
  interface Step {
    name: string;
    s: { count: number; mean: number; p50: number; p99: number; total: number };
  }
  const steps: Step[] = [
    { name: `wait for an API pool connection (ORM pool max ${API_POOL_MAX ?? 10})`, s: pool.acquire },
    { name: 'rate limiter consume (from the instance\'s reserved block; a rate_limits upsert per block, own pool max 4)', s: rateLimitTimer.summary() },
    ...pool.statements.map(([kind, s]) => ({ name: `SQL ${kind}`, s })),
  ];
  const accounted = steps.reduce((sum, step) => sum + step.s.total, 0) / requests;
  const stepRow = (name: string, s: Step['s']) =>
    `| ${name} | ${s.count} | ${ms(s.mean)} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.total / requests)} |`;

  out(`bench/ingest  DURATION_S=${DURATION_S}  CLIENTS=${CLIENTS}  warm-up=${WARMUP_S} s per path (not counted)  API pool max ${API_POOL_MAX ?? 10}`);
  out();
  out('Service (POST /v1/in/{inboundKey}: Koa, connection lookup, signature, rate limiter, one insert + NOTIFY into the outbox; no Temporal call)');
  pathLines(service, 'service', serviceLoop, threadService);
  out(`  rate limiter trips      ${rateLimitTrips} reservations in Postgres for ${serviceLoad.sent} requests (points reserved in blocks)`);
  out(`  rows PROCESSED          ${counts.processed} of ${service.accepted} accepted   (rows by status: ${[...statusCounts].map(([s, n]) => `${s} ${n}`).join(', ')})`);
  out(`  ingestBatch runs        ${measuredRuns} for ${counts.batches} relay batches (${fmt(service.accepted / Math.max(1, counts.batches), 1)} events per batch), ${counts.running} running`);
  out(`                          (count 'WorkflowType = "ingestBatch" AND TaskQueue = "${taskQueue}"', less the warm-up's)`);
  out(`  lost: ${lost}`);
  out(`  duplicated runs: ${duplicatedRuns}   rows of posts not answered 202: ${unanswered}`);
  out(`  processed end to end    ${fmt(processedPerSecond, 1)} events/s   (first post -> last PROCESSED, ${fmt(endToEndS, 1)} s; drain after the load ${fmt(drainS, 1)} s)`);
  out(`  row insert -> PROCESSED p50 ${ms(percentile(toProcessed, 50))} ms, p99 ${ms(percentile(toProcessed, 99))} ms`);
  out();
  out(`Baseline (bare node:http: Map lookup, verifyWebhook, JSON.parse, one pg.Pool INSERT into inbound_events; pool max ${BASELINE_POOL_MAX})`);
  pathLines(baseline, 'baseline', baselineLoop, threadBaseline);
  out(`  rows stored             ${baselineStored} of ${baseline.accepted} accepted`);
  out();
  out(`Temporal floor (one workflow with one activity per unit, own worker and task queue, same server, ${CLIENTS} in flight)`);
  out(`  runs per second         ${fmt(floor.perSecond, 1)}   (${floor.units} runs in ${fmt(floor.wallMs / 1000, 1)} s; start -> result p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms)`);
  out();
  out('Ratio');
  out(`  accepted    service / baseline   ${fmt(service.perSecond / baseline.perSecond, 3)}   (goal >= 0.5, p99 <= 50 ms: ${ms(service.p99)} ms)`);
  out(`  accepted    service / floor      ${fmt(service.perSecond / floor.perSecond, 2)}`);
  out(`  processed   service / floor      ${fmt(processedPerSecond / floor.perSecond, 2)}   (goal >= 1)`);
  out(`  throughput  service / baseline   ${fmt(service.perSecond / baseline.perSecond, 3)}  (baseline is ${fmt(baseline.perSecond / service.perSecond, 1)}x faster)`);
  out(`  p50         service / baseline   ${fmt(service.p50 / baseline.p50, 1)}x`);
  out(`  p99         service / baseline   ${fmt(service.p99 / baseline.p99, 1)}x`);
  out();
  out('| Path | Accepted (202) | Accepted/s | p50 ms | p90 ms | p99 ms | max ms | Non-202 |');
  out('|---|---|---|---|---|---|---|---|');
  out(row('service', service));
  out(row('baseline', baseline));
  out();
  out(`Service request, where the time goes (measured phase, ${requests} requests; sequential steps, so the last column adds up)`);
  out('| Step | Calls | mean ms | p50 ms | p99 ms | ms per request |');
  out('|---|---|---|---|---|---|');
  for (const step of steps) out(stepRow(step.name, step.s));
  out(`| the rest: Koa, secret open + HMAC, zod, ORM and SDK code, event-loop queueing | – | – | – | – | ${ms(httpMean - accounted)} |`);
  out(`| whole HTTP call (202s) | ${service.accepted} | ${ms(httpMean)} | ${ms(service.p50)} | ${ms(service.p99)} | ${ms(httpMean)} |`);
  out(stepRow('(overlapping) API pool connection held for the transaction, begin -> release', pool.transactionHold));
  out(stepRow('(overlapping) API pool connection held for a single statement', pool.statementHold));
  out();
  cpuLines('CPU seconds while the service took load (API, worker and client all in this process)', cpuServiceStart, cpuServiceLoaded, service.wallS);
  cpuLines('CPU seconds while the runs drained after the load', cpuServiceLoaded, cpuServiceDrained, drainS);
  cpuLines('CPU seconds while the baseline took load (baseline server and client in this process)', cpuBaselineStart, cpuBaselineEnd, baseline.wallS);
  cpuLines('CPU seconds while the floor ran (its worker and client in this process)', cpuFloorStart, cpuFloorEnd, floor.wallMs / 1000);
  if (cpuServiceStart && cpuServiceDrained && cpuBaselineStart && cpuBaselineEnd) {
    const perEvent = (before: CpuSnapshot, after: CpuSnapshot, events: number) =>
      cpuBetween(before, after)
        .filter(([, seconds]) => seconds >= 0.05)
        .map(([name, seconds]) => `${name} ${fmt((1000 * seconds) / events, 2)}`)
        .join(', ');
    const totalPerEvent = (before: CpuSnapshot, after: CpuSnapshot, events: number) =>
      (1000 * cpuBetween(before, after).reduce((sum, [, seconds]) => sum + seconds, 0)) / events;
    out('CPU ms per accepted event');
    out(`  service   ${fmt(totalPerEvent(cpuServiceStart, cpuServiceDrained, service.accepted), 2)}   (load + drain, until every run completed: ${perEvent(cpuServiceStart, cpuServiceDrained, service.accepted)})`);
    out(`  baseline  ${fmt(totalPerEvent(cpuBaselineStart, cpuBaselineEnd, baseline.accepted), 2)}   (${perEvent(cpuBaselineStart, cpuBaselineEnd, baseline.accepted)})`);
    if (cpuFloorStart && cpuFloorEnd) out(`  floor     ${fmt(totalPerEvent(cpuFloorStart, cpuFloorEnd, floor.units), 2)} per run   (${perEvent(cpuFloorStart, cpuFloorEnd, floor.units)})`);
  }
  if (process.env.DATABASE_URL) out("  (PostgreSQL at DATABASE_URL is not this process tree's, so it is not counted)");
  out();
  for (const line of machine) out(line);

  const ok =
    lost === 0 &&
    duplicatedRuns === 0 &&
    unanswered === 0 &&
    counts.processed === service.accepted &&
    measuredRuns === counts.batches &&
    baselineStored === baseline.accepted &&
    service.accepted > 0 &&
    baseline.accepted > 0;
  if (!ok) progress('FAILED: accepted events lost or duplicated, or counts that do not match the 202s (see above)');
  out(
    JSON.stringify({
      bench: 'ingest',
      unit: 'events/s',
      service: service.perSecond,
      baseline: baseline.perSecond,
      floor: floor.perSecond,
      ratioToBaseline: service.perSecond / baseline.perSecond,
      ratioToFloor: service.perSecond / floor.perSecond,
      processedPerSecond,
      ratioProcessedToFloor: processedPerSecond / floor.perSecond,
      p99Ms: service.p99,
      rateLimitTrips,
      p50Ms: service.p50,
      baselineP99Ms: baseline.p99,
      lost,
      duplicates: duplicatedRuns,
      clients: CLIENTS,
      durationS: DURATION_S,
    }),
  );
  return ok ? 0 : 1;
}

runBench(progress, main);

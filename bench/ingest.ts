/**
 * `npm run bench:ingest`: signed event ingest through the whole service (`POST /v1/in/{inboundKey}` on the real API:
 * connection lookup (cached per instance for a second), signature, Postgres rate limiter (points reserved in blocks),
 * envelope validation, one insert into the ingest outbox, then a coalesced wake of the relays; the worker's relay
 * claims batches and the `ingestBatch` runs take the events to PROCESSED) against a bare node:http server that
 * checks the same signature and inserts the same row with one plain `pg` INSERT, and against the Temporal floor (one
 * workflow with one activity per unit, same server, same concurrency, same run). Figures go to stdout, progress to
 * stderr; the last stdout line is one JSON object.
 *
 * The service is measured twice. "Acceptance alone": a second API instance accepts onto a task queue no relay serves,
 * so nothing else runs while it takes load, as with the baseline; then the bench moves those rows to the worker's
 * queue and times the backlog's processing. "Processing alongside": the API accepts while the worker relays and
 * processes, on the same cores. The load clients run in a worker thread of their own for every path, so that they do
 * not queue on the event loop of the server under test.
 *
 * Environment (all optional): DURATION_S of load per path (20), CLIENTS concurrent clients (32), WARMUP_S of load per
 * path before measuring (5, not counted), DRAIN_TIMEOUT_S to wait for the accepted events' runs (600), API_POOL_MAX
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
import { systemResolve } from '../src/security/ip-policy.ts';
import { createSecretBox } from '../src/security/secret-box.ts';
import { inboundEventsChannel } from '../src/persistence/outbox-channels.ts';
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './support/cpu.ts';
import { positiveInt } from './support/env.ts';
import type { LoadResult } from './support/http-load.ts';
import { unlimitedIngest, type IngestTarget } from './support/ingest-load.ts';
import { driveIngestLoadInThread } from './support/ingest-load-thread.ts';
import { startIngestBaseline, type BaselineConnection } from './support/ingest-baseline.ts';
import { PoolProbe, type ProbeSummary } from './support/pg-probe.ts';
import { runBench, startBenchApi, startBenchWorker, startBenchWorkerProcess, startStack, type BenchApi, type BenchContext } from './support/stack.ts';
import { StageTimer } from './support/stage-timer.ts';
import { ascending, fmt, percentile } from './support/stats.ts';
import { machineLines } from './support/machine.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';

const DURATION_S = positiveInt('DURATION_S', 20);
const CLIENTS = positiveInt('CLIENTS', 32);
const WARMUP_S = positiveInt('WARMUP_S', 5, 0);
const DRAIN_TIMEOUT_S = positiveInt('DRAIN_TIMEOUT_S', 600);
const FLOOR_UNITS = positiveInt('FLOOR_UNITS', 1000);
const WORKER_PROCESS = process.env.WORKER_PROCESS === '1';
/** The API's ORM pool; unset, createApiServices opens its own with connectOrm's default (10), as `npm run api` does. */
const API_POOL_MAX = process.env.API_POOL_MAX ? positiveInt('API_POOL_MAX', 10) : undefined;
/** The bare server's pool, as large as the API's ORM pool. */
const BASELINE_POOL_MAX = API_POOL_MAX ?? 10;
const namespace = 'default';
const runTag = randomBytes(4).toString('hex');
const taskQueue = `bench-ingest-${runTag}`;
/** The task queue of the API instance whose events wait: no relay serves it until the bench moves its rows. */
const heldQueue = `${taskQueue}-held`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[bench:ingest] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

async function load(label: string, target: IngestTarget, phase: string, seconds: number, signal: AbortSignal): Promise<LoadResult> {
  progress(`${label}: ${CLIENTS} clients for ${seconds} s against ${target.origin}`);
  const result = await driveIngestLoadInThread({
    target,
    clients: CLIENTS,
    durationMs: seconds * 1000,
    runTag,
    phase,
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

/** The API's probes: the rate limiter's `consume` and the ORM pool, wrapped where the API composes them. */
function probeApi(services: BenchApi['services']) {
  const rateLimitTimer = new StageTimer();
  const limiter = services.ingest.rateLimiter;
  // Before any request: the routes read these at request time.
  services.ingest.rateLimiter = { ...limiter, consume: rateLimitTimer.wrap(limiter.consume.bind(limiter)) };
  const pool = new PoolProbe();
  return {
    rateLimitTimer,
    pool,
    limiter,
    async attach() {
      pool.attach(await services.orm.em.getConnection().getNativeClient());
    },
    set recording(on: boolean) {
      rateLimitTimer.recording = on;
      pool.recording = on;
    },
  };
}

/** One measured load on the service: its figures, where its requests spent their time, and the CPU it took. */
interface ServicePhase {
  load: LoadResult;
  figures: PathFigures;
  loop: ELDHistogram;
  thread: NodeJS.CpuUsage;
  rateLimitTrips: number;
  steps: Array<{ name: string; s: ProbeSummary }>;
  pool: ReturnType<PoolProbe['summary']>;
  cpuStart: CpuSnapshot | undefined;
  cpuLoaded: CpuSnapshot | undefined;
}

async function measureService(label: string, target: IngestTarget, phase: string, probes: ReturnType<typeof probeApi>, signal: AbortSignal): Promise<ServicePhase> {
  probes.recording = true;
  const reservationsBefore = probes.limiter.reservations();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpuStart = cpuSnapshot();
  const threadStart = process.threadCpuUsage();
  const result = await load(label, target, phase, DURATION_S, signal);
  const cpuLoaded = cpuSnapshot();
  const thread = process.threadCpuUsage(threadStart);
  loop.disable();
  probes.recording = false;
  const pool = probes.pool.summary();
  return {
    load: result,
    figures: figures(result),
    loop,
    thread,
    rateLimitTrips: probes.limiter.reservations() - reservationsBefore,
    steps: [
      { name: `wait for an API pool connection (ORM pool max ${API_POOL_MAX ?? 10})`, s: pool.acquire },
      { name: "rate limiter consume (from the instance's reserved block; a rate_limits upsert per block, own pool max 4)", s: probes.rateLimitTimer.summary() },
      ...pool.statements.map(([kind, summary]) => ({ name: `SQL ${kind}`, s: summary })),
    ],
    pool,
    cpuStart,
    cpuLoaded,
  };
}

/** What became of one phase's accepted events: each PROCESSED once, each batch run once, and when. */
interface Outcome {
  counts: RunCounts;
  lost: number;
  unanswered: number;
  measuredRuns: number;
  duplicatedRuns: number;
  statusCounts: Map<string, number>;
  toProcessed: number[];
  lastProcessed: number;
}

async function outcomeOf(sql: pg.Client, counts: RunCounts, runsBefore: number, connectionId: string, accepted: LoadResult): Promise<Outcome> {
  const { rows } = await sql.query<{ message_id: string; status: string; created_at: Date; processed_at: Date | null }>(
    `select message_id, status, created_at, processed_at from inbound_events where connection_id = $1`,
    [connectionId],
  );
  const acceptedIds = new Set(accepted.acceptedTags);
  const processedIds = new Set(rows.filter((row) => row.status === 'PROCESSED').map((row) => row.message_id));
  // Each row names one batch; each batch must have exactly one run (the runs of earlier phases were counted before).
  const measuredRuns = counts.runs - runsBefore;
  const statusCounts = new Map<string, number>();
  for (const row of rows) statusCounts.set(row.status, (statusCounts.get(row.status) ?? 0) + 1);
  return {
    counts,
    lost: [...acceptedIds].filter((id) => !processedIds.has(id)).length,
    unanswered: rows.filter((row) => !acceptedIds.has(row.message_id)).length,
    measuredRuns,
    duplicatedRuns: Math.max(0, measuredRuns - counts.batches),
    statusCounts,
    toProcessed: ascending(rows.filter((row) => row.processed_at).map((row) => new Date(row.processed_at!).getTime() - new Date(row.created_at).getTime())),
    lastProcessed: Math.max(...rows.map((row) => (row.processed_at ? new Date(row.processed_at).getTime() : -Infinity))),
  };
}

const outcomeOk = (outcome: Outcome, accepted: number) =>
  outcome.lost === 0 && outcome.duplicatedRuns === 0 && outcome.unanswered === 0 && outcome.counts.processed === accepted && outcome.measuredRuns === outcome.counts.batches && accepted > 0;

/** Moves the rows the second API instance accepted onto the worker's task queue and wakes its relay; answers how many. */
async function handHeldRowsToWorker(sql: pg.Client): Promise<number> {
  const { rowCount } = await sql.query('update inbound_events set task_queue = $1 where task_queue = $2', [taskQueue, heldQueue]);
  await sql.query('select pg_notify($1, $2)', [inboundEventsChannel, '']);
  return rowCount ?? 0;
}

async function main(context: BenchContext): Promise<number> {
  const loadAtStart = loadavg();
  progress(`DURATION_S=${DURATION_S} CLIENTS=${CLIENTS} WARMUP_S=${WARMUP_S}`);
  const stack = await startStack(context, progress, { taskQueue, namespace });
  const { workerOrm, sql, settings } = stack;
  const temporalClients = stack.temporal;
  // WORKER_PROCESS=1: the worker in a process of its own, as deployed (`npm run worker`), so that the events it
  // processes during the load do not share the API's event loop.
  if (WORKER_PROCESS) await startBenchWorkerProcess(context, stack);
  else await startBenchWorker(context, progress, stack);

  // The API as in its own process: its own ORM pool, its own Temporal client, the Postgres rate limiter. A second
  // instance accepts onto a task queue no relay serves, so that its events wait in the outbox until the bench hands
  // them to the worker's queue: acceptance measured alone, as the baseline is, then processing from a backlog.
  const { services, api } = await startBenchApi(context, progress, stack, { poolMax: API_POOL_MAX, rateLimit: unlimitedIngest });
  const held = await startBenchApi(context, progress, { ...stack, settings: { ...settings, taskQueue: heldQueue } }, { poolMax: API_POOL_MAX, rateLimit: unlimitedIngest });
  const mixedProbes = probeApi(services);
  const aloneProbes = probeApi(held.services);
  await mixedProbes.attach();
  await aloneProbes.attach();

  // One account and direct connection per measured phase; another account for the warm-ups, so its runs never mix with the counts.
  const em = () => workerOrm.em.fork();
  const connectionDeps = () => ({ em: em(), secrets: createSecretBox(settings.secretsKey), outbound: { allow: [], resolve: systemResolve } });
  const { account } = await createAccount(em(), { name: 'bench-ingest' });
  const measured = await createConnection(connectionDeps(), account.id, { provider: 'direct', label: 'bench, processing alongside' });
  const measuredAlone = await createConnection(connectionDeps(), account.id, { provider: 'direct', label: 'bench, acceptance alone' });
  const baselineRows = await createConnection(connectionDeps(), account.id, { provider: 'direct', label: 'bench baseline rows' });
  const { account: warmAccount } = await createAccount(em(), { name: 'bench-ingest warm-up' });
  const warm = await createConnection(connectionDeps(), warmAccount.id, { provider: 'direct', label: 'bench warm-up' });
  progress(`account ${account.id}, connections ${measuredAlone.connection.id} (alone), ${measured.connection.id} (alongside)`);

  const drainTimeoutMs = DRAIN_TIMEOUT_S * 1000;
  const targetOf = (origin: string, connection: typeof measured): IngestTarget => ({ origin, inboundKey: connection.connection.inboundKey, secret: connection.signingSecret });

  // --- Service warm-up: both instances, then everything processed ------------------------------------------------
  if (WARMUP_S > 0) {
    const warmed = await load('service warm-up', targetOf(api.url, warm), 'warm', WARMUP_S, context.signal);
    const warmedHeld = await load('service warm-up (second instance)', targetOf(held.api.url, warm), 'hwarm', 1, context.signal);
    await handHeldRowsToWorker(sql);
    await waitForRuns('service warm-up', sql, temporalClients.client, warm.connection.id, warmed.acceptedTags.length + warmedHeld.acceptedTags.length, drainTimeoutMs, context.signal);
  }

  // --- Service, acceptance alone; then the backlog handed to the worker ------------------------------------------
  const runsBeforeAlone = (await countRuns(sql, temporalClients.client, warm.connection.id)).runs;
  const alone = await measureService('service, acceptance alone', targetOf(held.api.url, measuredAlone), 'alone', aloneProbes, context.signal);
  const released = now();
  const cpuReleased = cpuSnapshot();
  const backlog = await handHeldRowsToWorker(sql);
  progress(`backlog of ${backlog} events handed to the worker's relay`);
  const aloneCounts = await waitForRuns('backlog runs', sql, temporalClients.client, measuredAlone.connection.id, alone.figures.accepted, drainTimeoutMs, context.signal);
  const cpuBacklogDrained = cpuSnapshot();
  const aloneOutcome = await outcomeOf(sql, aloneCounts, runsBeforeAlone, measuredAlone.connection.id, alone.load);
  const backlogS = (aloneOutcome.lastProcessed - released) / 1000;
  const backlogPerSecond = alone.figures.accepted / backlogS;

  // --- Service, processing alongside: the worker relays and processes while the API accepts ---------------------
  const runsBeforeMixed = aloneCounts.runs;
  const mixed = await measureService('service, processing alongside', targetOf(api.url, measured), 'svc', mixedProbes, context.signal);
  const drainStarted = now();
  const counts = await waitForRuns('service runs', sql, temporalClients.client, measured.connection.id, mixed.figures.accepted, drainTimeoutMs, context.signal);
  const cpuServiceDrained = cpuSnapshot();
  const drainS = (now() - drainStarted) / 1000;
  const mixedOutcome = await outcomeOf(sql, counts, runsBeforeMixed, measured.connection.id, mixed.load);
  const endToEndS = (mixedOutcome.lastProcessed - mixed.load.startedAt) / 1000;
  const processedPerSecond = mixed.figures.accepted / endToEndS;

  // --- Baseline path --------------------------------------------------------------------------------------------
  const connections = new Map<string, BaselineConnection>([
    // The measured posts are signed with the service connection's secret; their rows go under another connection id.
    [measured.connection.inboundKey, { accountId: account.id, connectionId: baselineRows.connection.id, secret: measured.signingSecret }],
    [warm.connection.inboundKey, { accountId: warmAccount.id, connectionId: warm.connection.id, secret: warm.signingSecret }],
  ]);
  const bare = await startIngestBaseline({ databaseUrl: settings.databaseUrl, poolMax: BASELINE_POOL_MAX, connections });
  context.teardown.add('baseline server', bare.close);
  progress(`baseline at ${bare.origin}`);
  if (WARMUP_S > 0) await load('baseline warm-up', targetOf(bare.origin, warm), 'bwarm', WARMUP_S, context.signal);
  const baselineLoop = monitorEventLoopDelay({ resolution: 10 });
  baselineLoop.enable();
  const cpuBaselineStart = cpuSnapshot();
  const threadBaselineStart = process.threadCpuUsage();
  const baselineLoad = await load('baseline', targetOf(bare.origin, measured), 'base', DURATION_S, context.signal);
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
  const pathLines = (f: PathFigures, loop: ELDHistogram, thread: NodeJS.CpuUsage, who: string) => {
    out(`  accepted per second     ${fmt(f.perSecond, 1)}   (${f.accepted} answered 202 / ${fmt(f.wallS, 2)} s; ${f.sent} sent)`);
    out(`  HTTP call p50 / p99     ${ms(f.p50)} ms / ${ms(f.p99)} ms   (p90 ${ms(f.p90)}, max ${ms(f.max)}; 202s only, request written -> response read)`);
    out(`  non-202 answers         ${others(f)}`);
    out(`  event-loop delay        p50 ${loopMs(loop.percentile(50))} ms, p99 ${loopMs(loop.percentile(99))} ms, max ${loopMs(loop.max)} ms   (this process, during the load)`);
    const threadS = (thread.user + thread.system) / 1e6;
    out(`  main thread CPU         ${fmt(threadS, 1)} s in ${fmt(f.wallS, 1)} s (${fmt((100 * threadS) / f.wallS, 0)}% of one core; ${who})`);
  };
  const outcomeLines = (phase: ServicePhase, outcome: Outcome) => {
    const f = phase.figures;
    out(`  rate limiter trips      ${phase.rateLimitTrips} reservations in Postgres for ${phase.load.sent} requests (points reserved in blocks)`);
    out(`  rows PROCESSED          ${outcome.counts.processed} of ${f.accepted} accepted   (rows by status: ${[...outcome.statusCounts].map(([s, n]) => `${s} ${n}`).join(', ')})`);
    out(`  ingestBatch runs        ${outcome.measuredRuns} for ${outcome.counts.batches} relay batches (${fmt(f.accepted / Math.max(1, outcome.counts.batches), 1)} events per batch), ${outcome.counts.running} running`);
    out(`                          (count 'WorkflowType = "ingestBatch" AND TaskQueue = "${taskQueue}"', less the earlier phases')`);
    out(`  lost: ${outcome.lost}   duplicated runs: ${outcome.duplicatedRuns}   rows of posts not answered 202: ${outcome.unanswered}`);
  };
  const row = (name: string, f: PathFigures) =>
    `| ${name} | ${f.accepted} | ${fmt(f.perSecond, 1)} | ${ms(f.p50)} | ${ms(f.p90)} | ${ms(f.p99)} | ${ms(f.max)} | ${others(f)} |`;
  const stepRow = (name: string, s: ProbeSummary, requests: number) =>
    `| ${name} | ${s.count} | ${ms(s.mean)} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.total / requests)} |`;
  const stepTable = (title: string, phase: ServicePhase) => {
    const requests = phase.load.sent;
    const httpMean = phase.load.acceptedMs.reduce((sum, value) => sum + value, 0) / phase.load.acceptedMs.length;
    const accounted = phase.steps.reduce((sum, step) => sum + step.s.total, 0) / requests;
    out(`${title}, where the time goes (${requests} requests; sequential steps, so the last column adds up)`);
    out('| Step | Calls | mean ms | p50 ms | p99 ms | ms per request |');
    out('|---|---|---|---|---|---|');
    for (const step of phase.steps) out(stepRow(step.name, step.s, requests));
    out(`| the rest: Koa, secret open + HMAC, zod, ORM and SDK code, event-loop queueing | – | – | – | – | ${ms(httpMean - accounted)} |`);
    out(`| whole HTTP call (202s) | ${phase.figures.accepted} | ${ms(httpMean)} | ${ms(phase.figures.p50)} | ${ms(phase.figures.p99)} | ${ms(httpMean)} |`);
    out(stepRow('(overlapping) API pool connection held for the transaction, begin -> release', phase.pool.transactionHold, requests));
    out(stepRow('(overlapping) API pool connection held for a single statement', phase.pool.statementHold, requests));
    out();
  };
  const service = alone.figures;
  const withProcessing = mixed.figures;

  out(`bench/ingest  DURATION_S=${DURATION_S}  CLIENTS=${CLIENTS}  warm-up=${WARMUP_S} s per path (not counted)  API pool max ${API_POOL_MAX ?? 10}`);
  out();
  out('Service, acceptance alone (POST /v1/in/{inboundKey}: Koa, connection lookup, signature, rate limiter, one insert into the outbox, a coalesced wake; no Temporal call; no relay serves the rows yet)');
  pathLines(service, alone.loop, alone.thread, 'the API; the clients run in a thread of their own');
  outcomeLines(alone, aloneOutcome);
  out(`  backlog processed       ${fmt(backlogPerSecond, 1)} events/s   (${alone.figures.accepted} events handed to the relay -> last PROCESSED, ${fmt(backlogS, 1)} s)`);
  out();
  out('Service, processing alongside (the same, while the worker relays and processes what it accepts)');
  pathLines(withProcessing, mixed.loop, mixed.thread, `the API${WORKER_PROCESS ? '' : " and the worker's activities"}; the clients run in a thread of their own`);
  outcomeLines(mixed, mixedOutcome);
  out(`  processed end to end    ${fmt(processedPerSecond, 1)} events/s   (first post -> last PROCESSED, ${fmt(endToEndS, 1)} s; drain after the load ${fmt(drainS, 1)} s)`);
  out(`  row insert -> PROCESSED p50 ${ms(percentile(mixedOutcome.toProcessed, 50))} ms, p99 ${ms(percentile(mixedOutcome.toProcessed, 99))} ms`);
  out();
  out(`Baseline (bare node:http: Map lookup, verifyWebhook, JSON.parse, one pg.Pool INSERT into inbound_events; pool max ${BASELINE_POOL_MAX})`);
  pathLines(baseline, baselineLoop, threadBaseline, 'the baseline server; the clients run in a thread of their own');
  out(`  rows stored             ${baselineStored} of ${baseline.accepted} accepted`);
  out();
  out(`Temporal floor (one workflow with one activity per unit, own worker and task queue, same server, ${CLIENTS} in flight)`);
  out(`  runs per second         ${fmt(floor.perSecond, 1)}   (${floor.units} runs in ${fmt(floor.wallMs / 1000, 1)} s; start -> result p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms)`);
  out();
  out('Ratio');
  out(`  accepted    alone / baseline             ${fmt(service.perSecond / baseline.perSecond, 3)}   (goal >= 0.5, p99 <= 50 ms: ${ms(service.p99)} ms)`);
  out(`  accepted    alongside / baseline         ${fmt(withProcessing.perSecond / baseline.perSecond, 3)}   (p99 ${ms(withProcessing.p99)} ms)`);
  out(`  processed   backlog / floor              ${fmt(backlogPerSecond / floor.perSecond, 2)}   (goal >= 1)`);
  out(`  processed   alongside, end to end / floor ${fmt(processedPerSecond / floor.perSecond, 2)}   (goal >= 1)`);
  out(`  p50         alone / baseline             ${fmt(service.p50 / baseline.p50, 1)}x`);
  out(`  p99         alone / baseline             ${fmt(service.p99 / baseline.p99, 1)}x`);
  out();
  out('| Path | Accepted (202) | Accepted/s | p50 ms | p90 ms | p99 ms | max ms | Non-202 |');
  out('|---|---|---|---|---|---|---|---|');
  out(row('service, acceptance alone', service));
  out(row('service, processing alongside', withProcessing));
  out(row('baseline', baseline));
  out();
  stepTable('Service request, acceptance alone', alone);
  stepTable('Service request, processing alongside', mixed);
  const where = WORKER_PROCESS ? 'API and client in this process, the worker in its own' : 'API, worker and client all in this process';
  cpuLines(`CPU seconds while the service accepted alone (${where})`, alone.cpuStart, alone.cpuLoaded, service.wallS);
  cpuLines('CPU seconds while the worker processed the backlog', cpuReleased, cpuBacklogDrained, backlogS);
  cpuLines(`CPU seconds while the service accepted with processing alongside (${where})`, mixed.cpuStart, mixed.cpuLoaded, withProcessing.wallS);
  cpuLines('CPU seconds while the runs drained after that load', mixed.cpuLoaded, cpuServiceDrained, drainS);
  cpuLines('CPU seconds while the baseline took load (baseline server and client in this process)', cpuBaselineStart, cpuBaselineEnd, baseline.wallS);
  cpuLines('CPU seconds while the floor ran (its worker and client in this process)', cpuFloorStart, cpuFloorEnd, floor.wallMs / 1000);
  const perEvent = (before: CpuSnapshot | undefined, after: CpuSnapshot | undefined, events: number) => {
    if (!before || !after) return 'n/a';
    const parts = cpuBetween(before, after).filter(([, seconds]) => seconds >= 0.05);
    const total = (1000 * cpuBetween(before, after).reduce((sum, [, seconds]) => sum + seconds, 0)) / events;
    return `${fmt(total, 2)}   (${parts.map(([name, seconds]) => `${name} ${fmt((1000 * seconds) / events, 2)}`).join(', ')})`;
  };
  out('CPU ms per accepted event');
  out(`  acceptance alone          ${perEvent(alone.cpuStart, alone.cpuLoaded, service.accepted)}`);
  out(`  backlog processing        ${perEvent(cpuReleased, cpuBacklogDrained, service.accepted)}`);
  out(`  processing alongside      ${perEvent(mixed.cpuStart, cpuServiceDrained, withProcessing.accepted)}   (load + drain, until every run completed)`);
  out(`  baseline                  ${perEvent(cpuBaselineStart, cpuBaselineEnd, baseline.accepted)}`);
  out(`  floor, per run            ${perEvent(cpuFloorStart, cpuFloorEnd, floor.units)}`);
  if (process.env.DATABASE_URL) out("  (PostgreSQL at DATABASE_URL is not this process tree's, so it is not counted)");
  out();
  for (const line of machine) out(line);

  const ok = outcomeOk(aloneOutcome, service.accepted) && outcomeOk(mixedOutcome, withProcessing.accepted) && baselineStored === baseline.accepted && baseline.accepted > 0;
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
      p99Ms: service.p99,
      p50Ms: service.p50,
      baselineP99Ms: baseline.p99,
      backlogProcessedPerSecond: backlogPerSecond,
      ratioBacklogProcessedToFloor: backlogPerSecond / floor.perSecond,
      serviceWithProcessing: withProcessing.perSecond,
      ratioWithProcessingToBaseline: withProcessing.perSecond / baseline.perSecond,
      p99WithProcessingMs: withProcessing.p99,
      processedPerSecond,
      ratioProcessedToFloor: processedPerSecond / floor.perSecond,
      rateLimitTrips: alone.rateLimitTrips + mixed.rateLimitTrips,
      lost: aloneOutcome.lost + mixedOutcome.lost,
      duplicates: aloneOutcome.duplicatedRuns + mixedOutcome.duplicatedRuns,
      clients: CLIENTS,
      durationS: DURATION_S,
      workerProcess: WORKER_PROCESS,
    }),
  );
  return ok ? 0 : 1;
}

runBench(progress, main);

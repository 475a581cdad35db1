/**
 * `npm run bench:jobs`: the recording-job lifecycle over HTTP, as a client drives it with its API key (create,
 * update, execute, submit a recording, select it, accept, get), through the whole service: Koa, the job's Temporal
 * workflow (update validator, lock, activity, history), Postgres. Against two baselines measured in the same run
 * with the same client: the same HTTP API whose job handlers write to Postgres themselves (createJobRecord /
 * applyJobAction, no Temporal), and those domain functions called directly with no HTTP at all. Then the same
 * lifecycles again while bulk work loads the machine (webhook deliveries to a local HTTPS receiver and signed events
 * posted to POST /v1/in/{inboundKey}), to compare the update calls' p99 loaded with idle; and the Temporal floor on
 * the same server. Figures go to stdout, progress to stderr; the last stdout line is one JSON object.
 *
 * Environment (all optional): N lifecycles per path (100), CONCURRENCY lifecycles in flight (8), WARMUP lifecycles per
 * path before measuring (8, not counted), SETTLE_TIMEOUT_S to wait for the job runs to close and their events to be
 * stored (300), LOADED_N lifecycles in the loaded phase, run last (24), LOAD_DELIVERIES webhook deliveries kept open
 * during the loaded phase (16), LOAD_INGEST_CLIENTS closed-loop ingest clients during it (16), LOAD_INGEST_RATE to pace
 * those clients at that many posts per second in all instead (unset: as fast as they are answered), LOAD_DELIVERY_RATE
 * to pace the webhook publishes the same way (unset: each loop publishes when its last delivery arrived), LOAD_RAMP_S of load
 * before the loaded lifecycles start (5), LOAD_MAX_S after which the loaded phase ends (150; calls still in flight then
 * count at their time so far), FLOOR_N runs of the Temporal floor (200, FLOOR_CONCURRENCY in flight, 16),
 * WORKER_PROCESS=1 to run the worker in a process of its own (as deployed), WORKER_PROCESS=split to run it as a bulk
 * process under `nice -n BULK_NICENESS` (19) and an interactive one under `nice -n INTERACTIVE_NICENESS` (-10), each in a
 * session and scheduling group of its own at that niceness (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md), with the
 * Temporal dev server under `nice -n TEMPORAL_NICENESS` (-10), as docker-compose.yml weighs them (the raised ones only
 * where this process may raise a priority),
 * API_PROCESS=1 to serve the job calls (and the load's ingest posts) from an API in a process of its own, as deployed
 * (under `nice -n API_NICENESS`, 0),
 * INGEST_API=process to send the load's ingest posts to a second API instance in a process of its own (under
 * `nice -n INGEST_API_NICENESS`, 0), SHARED_QUEUE=1
 * to run job runs on the bulk task queue and one worker (as before the interactive queue), DATABASE_URL (a server to
 * create a scratch database on; embedded PostgreSQL otherwise), LOG_LEVEL for the service's own logs on stderr (warn).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createApp } from '../src/domain/apps/create-app.ts';
import { applyJobAction } from '../src/domain/jobs/apply-job-action.ts';
import { createJobRecord } from '../src/domain/jobs/create-job-record.ts';
import type { JobView } from '../src/domain/jobs/job-view.ts';
import { getRecordingJob } from '../src/domain/jobs/read-jobs.ts';
import { createConnection } from '../src/domain/connections/create-connection.ts';
import { createNotification } from '../src/domain/notifications/create-notification.ts';
import { connectOrm, type Orm } from '../src/persistence/orm.ts';
import { systemResolve } from '../src/security/ip-policy.ts';
import { createSecretBox, type SecretBox } from '../src/security/secret-box.ts';
import { generateLocalCertificate } from '../src/dev/local-certificate.ts';
import { jobWorkflowId } from '../workflows/recording-job.contract.ts';
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './support/cpu.ts';
import { positiveInt } from './support/env.ts';
import { driveIngestLoadInThread } from './support/ingest-load-thread.ts';
import { unlimitedIngest } from './support/ingest-load.ts';
import { updateTimelines, type UpdateTimeline } from './support/job-history.ts';
import { startJobsBaseline } from './support/jobs-baseline.ts';
import { seedReadyFile } from './support/ready-files.ts';
import { createJsonClient, type JsonClient, type TimedResponse } from './support/json-client.ts';
import { runBench, startBenchApi, startBenchApiProcess, startBenchWorker, startBenchWorkerProcess, startStack, type BenchContext, type Stack } from './support/stack.ts';
import { taskQueuesOfRole } from '../src/service/worker-process.ts';
import { ascending, fmt, percentile, runBounded } from './support/stats.ts';
import { watchGcPauses, type GcPauses } from './support/gc-pauses.ts';
import { kernelSessionGroups, machineLines } from './support/machine.ts';
import { grantedNiceness } from './support/niceness.ts';
import { Recording, startBenchReceiver } from './support/receiver.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';
import { loopbackCidrs, startWebhookLoad, subscribeReceiver } from './support/webhook-load.ts';
import { sampleMessage } from '../test/support/samples.ts';

const N = positiveInt('N', 100);
/** Lifecycles in the loaded phase: fewer, as each takes several times as long there. */
const LOADED_N = positiveInt('LOADED_N', 24);
const CONCURRENCY = positiveInt('CONCURRENCY', 8);
const WARMUP = positiveInt('WARMUP', 8, 0);
const SETTLE_TIMEOUT_S = positiveInt('SETTLE_TIMEOUT_S', 300);
const LOAD_DELIVERIES = positiveInt('LOAD_DELIVERIES', 16);
const LOAD_INGEST_CLIENTS = positiveInt('LOAD_INGEST_CLIENTS', 16);
/** Ingest posts per second in the loaded phase, paced; 0: closed loop, each client posting as soon as answered. */
const LOAD_INGEST_RATE = positiveInt('LOAD_INGEST_RATE', 0, 0);
/** Webhook publishes per second in the loaded phase, paced (at most LOAD_DELIVERIES open); 0: closed loop. */
const LOAD_DELIVERY_RATE = positiveInt('LOAD_DELIVERY_RATE', 0, 0);
const LOAD_RAMP_S = positiveInt('LOAD_RAMP_S', 5, 0);
/** The loaded phase ends after this long under load (ramp included), whether or not its lifecycles have. */
const LOAD_MAX_S = positiveInt('LOAD_MAX_S', 150);
const FLOOR_N = positiveInt('FLOOR_N', 200);
const FLOOR_CONCURRENCY = positiveInt('FLOOR_CONCURRENCY', 16);
/** Job runs on the bulk task queue, polled by one worker: the service as it was before the interactive queue. */
const SHARED_QUEUE = process.env.SHARED_QUEUE === '1';
/** The worker in a process of its own, as `npm run worker` deploys it, rather than beside the API in this one. */
const SPLIT_WORKERS = process.env.WORKER_PROCESS === 'split';
const WORKER_PROCESS = process.env.WORKER_PROCESS === '1' || SPLIT_WORKERS;
/** The bulk worker's niceness when the workers are split (0: the same CPU priority as everything else). */
const BULK_NICENESS = positiveInt('BULK_NICENESS', 19, 0);
/**
 * When the workers are split, the interactive worker and the Temporal dev server, which every job step passes
 * through, run at a raised CPU priority (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md); each granted only where this process may raise one.
 */
const INTERACTIVE_NICENESS = grantedNiceness(positiveInt('INTERACTIVE_NICENESS', SPLIT_WORKERS ? -10 : 0, -20));
const TEMPORAL_NICENESS = grantedNiceness(positiveInt('TEMPORAL_NICENESS', SPLIT_WORKERS ? -10 : 0, -20));
/**
 * The API that the job calls (and the load's ingest posts, unless INGEST_API=process) go to runs in a process of its
 * own, as `npm run api` deploys it, rather than in this one, beside the clients, the receiver and the publisher.
 */
const API_PROCESS = process.env.API_PROCESS === '1';
/** That process's niceness (granted only where this process may raise a priority). */
const API_NICENESS = grantedNiceness(positiveInt('API_NICENESS', 0, -20));
/** The load's ingest posts go to a second API instance in a process of its own, not to the one the job calls use. */
const INGEST_API_PROCESS = process.env.INGEST_API === 'process';
/** That instance's niceness: ingest as bulk work, below the job calls' CPU priority. */
const INGEST_API_NICENESS = positiveInt('INGEST_API_NICENESS', 0, 0);
const namespace = 'default';
const runTag = randomBytes(4).toString('hex');
const taskQueue = `bench-jobs-${runTag}`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[bench:jobs] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/** The seven calls of one lifecycle, in the order they are made. */
const kinds = ['create', 'update', 'execute', 'recording', 'select', 'accept', 'get'] as const;
type Kind = (typeof kinds)[number];
const httpLabel: Record<Kind, string> = {
  create: 'POST /job/create',
  update: 'PUT /job/update',
  execute: 'POST /job/executeJob',
  recording: 'POST /job/recording',
  select: 'POST /richPush/select',
  accept: 'POST /job/accept',
  get: 'GET /job/get',
};
const directLabel: Record<Kind, string> = {
  create: 'createJobRecord',
  update: 'applyJobAction update',
  execute: 'applyJobAction execute',
  recording: 'applyJobAction submitRecording',
  select: 'applyJobAction select',
  accept: 'applyJobAction accept',
  get: 'getRecordingJob (read)',
};
/** The calls that send the job's run a workflow update: every kind but `get`. */
const updateKinds: readonly Kind[] = kinds.filter((kind) => kind !== 'get');
/** The workflow update each call sends (GET sends none). */
const updateName: Partial<Record<Kind, string>> = {
  create: 'create',
  update: 'update',
  execute: 'execute',
  recording: 'submitRecording',
  select: 'select',
  accept: 'accept',
};

// The job body from the spec's sample request (test/support/jobs.ts `sampleJob`), and the message it is for.
const jobBody = (appId: string, notificationId: string) => ({
  title: 'Weekend sale voice-over',
  description: 'Friendly, upbeat, 10 seconds',
  richPushLevel: 'TORSO',
  dueDate: Date.now() + 7 * 24 * 3600 * 1000,
  artistDueDate: Date.now() + 5 * 24 * 3600 * 1000,
  artist: 'artist@example.com',
  appId,
  favourite: 0,
  script: 'This weekend only: up to fifty percent off.',
  notificationId,
  jobType: 'RICHPUSH',
});
const jobChanges = { title: 'Weekend sale voice-over, second take', script: 'This weekend only: up to half off everything.' };
interface Tenant {
  accountId: string;
  apiKey: string;
  appId: string;
  /** One ready file per lifecycle, its take (what this bench times is the job's steps, not processing audio). */
  files: Array<{ fileId: string; url: string }>;
}

/** An account with one app, `count` DRAFT messages and as many ready files, made with the domain functions (not timed). */
async function createTenant(orm: Orm, name: string, count: number): Promise<Tenant & { messages: string[] }> {
  const { account, apiKey } = await createAccount(orm.em.fork(), { name });
  const app = await createApp(orm.em.fork(), account.id, { name: `${name} app` });
  const messages: string[] = [];
  const files: Tenant['files'] = [];
  await runBounded(count, 4, async () => {
    messages.push((await createNotification(orm.em.fork(), account.id, sampleMessage(app.id))).id);
    files.push(await seedReadyFile(orm.em.fork(), account.id, app.id));
  });
  return { accountId: account.id, apiKey, appId: app.id, messages, files };
}

interface CallSample {
  kind: Kind;
  jobId: string | undefined;
  ms: number;
  startedAt: number;
  endedAt: number;
}

/** What one path's phase recorded: every call's timing, and everything that was not the expected answer. */
class PhaseRecord {
  readonly samples: CallSample[] = [];
  /** `POST /job/create 500` → count. */
  readonly unexpected = new Map<string, number>();
  readonly problems: string[] = [];
  completed = 0;
  startedAt = Number.POSITIVE_INFINITY;
  endedAt = Number.NEGATIVE_INFINITY;
  /** Calls sent and not yet answered, by a token: their kind and start. */
  readonly #open = new Map<symbol, { kind: Kind; startedAt: number }>();
  /** Once closed (a capped phase), nothing more is recorded: what ends later ends after the measurement. */
  #closed = false;

  begin(kind: Kind): symbol {
    const token = Symbol(kind);
    this.#open.set(token, { kind, startedAt: now() });
    return token;
  }

  end(token: symbol): void {
    this.#open.delete(token);
  }

  /** Closes the record at `at` and returns the calls still open then, each timed up to `at` (a lower bound). */
  close(at: number): CallSample[] {
    this.#closed = true;
    return [...this.#open.values()].map(({ kind, startedAt }) => ({ kind, jobId: undefined, ms: at - startedAt, startedAt, endedAt: at }));
  }

  add(sample: CallSample): void {
    if (this.#closed) return;
    this.samples.push(sample);
    this.startedAt = Math.min(this.startedAt, sample.startedAt);
    this.endedAt = Math.max(this.endedAt, sample.endedAt);
  }

  fail(key: string, detail: string): void {
    if (this.#closed) return;
    this.unexpected.set(key, (this.unexpected.get(key) ?? 0) + 1);
    if (this.problems.length < 5) this.problems.push(`${key}: ${detail}`);
  }

  /** First call's start to last call's end, in seconds. */
  get wallSeconds(): number {
    return (this.endedAt - this.startedAt) / 1000;
  }

  get unexpectedCount(): number {
    return [...this.unexpected.values()].reduce((sum, count) => sum + count, 0);
  }
}

/**
 * One lifecycle over HTTP, exactly as a client makes it: create → update → execute → submit a recording → select
 * it → accept → get. Each call is timed (request start → response read) and its status checked; a call that does
 * not answer as expected ends the lifecycle (the next calls would need its answer).
 */
async function httpLifecycle(client: JsonClient, tenant: Tenant, notificationId: string, index: number, record: PhaseRecord): Promise<void> {
  let jobId: string | undefined;
  const step = async (kind: Kind, expected: number, method: string, path: string, body?: unknown): Promise<TimedResponse | undefined> => {
    const open = record.begin(kind);
    const response = await client.call(method, path, { token: tenant.apiKey, body });
    record.end(open);
    if (response.status !== expected) {
      record.fail(`${httpLabel[kind]} ${response.status || response.error}`, JSON.stringify(response.body ?? response.error).slice(0, 300));
      return undefined;
    }
    record.add({ kind, jobId: jobId ?? (response.body as JobView).id, ms: response.ms, startedAt: response.startedAt, endedAt: response.endedAt });
    return response;
  };
  const created = await step('create', 201, 'POST', '/job/create', jobBody(tenant.appId, notificationId));
  if (!created) return;
  jobId = (created.body as JobView).id;
  const id = encodeURIComponent(jobId);
  if (!(await step('update', 200, 'PUT', '/job/update', { id: jobId, ...jobChanges }))) return;
  if (!(await step('execute', 200, 'POST', `/job/executeJob?id=${id}`))) return;
  const submitted = await step('recording', 201, 'POST', `/job/recording?id=${id}`, { fileId: tenant.files[index]!.fileId });
  if (!submitted) return;
  const fileId = (submitted.body as { fileId: string }).fileId;
  if (!(await step('select', 200, 'POST', `/richPush/select?file_id=${encodeURIComponent(fileId)}`))) return;
  const accepted = await step('accept', 200, 'POST', `/job/accept?id=${id}`);
  if (!accepted) return;
  const got = await step('get', 200, 'GET', `/job/get?id=${id}`);
  if (!got) return;
  const job = got.body as JobView;
  if (job.status !== 'ACCEPTED' || job.selectedFileId !== fileId || job.recordings.length !== 1 || job.title !== jobChanges.title) {
    record.fail('final job not as expected', JSON.stringify({ status: job.status, selectedFileId: job.selectedFileId, recordings: job.recordings.length, title: job.title }));
    return;
  }
  record.completed += 1;
}

/**
 * The same seven state changes with the domain's database functions, called in this process on a fresh ORM fork
 * each (as the activities call them), with fresh transition ids; each call timed the same way.
 */
async function directLifecycle(orm: Orm, secrets: SecretBox, tenant: Tenant, notificationId: string, index: number, record: PhaseRecord): Promise<void> {
  const jobId = randomUUID();
  const timed = async <R>(kind: Kind, work: () => Promise<R>): Promise<R | undefined> => {
    const startedAt = now();
    try {
      const result = await work();
      const endedAt = now();
      record.add({ kind, jobId, ms: endedAt - startedAt, startedAt, endedAt });
      return result;
    } catch (error) {
      record.fail(`${directLabel[kind]} threw`, String(error));
      return undefined;
    }
  };
  // What the API's zod parse makes of the same body (isStock defaults to 0).
  const { appId, ...fields } = jobBody(tenant.appId, notificationId);
  const apply = (input: Parameters<typeof applyJobAction>[1]) => applyJobAction(orm.em.fork(), input, secrets);
  if (!(await timed('create', () => createJobRecord(orm.em.fork(), { ...fields, isStock: 0, jobId, accountId: tenant.accountId, appId, transitionId: randomUUID() })))) return;
  if (!(await timed('update', () => apply({ jobId, transitionId: randomUUID(), action: 'update', changes: jobChanges })))) return;
  if (!(await timed('execute', () => apply({ jobId, transitionId: randomUUID(), action: 'execute' })))) return;
  const take = tenant.files[index]!;
  const fileId = take.fileId;
  if (!(await timed('recording', () => apply({ jobId, transitionId: randomUUID(), action: 'submitRecording', fileId: randomUUID(), recording: take })))) return;
  if (!(await timed('select', () => apply({ jobId, transitionId: randomUUID(), action: 'select', fileId })))) return;
  if (!(await timed('accept', () => apply({ jobId, transitionId: randomUUID(), action: 'accept' })))) return;
  const job = await timed('get', () => getRecordingJob(orm.em.fork(), tenant.accountId, jobId));
  if (!job) return;
  if (job.status !== 'ACCEPTED' || job.selectedFileId !== fileId || job.recordings.length !== 1) {
    record.fail('final job not as expected', JSON.stringify({ status: job.status, selectedFileId: job.selectedFileId }));
    return;
  }
  record.completed += 1;
}

/** `stopStarting`: once aborted, no further lifecycle starts (those in flight go on); pass `record` to watch it. */
async function runPhase(
  label: string,
  count: number,
  signal: AbortSignal,
  lifecycle: (index: number, record: PhaseRecord) => Promise<void>,
  options: { record?: PhaseRecord; stopStarting?: AbortSignal } = {},
): Promise<PhaseRecord> {
  const record = options.record ?? new PhaseRecord();
  progress(`${label}: ${count} lifecycles, ${CONCURRENCY} in flight`);
  const timer = setInterval(() => progress(`${label}: ${record.completed}/${count} lifecycles done, ${record.samples.length} calls`), 2000);
  try {
    await runBounded(count, CONCURRENCY, async (index) => {
      signal.throwIfAborted();
      if (options.stopStarting?.aborted) return;
      await lifecycle(index, record);
    });
  } finally {
    clearInterval(timer);
  }
  progress(`${label}: ${record.completed}/${count} lifecycles done, ${record.samples.length} calls, ${record.unexpectedCount} unexpected answers`);
  for (const problem of record.problems) progress(`${label}: ${problem}`);
  return record;
}

interface RunCounts {
  jobRuns: number;
  jobCompleted: number;
  /** The account's outbound events, stored with their deliveries (none here: no endpoint) when published. */
  eventsStored: number;
  running: number;
}

async function countRuns(stack: Stack, accountId: string): Promise<RunCounts> {
  const workflow = stack.temporal.client.workflow;
  const scope = (type: string) => `WorkflowType = "${type}" AND AccountId = "${accountId}"`;
  const [jobRuns, jobCompleted, events, running] = await Promise.all([
    workflow.count(scope('recordingJob')),
    workflow.count(`${scope('recordingJob')} AND ExecutionStatus = "Completed"`),
    stack.sql.query<{ n: string }>('select count(*) as n from outbound_events where account_id = $1', [accountId]),
    workflow.count(`AccountId = "${accountId}" AND ExecutionStatus = "Running"`),
  ]);
  return { jobRuns: jobRuns.count, jobCompleted: jobCompleted.count, eventsStored: Number(events.rows[0]!.n), running: running.count };
}

/**
 * Waits until the account's job runs have all closed (each publishes its events after the caller has its answer,
 * then completes) and their events are stored; at least `jobs` job runs and `events` events.
 */
async function waitForRuns(label: string, stack: Stack, accountId: string, jobs: number, events: number, signal: AbortSignal): Promise<RunCounts> {
  const deadline = Date.now() + SETTLE_TIMEOUT_S * 1000;
  let lastReport = 0;
  for (;;) {
    signal.throwIfAborted();
    const counts = await countRuns(stack, accountId);
    const done = counts.running === 0 && counts.jobRuns >= jobs && counts.eventsStored >= events;
    if (done || Date.now() - lastReport >= 2000) {
      progress(`${label}: ${counts.jobCompleted}/${jobs} job runs and ${counts.eventsStored}/${events} events stored, ${counts.running} running`);
      lastReport = Date.now();
    }
    if (done) return counts;
    if (Date.now() > deadline) throw new Error(`${label}: runs did not close within ${SETTLE_TIMEOUT_S} s`);
    await sleep(250);
  }
}

interface CallFigures {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

function callFigures(record: PhaseRecord, kind: Kind): CallFigures {
  const sorted = ascending(record.samples.filter((sample) => sample.kind === kind).map((sample) => sample.ms));
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length ? sorted.reduce((sum, value) => sum + value, 0) / sorted.length : Number.NaN,
  };
}

const ms = (value: number) => fmt(value, 1);

function printPhase(title: string, record: PhaseRecord, labels: Record<Kind, string>, count: number): void {
  const wallS = record.wallSeconds;
  out(title);
  out(`  lifecycles              ${record.completed} of ${count} completed (7 calls each)`);
  out(`  calls per second        ${fmt(record.samples.length / wallS, 1)}   (${record.samples.length} calls / ${fmt(wallS, 2)} s, first call start -> last call end, ${CONCURRENCY} lifecycles in flight)`);
  out(`  unexpected answers      ${record.unexpectedCount}${record.unexpectedCount ? `   (${[...record.unexpected].map(([key, n]) => `${key} ×${n}`).join(', ')})` : ''}`);
  out('| Call | Count | p50 ms | p90 ms | p99 ms | max ms |');
  out('|---|---|---|---|---|---|');
  for (const kind of kinds) {
    const f = callFigures(record, kind);
    out(`| ${labels[kind]} | ${f.count} | ${ms(f.p50)} | ${ms(f.p90)} | ${ms(f.p99)} | ${ms(f.max)} |`);
  }
  const all = ascending(record.samples.map((sample) => sample.ms));
  out(`| all calls | ${all.length} | ${ms(percentile(all, 50))} | ${ms(percentile(all, 90))} | ${ms(percentile(all, 99))} | ${ms(all.at(-1) ?? Number.NaN)} |`);
}

const cpuLines = (title: string, before: CpuSnapshot | undefined, after: CpuSnapshot | undefined, wallS: number, lifecycles: number) => {
  if (!before || !after) return;
  const spent = cpuBetween(before, after).filter(([, seconds]) => seconds >= 0.05);
  const total = spent.reduce((sum, [, seconds]) => sum + seconds, 0);
  out(`${title}: ${fmt((1000 * total) / lifecycles, 1)} ms per lifecycle (${fmt(wallS, 1)} s wall; ${availableParallelism()} cores = ${fmt(wallS * availableParallelism(), 1)} core-s)`);
  for (const [name, seconds] of spent) {
    out(`  ${name.padEnd(36)}  ${fmt(seconds, 1)} s  (${fmt((100 * seconds) / wallS, 0)}% of one core; ${fmt((1000 * seconds) / lifecycles, 1)} ms per lifecycle)`);
  }
};

interface Stages {
  toAccepted: number[];
  toScheduled: number[];
  toStarted: number[];
  activity: number[];
  toCompleted: number[];
  toAnswered: number[];
  whole: number[];
}

/** Where a phase's service calls went: the Temporal server's own timestamps for each update, from every run's history. */
async function whereTimeGoes(stack: Stack, record: PhaseRecord, signal: AbortSignal): Promise<{ stages: Map<Kind, Stages>; jobs: number; matched: number }> {
  const byJob = new Map<string, Map<Kind, CallSample>>();
  for (const sample of record.samples) {
    if (!sample.jobId) continue;
    const calls = byJob.get(sample.jobId) ?? new Map<Kind, CallSample>();
    calls.set(sample.kind, sample);
    byJob.set(sample.jobId, calls);
  }
  const stages = new Map<Kind, Stages>();
  let matched = 0;
  for (const [jobId, calls] of byJob) {
    signal.throwIfAborted();
    const history = await stack.temporal.client.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory();
    const timelines: UpdateTimeline[] = updateTimelines(history, ['createJobRecord', 'applyJobAction']);
    for (const kind of kinds) {
      const name = updateName[kind];
      const call = calls.get(kind);
      const timeline = name ? timelines.find((candidate) => candidate.name === name) : undefined;
      if (!call || !timeline) continue;
      matched += 1;
      const s = stages.get(kind) ?? { toAccepted: [], toScheduled: [], toStarted: [], activity: [], toCompleted: [], toAnswered: [], whole: [] };
      s.toAccepted.push(timeline.accepted - call.startedAt);
      s.toScheduled.push(timeline.activityScheduled - timeline.accepted);
      s.toStarted.push(timeline.activityStarted - timeline.activityScheduled);
      s.activity.push(timeline.activityCompleted - timeline.activityStarted);
      s.toCompleted.push(timeline.completed - timeline.activityCompleted);
      s.toAnswered.push(call.endedAt - timeline.completed);
      s.whole.push(call.ms);
      stages.set(kind, s);
    }
  }
  return { stages, jobs: byJob.size, matched };
}

function printStages(title: string, result: Awaited<ReturnType<typeof whereTimeGoes>>): void {
  out(`${title} (means in ms, so a row adds up; Temporal server timestamps from ${result.jobs} job histories, ${result.matched} calls matched)`);
  out('| Call | start -> update accepted | accepted -> activity scheduled | scheduled -> activity started | activity started -> completed | activity completed -> update completed | update completed -> response read | whole call |');
  out('|---|---|---|---|---|---|---|---|');
  const mean = (values: number[]) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : Number.NaN);
  for (const kind of kinds) {
    const s = result.stages.get(kind);
    if (!s) continue;
    out(`| ${httpLabel[kind]} | ${ms(mean(s.toAccepted))} | ${ms(mean(s.toScheduled))} | ${ms(mean(s.toStarted))} | ${ms(mean(s.activity))} | ${ms(mean(s.toCompleted))} | ${ms(mean(s.toAnswered))} | ${ms(mean(s.whole))} |`);
  }
}

/** p50 and p99 over the calls that send a workflow update (every kind but GET), with `open` ones at their time so far. */
/** The samples of the calls that send a workflow update. */
const updateSamples = (samples: CallSample[]) => samples.filter((sample) => updateKinds.includes(sample.kind));

function updateFigures(record: PhaseRecord, open: CallSample[] = []): { count: number; p50: number; p99: number } {
  const sorted = ascending(updateSamples([...record.samples, ...open]).map((sample) => sample.ms));
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** This process's event-loop delay since the histogram was last reset, in ms. */
const loopDelayFigures = (histogram: ReturnType<typeof monitorEventLoopDelay>) => ({
  p50: histogram.percentile(50) / 1e6,
  p99: histogram.percentile(99) / 1e6,
  max: histogram.max / 1e6,
});
/** A phase's slowest update calls, each with when it started (s after the phase's first call): what sets its p99. */
const slowestUpdatesLine = (record: PhaseRecord, count = 4) =>
  updateSamples(record.samples)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((sample) => `${sample.kind} ${ms(sample.ms)} ms at ${fmt((sample.startedAt - record.startedAt) / 1000, 1)} s`)
    .join(', ');
const loopDelayLine = (figures: ReturnType<typeof loopDelayFigures>) => `${ms(figures.p50)} / ${ms(figures.p99)} / ${ms(figures.max)}`;
const gcLine = (pauses: GcPauses) => `${pauses.count} pauses, ${ms(pauses.totalMs)} ms in all, longest ${ms(pauses.maxMs)} ms`;

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function main(context: BenchContext): Promise<number> {
  const { signal, teardown } = context;
  const loadAtStart = loadavg();
  progress(`N=${N} LOADED_N=${LOADED_N} CONCURRENCY=${CONCURRENCY} WARMUP=${WARMUP} LOAD_DELIVERIES=${LOAD_DELIVERIES} LOAD_INGEST_CLIENTS=${LOAD_INGEST_CLIENTS} SHARED_QUEUE=${SHARED_QUEUE ? 1 : 0}`);
  const stack = await startStack(context, progress, {
    taskQueue,
    interactiveTaskQueue: SHARED_QUEUE ? taskQueue : undefined,
    namespace,
    outboundAllowCidrs: loopbackCidrs,
    temporalNiceness: TEMPORAL_NICENESS,
  });
  const certificate = await generateLocalCertificate();
  const receiver = await startBenchReceiver(certificate);
  teardown.add('receiver', receiver.close);
  let workerQueues: string[];
  if (WORKER_PROCESS) {
    // The child trusts the receiver's certificate as production trusts a private CA: NODE_EXTRA_CA_CERTS.
    const caFile = join(tmpdir(), `bench-jobs-ca-${runTag}.pem`);
    await writeFile(caFile, certificate.cert);
    teardown.add('CA file', () => rm(caFile, { force: true }));
    const env = { NODE_EXTRA_CA_CERTS: caFile, OUTBOUND_ALLOW_CIDRS: loopbackCidrs };
    if (SPLIT_WORKERS) {
      await startBenchWorkerProcess(context, stack, { ...env, WORKER_ROLE: 'bulk' }, { niceness: BULK_NICENESS });
      await startBenchWorkerProcess(context, stack, { ...env, WORKER_ROLE: 'interactive' }, { niceness: INTERACTIVE_NICENESS });
    } else {
      await startBenchWorkerProcess(context, stack, env);
    }
    workerQueues = taskQueuesOfRole('all', stack.settings);
  } else {
    workerQueues = (await startBenchWorker(context, progress, stack, { outboundCa: certificate.cert })).taskQueues;
  }
  progress(`worker polling ${workerQueues.join(' and ')}`);
  // The API as `npm run api` builds it: its own ORM pool (10), its own Temporal client; ingest never rate-limited.
  const { services, api } = await startBenchApi(context, progress, stack, { rateLimit: unlimitedIngest });
  const baselineServer = await startJobsBaseline(services);
  teardown.add('baseline API server', baselineServer.close);
  progress(`baseline API (same routes, job handlers writing directly) at ${baselineServer.url}`);
  const unlimitedIngestEnv = {
    INGEST_RATE_LIMIT_PER_SECOND: String(unlimitedIngest.perSecond),
    INGEST_RATE_LIMIT_BURST: String(unlimitedIngest.burst),
  };
  // The job calls go to an API in a process of its own (as deployed), or to the one in this process.
  const serviceOrigin = API_PROCESS ? (await startBenchApiProcess(context, stack, unlimitedIngestEnv, { niceness: API_NICENESS })).url : api.url;
  if (API_PROCESS) progress(`API (in a process of its own, as npm run api) at ${serviceOrigin}`);
  // Ingest served by a second API instance of its own, or by the one the job calls go to.
  const ingestOrigin = INGEST_API_PROCESS
    ? (await startBenchApiProcess(context, stack, unlimitedIngestEnv, { niceness: INGEST_API_NICENESS })).url
    : serviceOrigin;
  if (INGEST_API_PROCESS) progress(`ingest API (a second instance, in a process of its own) at ${ingestOrigin}`);
  const serviceClient = createJsonClient(serviceOrigin, CONCURRENCY);
  teardown.add('service client', async () => serviceClient.close());
  const baselineClient = createJsonClient(baselineServer.url, CONCURRENCY);
  teardown.add('baseline client', async () => baselineClient.close());

  // One tenant per phase, so that each phase's runs can be counted on their own.
  progress(`creating accounts, apps and ${3 * N + LOADED_N + 3 * WARMUP} DRAFT messages`);
  const measured = await createTenant(stack.workerOrm, 'bench-jobs', N);
  const warm = await createTenant(stack.workerOrm, 'bench-jobs warm-up', WARMUP);
  const loadedTenant = await createTenant(stack.workerOrm, 'bench-jobs loaded', LOADED_N);
  const httpBaseline = await createTenant(stack.workerOrm, 'bench-jobs HTTP baseline', N + WARMUP);
  const directBaseline = await createTenant(stack.workerOrm, 'bench-jobs direct baseline', N + WARMUP);

  // The bulk load's sources: an endpoint at the receiver (events published from a pool of their own, as bench:delivery
  // does) and a direct inbound connection (signed posts to the API, as bench:ingest does).
  const publisherOrm = await connectOrm(stack.settings.databaseUrl);
  teardown.add('publisher ORM', () => publisherOrm.close());
  const webhooks = await subscribeReceiver(publisherOrm, stack.settings.secretsKey, receiver, 'bench-jobs load');
  const publisher = { orm: publisherOrm, temporal: { client: stack.temporal.client, taskQueue }, delivery: stack.settings.delivery, accountId: webhooks.accountId };
  const inbound = await createConnection(
    { em: stack.workerOrm.em.fork(), secrets: createSecretBox(stack.settings.secretsKey), outbound: { allow: [], resolve: systemResolve } },
    webhooks.accountId,
    { provider: 'direct', label: 'bench-jobs load' },
  );

  // --- The Temporal floor on the same server ---------------------------------------------------------------------
  progress(`Temporal floor: ${FLOOR_N} runs, ${FLOOR_CONCURRENCY} in flight`);
  const floor = await measureTemporalFloor({ address: stack.settings.temporalAddress, namespace, units: FLOOR_N, concurrency: FLOOR_CONCURRENCY });
  progress(`Temporal floor: ${fmt(floor.perSecond, 1)} runs/s`);

  // --- Service path ---------------------------------------------------------------------------------------------
  if (WARMUP > 0) {
    const warmed = await runPhase('service warm-up', WARMUP, signal, (index, record) => httpLifecycle(serviceClient, warm, warm.messages[index]!, index, record));
    await waitForRuns('service warm-up', stack, warm.accountId, warmed.completed, 3 * warmed.completed, signal);
  }
  // The bench process's own event loop (the timing client, the API, the load's publisher and receiver): a figure
  // showing how much of a loaded call's time is this process's queueing, not the service's.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const gcPauses = watchGcPauses();
  teardown.add('GC observer', async () => gcPauses.stop());
  const cpuServiceStart = cpuSnapshot();
  const service = await runPhase('service', N, signal, (index, record) => httpLifecycle(serviceClient, measured, measured.messages[index]!, index, record));
  const cpuServiceCalls = cpuSnapshot();
  const idleLoopDelay = loopDelayFigures(loopDelay);
  const idleGc = gcPauses.figures();
  const jobsStarted = new Set(service.samples.filter((sample) => sample.kind === 'create').map((sample) => sample.jobId!)).size;
  const counts = await waitForRuns('service runs', stack, measured.accountId, jobsStarted, 3 * service.completed, signal);
  const cpuServiceSettled = cpuSnapshot();
  const settledAt = now();
  const { rows: eventRows } = await stack.sql.query<{ type: string; n: string }>(
    `select type, count(*) as n from outbound_events where account_id = $1 group by type order by type`,
    [measured.accountId],
  );
  progress('reading the job runs’ histories');
  const serviceStages = await whereTimeGoes(stack, service, signal);

  // --- Baseline: the same HTTP API, job handlers writing to Postgres themselves ---------------------------------
  if (WARMUP > 0) {
    await runPhase('HTTP baseline warm-up', WARMUP, signal, (index, record) =>
      httpLifecycle(baselineClient, httpBaseline, httpBaseline.messages[N + index]!, N + index, record),
    );
  }
  const cpuHttpStart = cpuSnapshot();
  const viaHttp = await runPhase('HTTP baseline', N, signal, (index, record) => httpLifecycle(baselineClient, httpBaseline, httpBaseline.messages[index]!, index, record));
  const cpuHttpEnd = cpuSnapshot();

  // --- Baseline: the domain's database functions, called directly ----------------------------------------------
  if (WARMUP > 0) {
    await runPhase('direct baseline warm-up', WARMUP, signal, (index, record) =>
      directLifecycle(stack.workerOrm, createSecretBox(stack.settings.secretsKey), directBaseline, directBaseline.messages[N + index]!, N + index, record),
    );
  }
  const cpuDirectStart = cpuSnapshot();
  const direct = await runPhase('direct baseline', N, signal, (index, record) =>
    directLifecycle(stack.workerOrm, createSecretBox(stack.settings.secretsKey), directBaseline, directBaseline.messages[index]!, index, record),
  );
  const cpuDirectEnd = cpuSnapshot();

  // --- Service path again, last, while deliveries and ingest load the machine ------------------------------------
  const loadStop = new AbortController();
  const stopLoad = () => loadStop.abort();
  signal.addEventListener('abort', stopLoad, { once: true });
  const webhookRecording = new Recording();
  receiver.recording = webhookRecording;
  const pacing = (rate: number, unit: string) => (rate ? ` at ${rate} ${unit}/s` : ' (closed loop)');
  progress(
    `load: ${LOAD_DELIVERIES} webhook deliveries open at a time${pacing(LOAD_DELIVERY_RATE, 'publishes')}, ` +
      `${LOAD_INGEST_CLIENTS} ingest clients${pacing(LOAD_INGEST_RATE, 'posts')}; ${LOAD_RAMP_S} s before the lifecycles`,
  );
  const cpuLoadStart = cpuSnapshot();
  loopDelay.reset();
  gcPauses.reset();
  const webhookLoad = startWebhookLoad(publisher, webhookRecording, LOAD_DELIVERIES, LOAD_DELIVERY_RATE || undefined);
  // The ingest clients run in a thread of their own: they load the service, not the event loop it shares with them.
  const ingestLoad = driveIngestLoadInThread({
    target: { origin: ingestOrigin, inboundKey: inbound.connection.inboundKey, secret: inbound.signingSecret },
    clients: LOAD_INGEST_CLIENTS,
    ratePerSecond: LOAD_INGEST_RATE || undefined,
    durationMs: 24 * 3600 * 1000,
    runTag,
    phase: 'load',
    signal: loadStop.signal,
    onProgress: (elapsedMs, accepted, other, since) =>
      progress(`load: ${fmt(elapsedMs / 1000, 0)} s, ${accepted} events accepted (${fmt(since / 2, 0)}/s), ${other} other answers; ${webhookRecording.receivedAt.size} webhooks received`),
  });
  const loaded = new PhaseRecord();
  const stopStarting = new AbortController();
  let inFlightAtCap: CallSample[] = [];
  let bulkOpenAtEnd: number;
  try {
    await abortableSleep(LOAD_RAMP_S * 1000, signal);
    const phase = runPhase('service under load', LOADED_N, signal, (index, record) => httpLifecycle(serviceClient, loadedTenant, loadedTenant.messages[index]!, index, record), {
      record: loaded,
      stopStarting: stopStarting.signal,
    });
    // The cap's timer is cleared when the phase ends first: left pending, it kept the process alive up to LOAD_MAX_S
    // after the report.
    const phaseEnded = new AbortController();
    const cap = abortableSleep(Math.max(1, LOAD_MAX_S - LOAD_RAMP_S) * 1000, AbortSignal.any([signal, phaseEnded.signal]));
    const capped = await Promise.race([phase.then(() => false), cap.then(() => true)]);
    phaseEnded.abort();
    signal.throwIfAborted();
    if (capped) {
      // Calls stuck behind a backlog may not end while the load lasts: stop here, and count those still open at
      // their time so far. Their lifecycles end (or fail) in the background, unrecorded, until the teardown.
      stopStarting.abort();
      inFlightAtCap = loaded.close(now());
      phase.catch(() => undefined);
      progress(`service under load: capped at LOAD_MAX_S=${LOAD_MAX_S} s with ${inFlightAtCap.length} calls in flight`);
    }
    bulkOpenAtEnd = (await stack.temporal.client.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`)).count;
  } finally {
    stopLoad();
  }
  const loadedStarted = new Set(loaded.samples.filter((sample) => sample.kind === 'create').map((sample) => sample.jobId)).size + inFlightAtCap.filter((call) => call.kind === 'create').length;
  const webhookFigures = await webhookLoad.stop();
  const ingestResult = await ingestLoad;
  const cpuLoadEnd = cpuSnapshot();
  const loadedLoopDelay = loopDelayFigures(loopDelay);
  loopDelay.disable();
  const loadedGc = gcPauses.figures();
  signal.removeEventListener('abort', stopLoad);
  const ingestAccepted = ingestResult.acceptedTags.length;
  const ingestOthers = [...ingestResult.statuses].filter(([status]) => status !== '202');
  const loadWallS = ingestResult.wallMs / 1000;
  // The bulk backlog the load left is not waited for: it can take minutes to drain, and nothing is measured after it.
  // Each loaded lifecycle has already read its job back ACCEPTED; the histories show where its calls' time went.
  progress('reading the loaded job runs’ histories');
  const loadedStages = await whereTimeGoes(stack, loaded, signal);
  const { rows: ingestRows } = await stack.sql.query<{ n: string }>(
    `select count(*) as n from inbound_events where connection_id = $1 and status = 'PROCESSED'`,
    [inbound.connection.id],
  );
  const ingestProcessed = Number(ingestRows[0]!.n);

  const machine = await machineLines(stack.sql, loadAtStart);

  // --- Report ----------------------------------------------------------------------------------------------------
  const serviceWallS = service.wallSeconds;
  const queues = SHARED_QUEUE ? `one task queue and one worker (SHARED_QUEUE=1)` : `job runs on ${workerQueues[1]} with a worker of their own`;
  out(`bench/jobs  N=${N}  LOADED_N=${LOADED_N}  CONCURRENCY=${CONCURRENCY}  warm-up=${WARMUP} lifecycles per path (not counted)  ${queues}`);
  if (SPLIT_WORKERS) out(`  CPU priority (niceness): bulk worker ${BULK_NICENESS}, interactive worker ${INTERACTIVE_NICENESS}, Temporal dev server ${TEMPORAL_NICENESS}`);
  else if (TEMPORAL_NICENESS !== 0) out(`  CPU priority (niceness): Temporal dev server ${TEMPORAL_NICENESS}`);
  out();
  printPhase('Service (HTTP -> Koa -> Temporal update -> job workflow -> activity -> Postgres)', service, httpLabel, N);
  out(`  job runs                ${counts.jobCompleted} completed of ${counts.jobRuns} started; events stored ${counts.eventsStored}; ${counts.running} running`);
  out(`                          (all closed ${fmt((settledAt - service.endedAt) / 1000, 1)} s after the last call; events stored: ${eventRows.map((row) => `${row.type} ${row.n}`).join(', ') || 'none'})`);
  out();
  printPhase(`Service under load (the same, while ${LOAD_DELIVERIES} webhook deliveries stay open and ${LOAD_INGEST_CLIENTS} clients post signed events)`, loaded, httpLabel, LOADED_N);
  if (inFlightAtCap.length) {
    const open = inFlightAtCap.map((call) => `${httpLabel[call.kind]} ${fmt(call.ms / 1000, 1)} s`).join(', ');
    out(`  capped                  at LOAD_MAX_S=${LOAD_MAX_S} s: ${loadedStarted} of ${LOADED_N} lifecycles started, ${inFlightAtCap.length} calls still waiting (${open}); the p99 below counts them at that time, a lower bound`);
  }
  out(`  load achieved           ${fmt(webhookFigures.received / loadWallS, 1)} deliveries/s (${webhookFigures.received} received of ${webhookFigures.published} published), ${fmt(ingestAccepted / loadWallS, 1)} ingest events accepted/s (${ingestAccepted} of ${ingestResult.sent} posts; other answers: ${ingestOthers.map(([status, n]) => `${status}×${n}`).join(', ') || 'none'}), over ${fmt(loadWallS, 1)} s (${LOAD_RAMP_S} s before the lifecycles, then during them)`);
  out(`  bulk backlog            ${bulkOpenAtEnd} runs open on the bulk queue when the last lifecycle ended; ${ingestProcessed} of ${ingestAccepted} ingested events PROCESSED by then (the rest drain after the run; not waited for)`);
  out();
  const idle = updateFigures(service);
  const underLoad = updateFigures(loaded, inFlightAtCap);
  const idleUpdate = callFigures(service, 'update');
  const loadedUpdate = callFigures(loaded, 'update');
  const ratioLoadedToIdle = underLoad.p99 / idle.p99;
  out('Idle and loaded: the calls that send a workflow update (create, update, execute, recording, select, accept)');
  out('| Phase | Calls | p50 ms | p99 ms | PUT /job/update p50 ms | PUT /job/update p99 ms | calls/s (all types) |');
  out('|---|---|---|---|---|---|---|');
  const callsPerS = (record: PhaseRecord) => record.samples.length / record.wallSeconds;
  out(`| idle | ${idle.count} | ${ms(idle.p50)} | ${ms(idle.p99)} | ${ms(idleUpdate.p50)} | ${ms(idleUpdate.p99)} | ${fmt(callsPerS(service), 1)} |`);
  out(`| loaded | ${underLoad.count} | ${ms(underLoad.p50)} | ${ms(underLoad.p99)} | ${ms(loadedUpdate.p50)} | ${ms(loadedUpdate.p99)} | ${fmt(callsPerS(loaded), 1)} |`);
  out(`  p99 loaded / idle       ${fmt(ratioLoadedToIdle, 2)}   (goal: <= 2)`);
  out(`  p50 loaded / idle       ${fmt(underLoad.p50 / idle.p50, 2)}`);
  out(`  slowest, idle           ${slowestUpdatesLine(service)} (of ${fmt(service.wallSeconds, 1)} s)`);
  out(`  slowest, loaded         ${slowestUpdatesLine(loaded)} (of ${fmt(loaded.wallSeconds, 1)} s)`);
  out(`  bench event loop delay  p50 / p99 / max ms: idle ${loopDelayLine(idleLoopDelay)}, loaded ${loopDelayLine(loadedLoopDelay)} (this process's: the timing client${API_PROCESS ? '' : `, the API the job calls go to${INGEST_API_PROCESS ? '' : ' and the ingest posts'}`}, the webhook load's publisher and receiver)`);
  out(`  bench GC                idle ${gcLine(idleGc)}; loaded ${gcLine(loadedGc)} (this process's main thread)`);
  out();
  printPhase('Baseline over HTTP (the same API: Koa, auth, zod, ownership reads; job handlers call createJobRecord/applyJobAction on an ORM fork, no Temporal)', viaHttp, httpLabel, N);
  out();
  printPhase('Baseline, direct calls (createJobRecord / applyJobAction / getRecordingJob on an ORM fork of the worker pool; no HTTP)', direct, directLabel, N);
  out();
  out('Ratio of p50s, per call type');
  out('| Call | service p50 ms | HTTP baseline p50 ms | service / HTTP baseline | direct p50 ms | service / direct |');
  out('|---|---|---|---|---|---|');
  for (const kind of kinds) {
    const s = callFigures(service, kind);
    const h = callFigures(viaHttp, kind);
    const d = callFigures(direct, kind);
    out(`| ${httpLabel[kind]} | ${ms(s.p50)} | ${ms(h.p50)} | ${fmt(s.p50 / h.p50, 1)}x | ${ms(d.p50)} | ${fmt(s.p50 / d.p50, 1)}x |`);
  }
  out(`| calls per second (all types) | ${fmt(callsPerS(service), 1)} | ${fmt(callsPerS(viaHttp), 1)} | ${fmt(callsPerS(service) / callsPerS(viaHttp), 3)} | ${fmt(callsPerS(direct), 1)} | ${fmt(callsPerS(service) / callsPerS(direct), 3)} |`);
  out();
  out(`Temporal floor (one workflow, one activity; its own worker and queue on the same server; ${floor.units} runs, ${floor.concurrency} in flight)`);
  out(`  ${fmt(floor.perSecond, 1)} runs/s, p50 ${ms(floor.p50)} ms, p99 ${ms(floor.p99)} ms; service calls/s / floor runs/s = ${fmt(callsPerS(service) / floor.perSecond, 3)}`);
  out('  (a service call is one workflow update with one activity: about the floor\'s unit of work, minus the run start)');
  out();
  printStages('Service call, where the time goes, idle', serviceStages);
  out();
  printStages('Service call, where the time goes, under load', loadedStages);
  out('  start -> accepted: HTTP, auth and ownership reads, the gRPC call, a workflow task to the worker (for create: the start');
  out('    of the run first), the validator and the handler up to the activity; accepted -> scheduled: that task completing;');
  out('    scheduled -> started: the activity is handed to this worker eagerly with that completion; activity: the');
  out('    createJobRecord/applyJobAction transaction in the worker; activity completed -> update completed: a second workflow');
  out('    task; update completed -> response read: the answer back through the API and HTTP');
  out();
  cpuLines('CPU, service (calls, then until every run closed)', cpuServiceStart, cpuServiceSettled, (settledAt - service.startedAt) / 1000, N);
  cpuLines('CPU, service, during the calls only', cpuServiceStart, cpuServiceCalls, serviceWallS, N);
  cpuLines('CPU, loaded phase (load ramp and lifecycles, per loaded lifecycle)', cpuLoadStart, cpuLoadEnd, loadWallS, LOADED_N);
  cpuLines('CPU, HTTP baseline', cpuHttpStart, cpuHttpEnd, viaHttp.wallSeconds, N);
  cpuLines('CPU, direct baseline', cpuDirectStart, cpuDirectEnd, direct.wallSeconds, N);
  if (process.env.DATABASE_URL) out("  (PostgreSQL at DATABASE_URL is not this process tree's, so it is not counted)");
  out();
  for (const line of machine) out(line);

  const unexpected = service.unexpectedCount + loaded.unexpectedCount + viaHttp.unexpectedCount + direct.unexpectedCount;
  const ok =
    unexpected === 0 &&
    service.completed === N &&
    loaded.completed + inFlightAtCap.length === loadedStarted &&
    viaHttp.completed === N &&
    direct.completed === N &&
    counts.jobCompleted === N &&
    counts.jobRuns === N &&
    counts.eventsStored === 3 * N &&
    ingestOthers.length === 0 &&
    webhookFigures.failures === 0;
  if (!ok) progress(`FAILED: ${unexpected} unexpected answers, lifecycles or runs that did not complete, or load that failed (see above)`);
  out(
    JSON.stringify({
      bench: 'jobs',
      unit: 'ms',
      sharedQueue: SHARED_QUEUE,
      workerProcess: WORKER_PROCESS,
      splitWorkers: SPLIT_WORKERS,
      bulkNiceness: SPLIT_WORKERS ? BULK_NICENESS : 0,
      interactiveNiceness: SPLIT_WORKERS ? INTERACTIVE_NICENESS : 0,
      temporalNiceness: TEMPORAL_NICENESS,
      apiProcess: API_PROCESS,
      apiNiceness: API_PROCESS ? API_NICENESS : 0,
      ingestApiProcess: INGEST_API_PROCESS,
      ingestApiNiceness: INGEST_API_PROCESS ? INGEST_API_NICENESS : 0,
      // The nicenesses above order PostgreSQL's backends too only when this is false (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md); null: unknown.
      kernelSessionGroups: kernelSessionGroups() ?? null,
      idleP99: idle.p99,
      loadedP99: underLoad.p99,
      ratioLoadedToIdle,
      idleP50: idle.p50,
      loadedP50: underLoad.p50,
      serviceCallsPerSecond: callsPerS(service),
      loadedCallsPerSecond: callsPerS(loaded),
      baselineCallsPerSecond: callsPerS(viaHttp),
      ratioToBaseline: callsPerS(service) / callsPerS(viaHttp),
      floor: floor.perSecond,
      ratioToFloor: callsPerS(service) / floor.perSecond,
      loadDeliveriesPerSecond: webhookFigures.received / loadWallS,
      loadIngestRate: LOAD_INGEST_RATE || null,
      loadDeliveryRate: LOAD_DELIVERY_RATE || null,
      loadIngestAcceptedPerSecond: ingestAccepted / loadWallS,
      loadedCallsInFlightAtCap: inFlightAtCap.length,
      idleLoopDelayP99: idleLoopDelay.p99,
      loadedLoopDelayP99: loadedLoopDelay.p99,
      loadedLoopDelayMax: loadedLoopDelay.max,
      loadedGcMaxMs: loadedGc.maxMs,
      unexpectedStatuses: unexpected,
    }),
  );
  return ok ? 0 : 1;
}

runBench(progress, main);

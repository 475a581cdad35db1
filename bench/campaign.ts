/**
 * `npm run bench:campaign`: a campaign send (POST /notification/schedule → the run `send:<notificationId>`) to one
 * segment of DEVICES (1,000,000) devices, through the real API (in this process) and a real worker process
 * (`src/main/worker.ts`, as production runs it, so its peak memory is its own). Two sends, one after the other:
 *
 * 1. with the `log` provider, DEVICES devices: playTime → first push (the first push_sends row with sent_at),
 *    playTime → last push (max sent_at), pushes/s over playTime → last push;
 *    Then, on the same worker, a throttled send (THROTTLED_DEVICES at RATE_PER_MINUTE: the rate measured from the
 *    rows' sent_at against the requested one) and a send in local time to LOCAL_DEVICES devices spread over 24 zones
 *    (each group's devices, its time and its last push; the run's history).
 * 2. with PUSH_PROVIDER=fcm against a local fake FCM in a process of its own (src/dev/fake-fcm-process.ts: HTTPS,
 *    HTTP/1.1 keep-alive, answering at once), FCM_DEVICES devices of a second app: pushes/s at the fake (its first →
 *    last accept), with FCM_MAX_PER_MINUTE at its maximum so the pace never binds.
 *
 * Baselines, in the same run: a bare batched INSERT of the same push_sends rows (same columns, 1000 a statement from
 * one plain client, into a copy of the table with its indexes and fillfactor) → insertPerSecond; a plain node https
 * client (keep-alive, as many sockets and requests in flight as the service has: FCM_CONCURRENCY for each of the
 * send's shards side by side) posting the same FCM requests (the same bodies,
 * built by the provider's own buildFcmMessage) to the same fake → fcmBaselinePerSecond; and the Temporal floor. Also
 * the worker's peak RSS (VmHWM), the largest history among the runs the sends started, history events per 10,000
 * devices, lost pushes (devices of the snapshot without a sent push) and duplicates (from the DB, and for FCM from
 * the fake's count of tokens accepted more than once), and CPU seconds by process for each send.
 *
 * Figures go to stdout, progress to stderr; the last stdout line is one JSON object of the figures. Exits 1 when a
 * push was lost or duplicated.
 *
 * Environment (all optional): DEVICES (1000000), FCM_DEVICES (200000; 0 skips the FCM send and its baseline),
 * FCM_CONCURRENCY (100, the service's default), PLAY_DELAY_MS (5000: playTime this far after the schedule call),
 * SEND_TIMEOUT_S (1800), FLOOR_UNITS (200; 0 skips the floor), THROTTLED_DEVICES (20000; 0 skips the throttled send),
 * RATE_PER_MINUTE (its throttle, 60000), LOCAL_DEVICES (DEVICES; 0 skips the send in local time over 24 zones), WORKER_NODE_OPTIONS (NODE_OPTIONS for the worker
 * processes, e.g. --max-old-space-size=256), PUSH_SENDS_FILLFACTOR (an experiment: push_sends' fillfactor in the scratch
 * database instead of the migrations' 60), DATABASE_URL (a server to create a scratch database
 * on; embedded PostgreSQL otherwise), LOG_LEVEL for the service's own logs on stderr (warn).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { sendLanes } from '../src/domain/campaigns/begin-campaign-send.ts';
import type { FakeFcmStats } from '../src/dev/fake-fcm.ts';
import { buildFcmMessage, fcmSendUrl } from '../src/outbound/push/fcm-message.ts';
import type { PushNotification, PushPlatform } from '../src/outbound/push/push-provider.ts';
import { generateLocalCertificate } from '../src/dev/local-certificate.ts';
import { writeServiceAccount } from '../test/support/fcm.ts';
import { sampleMessage } from '../test/support/samples.ts';
import { positiveInt } from './support/env.ts';
import { createJsonClient, type JsonClient } from './support/json-client.ts';
import { machineLines } from './support/machine.ts';
import { processMemoryMiB } from './support/memory.ts';
import { cpuSpent, readCpu } from './support/process-cpu.ts';
import { seedDevices } from './support/seed-devices.ts';
import { runBench, startBenchApi, startBenchWorkerProcess, startStack, type BenchContext, type Stack } from './support/stack.ts';
import { fmt, runBounded } from './support/stats.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';

const DEVICES = positiveInt('DEVICES', 1_000_000);
const FCM_DEVICES = positiveInt('FCM_DEVICES', 200_000, 0);
const FCM_CONCURRENCY = positiveInt('FCM_CONCURRENCY', 100);
const PLAY_DELAY_MS = positiveInt('PLAY_DELAY_MS', 5000);
const SEND_TIMEOUT_S = positiveInt('SEND_TIMEOUT_S', 1800);
const FLOOR_UNITS = positiveInt('FLOOR_UNITS', 200, 0);
const THROTTLED_DEVICES = positiveInt('THROTTLED_DEVICES', 20_000, 0);
const RATE_PER_MINUTE = positiveInt('RATE_PER_MINUTE', 60_000, 100);
const LOCAL_DEVICES = positiveInt('LOCAL_DEVICES', DEVICES, 0);
/** The 24 whole-hour offsets from UTC−11:00 to UTC+12:00, as fixed-offset zones (Etc/GMT-h is UTC+h). */
const localZones = Array.from({ length: 24 }, (_, index) => index - 11).map((hours) => (hours === 0 ? 'Etc/GMT' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`));
/**
 * The local-time send's playTime: 11 h 5 min ago, so that every group's time (playTime − its offset, from 23 h 5 min
 * ago to 5 min ago) has passed and none is past the message's expiry (1,440 minutes): every group goes at once, which
 * is what a bench on one machine can wait for; timers that fire hours apart are the workflow tests'.
 */
const localPlayTimeOffsetMs = -(11 * 3_600_000 + 5 * 60_000);
/**
 * An experiment, not the product's setting: push_sends' fillfactor in the scratch database (the migrations set 30), to
 * see what another would do. Unset, the table is as migrated.
 */
const PUSH_SENDS_FILLFACTOR = positiveInt('PUSH_SENDS_FILLFACTOR', 0, 0);
/** NODE_OPTIONS for the worker processes (e.g. --max-old-space-size=256), to see how their memory responds. */
const WORKER_NODE_OPTIONS = process.env.WORKER_NODE_OPTIONS ?? '';
const workerEnv = WORKER_NODE_OPTIONS ? { NODE_OPTIONS: WORKER_NODE_OPTIONS } : {};
/** The configuration's maximum (src/config.ts): the pace never binds. */
const FCM_MAX_PER_MINUTE = 100_000_000;

const taskQueue = `bench-campaign-${randomBytes(4).toString('hex')}`;
const progress = (message: string) => process.stderr.write(`[bench:campaign] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

interface Tenant {
  accountId: string;
  apiKey: string;
}

interface FakeFcmProcess {
  baseUrl: string;
  tokenUri: string;
  pid: number;
  stats(): Promise<FakeFcmStats>;
  reset(): Promise<void>;
}

/** What one send did, from the database, the Temporal histories and /proc. */
interface SendFigures {
  notificationId: string;
  state: string;
  audience: number;
  segmentDevices: number;
  sent: number;
  notSent: Record<string, number>;
  lost: number;
  dbDuplicates: number;
  /** playTime → the run's snapshot activity started / finished (the snapshot INSERT, the shard cut, the event). */
  beginStartedMs: number;
  beginDoneMs: number;
  /** playTime → campaigns.started_at, stamped just after the snapshot INSERT returned. */
  snapshotInsertedMs: number;
  firstPushMs: number;
  lastPushMs: number;
  shards: number;
  /** Start → completion of each shard activity (ms), first started first. */
  shardMs: number[];
  runs: Array<{ workflowId: string; type: string; events: number }>;
  maxHistoryEvents: number;
  sendRunEvents: number;
  workerPeakMiB: number;
  workerIdleMiB: number;
  /** push_sends row updates during the send, and how many were HOT (no index entry written). */
  updates: number;
  hotUpdates: number;
  cpu: Array<[string, number]>;
  apiSend: unknown;
}

type History = Awaited<ReturnType<ReturnType<Stack['temporal']['client']['workflow']['getHandle']>['fetchHistory']>>;
type Timestamp = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;
const epochMs = (ts: Timestamp): number => {
  if (!ts) return Number.NaN;
  const whole = ts.seconds == null ? 0 : typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  return whole * 1000 + (ts.nanos ?? 0) / 1e6;
};

/** Each activity of a history by type: scheduled, started and completed times (epoch ms), in schedule order. */
function activityTimes(history: History): Array<{ type: string; scheduled: number; started: number; completed: number }> {
  const byScheduledId = new Map<string, { type: string; scheduled: number; started: number; completed: number }>();
  for (const event of history.events ?? []) {
    const at = epochMs(event.eventTime);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) byScheduledId.set(String(event.eventId), { type: scheduled.activityType?.name ?? '?', scheduled: at, started: Number.NaN, completed: Number.NaN });
    const started = event.activityTaskStartedEventAttributes;
    if (started) byScheduledId.get(String(started.scheduledEventId))!.started = at;
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) byScheduledId.get(String(completed.scheduledEventId))!.completed = at;
  }
  return [...byScheduledId.values()];
}

/** The fake FCM as its own process; its first stdout line says where it listens. Stopped with SIGTERM at teardown. */
async function startFakeFcmProcess(context: BenchContext, tls: { certFile: string; keyFile: string; cert: string }): Promise<FakeFcmProcess> {
  const child: ChildProcess = spawn(process.execPath, ['src/dev/fake-fcm-process.ts', '--cert-file', tls.certFile, '--key-file', tls.keyFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  context.teardown.add('fake FCM process', async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`the fake FCM exited with ${code}`)));
  });
  child.stdout!.resume();
  const { baseUrl, tokenUri } = JSON.parse(line) as { baseUrl: string; tokenUri: string };
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: tls.cert });
  const control = (method: string, path: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(`${baseUrl}${path}`, { method, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.once('end', () => resolve(body));
      });
      req.once('error', reject);
      req.end();
    });
  return {
    baseUrl,
    tokenUri,
    pid: child.pid!,
    stats: async () => JSON.parse(await control('GET', '/_stats')) as FakeFcmStats,
    reset: async () => void (await control('POST', '/_reset')),
  };
}

const ok = async (client: JsonClient, tenant: Tenant, method: string, path: string, body?: unknown, expected = 200) => {
  const response = await client.call(method, path, { token: tenant.apiKey, body });
  if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as Record<string, unknown>;
};

/** Runs one campaign send through the API and the worker process `worker`, and reads what it did. */
async function runSend(
  context: BenchContext,
  stack: Stack,
  client: JsonClient,
  tenant: Tenant,
  options: {
    label: string;
    appId: string;
    segmentId: string;
    devices: number;
    worker: ChildProcess;
    named: Map<number, string>;
    databaseName: string;
    /** More of the schedule call's body (a throttle, local time). */
    schedule?: Record<string, unknown>;
    /** playTime this far from the schedule call (PLAY_DELAY_MS unless given). */
    playTimeOffsetMs?: number;
  },
): Promise<SendFigures & { playTime: number }> {
  const { sql } = stack;
  const { label, worker } = options;
  const message = await ok(client, tenant, 'POST', '/notification/create', { ...sampleMessage(options.appId, options.segmentId), type: 'PUSH', title: `bench ${label}` }, 201);
  const notificationId = message.id as string;
  const workerIdleMiB = (await processMemoryMiB(worker.pid!)).peakMiB;
  const phaseStart = new Date(Date.now() - 1000);
  const updateCounts = async () =>
    (await sql.query<{ upd: string; hot: string }>(`select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'push_sends'`)).rows[0]!;
  const updatesBefore = await updateCounts();
  const cpuBefore = readCpu(options.named, options.databaseName);
  const playTime = Date.now() + (options.playTimeOffsetMs ?? PLAY_DELAY_MS);
  await ok(client, tenant, 'POST', `/notification/schedule?id=${notificationId}&appId=${options.appId}`, { playTime, ...options.schedule });
  progress(`${label}: scheduled message ${notificationId} for ${new Date(playTime).toISOString()} (${options.devices} devices)`);

  let peak = workerIdleMiB;
  const deadline = Date.now() + SEND_TIMEOUT_S * 1000;
  let lastProgress = 0;
  let state: string;
  for (;;) {
    context.signal.throwIfAborted();
    peak = Math.max(peak, (await processMemoryMiB(worker.pid!)).peakMiB);
    const { rows } = await sql.query<{ state: string }>('select state from campaigns where notification_id = $1', [notificationId]);
    state = rows[0]?.state ?? 'SCHEDULED';
    if (!['SCHEDULED', 'SENDING'].includes(state)) break;
    if (Date.now() > deadline) throw new Error(`${label}: the send is still ${state} after ${SEND_TIMEOUT_S} s`);
    if (Date.now() - lastProgress >= 10_000 && state === 'SENDING') {
      lastProgress = Date.now();
      const { rows: counted } = await sql.query<{ sent: string; rows: string }>(
        `select count(*) filter (where status = 'sent') as sent, count(*) as rows from push_sends where notification_id = $1 and source = 'campaign'`,
        [notificationId],
      );
      progress(
        `${label}: ${state}, ${counted[0]!.sent} of ${counted[0]!.rows} pushes sent, ${fmt((Date.now() - playTime) / 1000, 0)} s after playTime; worker peak ${fmt(peak, 0)} MiB`,
      );
    }
    await sleep(500);
  }
  peak = Math.max(peak, (await processMemoryMiB(worker.pid!)).peakMiB);
  const cpuAfter = readCpu(options.named, options.databaseName);
  progress(`${label}: the send ended ${state}; reading its figures`);
  await sleep(1500); // the server publishes a backend's table counters about once a second
  const updatesAfter = await updateCounts();

  const { rows: statuses } = await sql.query<{ status: string; n: string; first: Date | null; last: Date | null }>(
    `select status, count(*) as n, min(sent_at) as first, max(sent_at) as last from push_sends where notification_id = $1 and source = 'campaign' group by status`,
    [notificationId],
  );
  const count = (status: string) => Number(statuses.find((row) => row.status === status)?.n ?? 0);
  const sentRow = statuses.find((row) => row.status === 'sent');
  const audience = statuses.reduce((sum, row) => sum + Number(row.n), 0);
  const { rows: duplicated } = await sql.query<{ n: string }>(
    `select count(*) as n from (select device_id from push_sends where notification_id = $1 and status = 'sent' group by device_id having count(*) > 1) twice`,
    [notificationId],
  );
  const { rows: segment } = await sql.query<{ n: string }>(`select count(*) as n from devices where app_id = $1 and subscribed and deleted_at is null`, [options.appId]);
  const { rows: campaign } = await sql.query<{ started_at: Date }>('select started_at from campaigns where notification_id = $1', [notificationId]);
  const segmentDevices = Number(segment[0]!.n);

  // The runs started since this send was scheduled: the send's own, and any it started.
  const runs: SendFigures['runs'] = [];
  for await (const info of stack.temporal.client.workflow.list({ query: `StartTime >= "${phaseStart.toISOString()}"` })) {
    runs.push({ workflowId: info.workflowId, type: info.type, events: info.historyLength });
  }
  const sendRun = await stack.temporal.client.workflow.getHandle(`send:${notificationId}`).fetchHistory();
  const sendRunEvents = sendRun.events?.length ?? 0;
  const own = runs.find((run) => run.workflowId === `send:${notificationId}`);
  if (own) own.events = sendRunEvents;
  else runs.push({ workflowId: `send:${notificationId}`, type: 'campaignSend', events: sendRunEvents });
  const activities = activityTimes(sendRun);
  const begin = activities.find((activity) => activity.type === 'beginCampaignSend');
  const shards = activities.filter((activity) => activity.type === 'sendCampaignShard').sort((a, b) => a.started - b.started);
  const apiSend = (await ok(client, tenant, 'GET', `/notification/get?id=${notificationId}`)).send;

  const notSent = Object.fromEntries(statuses.filter((row) => row.status !== 'sent').map((row) => [row.status, Number(row.n)]));
  return {
    playTime,
    notificationId,
    state,
    audience,
    segmentDevices,
    sent: count('sent'),
    notSent,
    // A device seeded into the segment without a sent push: left out of the snapshot, or in it and not sent.
    lost: Math.max(0, options.devices - audience) + (audience - count('sent')),
    dbDuplicates: Number(duplicated[0]!.n),
    beginStartedMs: (begin?.started ?? Number.NaN) - playTime,
    beginDoneMs: (begin?.completed ?? Number.NaN) - playTime,
    snapshotInsertedMs: (campaign[0]?.started_at?.getTime() ?? Number.NaN) - playTime,
    firstPushMs: (sentRow?.first?.getTime() ?? Number.NaN) - playTime,
    lastPushMs: (sentRow?.last?.getTime() ?? Number.NaN) - playTime,
    shards: shards.length,
    shardMs: shards.map((shard) => shard.completed - shard.started),
    runs,
    maxHistoryEvents: Math.max(...runs.map((run) => run.events)),
    sendRunEvents,
    workerPeakMiB: peak,
    workerIdleMiB,
    updates: Number(updatesAfter.upd) - Number(updatesBefore.upd),
    hotUpdates: Number(updatesAfter.hot) - Number(updatesBefore.hot),
    cpu: cpuBefore && cpuAfter ? cpuSpent(cpuBefore, cpuAfter) : [],
    apiSend,
  };
}

/**
 * A local-time send's groups: each one's UTC offset, devices and time, and its last push after the send's start (its
 * zone is one fixed offset, so a device's zone names its group).
 */
async function localGroupFigures(stack: Stack, notificationId: string): Promise<Array<{ offset: number; devices: number; sendAtMs: number; lastPushAfterStartS: number }>> {
  const { rows } = await stack.sql.query<{ offset: number; devices: string; send_at: Date; last: Date | null; started_at: Date }>(
    `select g.utc_offset_minutes as offset, g.devices, g.send_at, p.last, c.started_at
       from (select utc_offset_minutes, send_at, sum(size) as devices from campaign_shards where notification_id = $1 group by 1, 2) g
       join campaigns c on c.notification_id = $1
       left join lateral (
         select max(ps.sent_at) as last from push_sends ps join devices d on d.id = ps.device_id
          where ps.notification_id = $1 and ps.source = 'campaign' and ps.status = 'sent'
            and d.timezone = case when g.utc_offset_minutes = 0 then 'Etc/GMT'
                                  else 'Etc/GMT' || case when g.utc_offset_minutes > 0 then '-' else '+' end || abs(g.utc_offset_minutes / 60) end) p on true
      order by g.send_at`,
    [notificationId],
  );
  return rows.map((row) => ({
    offset: row.offset,
    devices: Number(row.devices),
    sendAtMs: row.send_at.getTime(),
    lastPushAfterStartS: row.last ? (row.last.getTime() - row.started_at.getTime()) / 1000 : Number.NaN,
  }));
}

/** Stops a worker process (SIGTERM, as a deployment does) and waits for it to exit. */
async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
}

/** push_sends' fillfactor (100 when the table sets none), for its copies: a copy made with LIKE does not take it. */
async function fillfactorOf(stack: Stack): Promise<number> {
  const { rows } = await stack.sql.query<{ options: string[] | null }>(`select reloptions as options from pg_class where relname = 'push_sends'`);
  const option = rows[0]?.options?.find((entry) => entry.startsWith('fillfactor='));
  return option ? Number(option.slice('fillfactor='.length)) : 100;
}

/**
 * The insert baseline: the send's rows as they end (status sent, sent_at set), the same columns, into a copy of
 * push_sends with its indexes and fillfactor, 1000 rows a statement (INSERT … SELECT FROM unnest) from one plain
 * client. The device ids are read first, outside the clock. The copy is dropped after.
 */
async function insertBaseline(stack: Stack, accountId: string, notificationId: string): Promise<{ rows: number; ms: number; perSecond: number }> {
  const { sql } = stack;
  await sql.query('drop table if exists push_sends_baseline');
  await sql.query(`create table push_sends_baseline (like push_sends including all) with (fillfactor = ${await fillfactorOf(stack)})`);
  const { rows } = await sql.query<{ device_id: string }>(`select device_id from push_sends where notification_id = $1 and source = 'campaign' order by device_id`, [notificationId]);
  const ids = rows.map((row) => row.device_id);
  const started = performance.now();
  for (let offset = 0; offset < ids.length; offset += 1000) {
    await sql.query(
      `insert into push_sends_baseline (id, account_id, source, device_id, notification_id, status, sent_at, created_at)
       select gen_random_uuid(), $1, 'campaign', d, $2, 'sent', now(), now() from unnest($3::uuid[]) as d`,
      [accountId, notificationId, ids.slice(offset, offset + 1000)],
    );
  }
  const ms = performance.now() - started;
  await sql.query('drop table push_sends_baseline');
  return { rows: ids.length, ms, perSecond: ids.length / (ms / 1000) };
}

/**
 * The snapshot's own floor: the same INSERT … SELECT from devices as beginCampaignSend's, alone, in one statement,
 * into a fresh copy of push_sends (its indexes and fillfactor). Not a goal's baseline: it says how much of
 * playTime → first push the snapshot statement itself takes.
 */
async function snapshotBaseline(stack: Stack, accountId: string, appId: string, notificationId: string): Promise<{ rows: number; ms: number }> {
  const { sql } = stack;
  await sql.query('drop table if exists push_sends_snapshot');
  await sql.query(`create table push_sends_snapshot (like push_sends including all) with (fillfactor = ${await fillfactorOf(stack)})`);
  const started = performance.now();
  const result = await sql.query(
    `insert into push_sends_snapshot (id, account_id, source, device_id, notification_id, status, created_at)
     select gen_random_uuid(), $1, 'campaign', d.id, $2, 'pending', now() from devices d where d.app_id = $3 and d.subscribed and d.deleted_at is null
     on conflict (notification_id, device_id) where source = 'campaign' do nothing`,
    [accountId, notificationId, appId],
  );
  const ms = performance.now() - started;
  await sql.query('drop table push_sends_snapshot');
  return { rows: result.rowCount ?? 0, ms };
}

/** Requests the service has in flight: a wave of FCM_CONCURRENCY in each shard it sends side by side. */
const fcmInFlight = FCM_CONCURRENCY * sendLanes;

/**
 * The FCM baseline: a plain node https client, keep-alive, `fcmInFlight` sockets and requests in flight, posting
 * the send's own requests (each device's token and platform, the message's fields, a send id; the body built by the
 * provider's buildFcmMessage as it builds it, at send time) with a bearer token from the fake. Timed at the fake.
 */
async function fcmBaseline(
  stack: Stack,
  fake: FakeFcmProcess,
  ca: string,
  notificationId: string,
  notification: PushNotification,
): Promise<{ requests: number; perSecond: number; wallMs: number; stats: FakeFcmStats }> {
  const { rows } = await stack.sql.query<{ send_id: string; token: string; platform: PushPlatform }>(
    `select s.id as send_id, d.token, d.platform from push_sends s join devices d on d.id = s.device_id
      where s.notification_id = $1 and s.source = 'campaign' order by s.device_id`,
    [notificationId],
  );
  const agent = new Agent({ keepAlive: true, maxSockets: fcmInFlight, maxFreeSockets: fcmInFlight, ca });
  const post = (url: string, headers: Record<string, string>, body: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end(body);
    });
  // The fake grants any well-formed RS256 JWT when it was started without a public key.
  const jwt = [Buffer.from('{"alg":"RS256","typ":"JWT"}').toString('base64url'), Buffer.from('{}').toString('base64url'), 'c2ln'].join('.');
  const grant = await post(fake.tokenUri, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }).toString());
  const accessToken = (JSON.parse(grant.body) as { access_token: string }).access_token;
  const url = fcmSendUrl(fake.baseUrl, 'richpush-test');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, 'user-agent': 'bench-baseline/1' };
  await fake.reset();
  const started = performance.now();
  let failures = 0;
  await runBounded(rows.length, fcmInFlight, async (index) => {
    const row = rows[index]!;
    const body = JSON.stringify({ message: buildFcmMessage({ sendId: row.send_id, token: row.token, platform: row.platform, notification, data: {} }, Date.now()) });
    const answer = await post(url, headers, body);
    if (answer.status !== 200) failures += 1;
  });
  const wallMs = performance.now() - started;
  agent.destroy();
  if (failures) throw new Error(`the FCM baseline got ${failures} answers other than 200`);
  const stats = await fake.stats();
  const atFakeMs = (stats.lastAcceptAt ?? Number.NaN) - (stats.firstAcceptAt ?? Number.NaN);
  return { requests: rows.length, perSecond: stats.accepted / (atFakeMs / 1000), wallMs, stats };
}

runBench(progress, async (context) => {
  const loadAtStart = loadavg();
  const stack = await startStack(context, progress, { taskQueue });
  const { sql } = stack;
  const databaseName = new URL(stack.settings.databaseUrl).pathname.slice(1);
  const { rows: settingsRows } = await sql.query<{ name: string; setting: string }>(
    `select name, setting from pg_settings where name in ('shared_buffers', 'synchronous_commit', 'autovacuum', 'max_wal_size', 'fsync')`,
  );
  if (PUSH_SENDS_FILLFACTOR) await sql.query(`alter table push_sends set (fillfactor = ${PUSH_SENDS_FILLFACTOR})`);
  const pgSettings = `${settingsRows.map((row) => `${row.name}=${row.setting}`).join(', ')}; push_sends fillfactor=${await fillfactorOf(stack)}${PUSH_SENDS_FILLFACTOR ? ' (PUSH_SENDS_FILLFACTOR, not the migrations’ 60)' : ''}`;

  const certificate = await generateLocalCertificate();
  const tlsDir = await mkdtemp(join(tmpdir(), 'bench-campaign-tls-'));
  context.teardown.add('certificate files', () => rm(tlsDir, { recursive: true, force: true }));
  const certFile = join(tlsDir, 'cert.pem');
  const keyFile = join(tlsDir, 'key.pem');
  await writeFile(certFile, certificate.cert);
  await writeFile(keyFile, certificate.key, { mode: 0o600 });

  const { api } = await startBenchApi(context, progress, stack);
  const client = createJsonClient(api.url, 4);
  context.teardown.add('API client', async () => client.close());
  const { account, apiKey } = await createAccount(stack.workerOrm.em.fork(), { name: 'bench campaign' });
  const tenant: Tenant = { accountId: account.id, apiKey };
  const newApp = async (name: string) => (await ok(client, tenant, 'POST', `/accounts/${account.id}/apps`, { name }, 201)).appId as string;
  const newSegment = async (appId: string) => (await ok(client, tenant, 'POST', '/filter/create', { appId, name: 'everyone', rules: { all: [] } }, 201)).id as string;

  const logApp = await newApp('bench campaign (log)');
  progress(`seeding ${DEVICES} devices`);
  await seedDevices(stack.sql, progress, account.id, logApp, DEVICES, 'log app');
  const logSegment = await newSegment(logApp);
  let fcmApp: string | undefined;
  let fcmSegment: string | undefined;
  if (FCM_DEVICES > 0) {
    fcmApp = await newApp('bench campaign (fcm)');
    progress(`seeding ${FCM_DEVICES} devices of a second app for the FCM send`);
    await seedDevices(stack.sql, progress, account.id, fcmApp, FCM_DEVICES, 'fcm app');
    fcmSegment = await newSegment(fcmApp);
  }
  const throttledApp = THROTTLED_DEVICES > 0 ? await newApp('bench campaign (throttled)') : undefined;
  if (throttledApp) await seedDevices(stack.sql, progress, account.id, throttledApp, THROTTLED_DEVICES, 'throttled app');
  const localApp = LOCAL_DEVICES > 0 ? await newApp('bench campaign (local time)') : undefined;
  if (localApp) await seedDevices(stack.sql, progress, account.id, localApp, LOCAL_DEVICES, 'local-time app', localZones);
  await sql.query('checkpoint');

  // 1. The log provider.
  progress('starting the worker (PUSH_PROVIDER=log)');
  const logWorker = await startBenchWorkerProcess(context, stack, { PUSH_PROVIDER: 'log', ...workerEnv });
  const logNamed = new Map([[logWorker.pid!, 'worker process']]);
  const log = await runSend(context, stack, client, tenant, { label: 'log', appId: logApp, segmentId: logSegment, devices: DEVICES, worker: logWorker, named: logNamed, databaseName });
  /** A further send on the log worker, to the whole of an app seeded above (none when its app was not seeded). */
  const sendOnLogWorker = async (label: string, appId: string | undefined, devices: number, more: { schedule: Record<string, unknown>; playTimeOffsetMs?: number }) =>
    appId ? runSend(context, stack, client, tenant, { label, appId, segmentId: await newSegment(appId), devices, ...more, worker: logWorker, named: logNamed, databaseName }) : undefined;
  const throttled = await sendOnLogWorker('throttled', throttledApp, THROTTLED_DEVICES, { schedule: { ratePerMinute: RATE_PER_MINUTE } });
  // Waves of a second's worth: the first wave goes at once, the rest at the rate.
  const throttledPerMinute = throttled ? ((throttled.sent - Math.ceil(RATE_PER_MINUTE / 60)) / (throttled.lastPushMs - throttled.firstPushMs)) * 60_000 : Number.NaN;
  const local = await sendOnLogWorker('local time', localApp, LOCAL_DEVICES, { schedule: { sendInLocalTime: true }, playTimeOffsetMs: localPlayTimeOffsetMs });
  const localGroups = local ? await localGroupFigures(stack, local.notificationId) : [];
  await stopWorker(logWorker);

  progress('baseline: the same rows inserted 1000 a statement from one plain client');
  const insert = await insertBaseline(stack, account.id, log.notificationId);
  progress('the snapshot statement alone, into a fresh copy of push_sends');
  const snapshot = await snapshotBaseline(stack, account.id, logApp, randomUUID());

  // 2. FCM, through a fake in its own process.
  let fcm: (SendFigures & { playTime: number; fake: FakeFcmStats; perSecond: number; playToLastAcceptMs: number }) | undefined;
  let fcmBase: Awaited<ReturnType<typeof fcmBaseline>> | undefined;
  if (fcmApp && fcmSegment) {
    progress('starting the fake FCM in its own process');
    const fake = await startFakeFcmProcess(context, { certFile, keyFile, cert: certificate.cert });
    const serviceAccount = await writeServiceAccount({ token_uri: fake.tokenUri });
    context.teardown.add('service account file', () => serviceAccount.remove());
    progress(`starting the worker (PUSH_PROVIDER=fcm, FCM_CONCURRENCY=${FCM_CONCURRENCY})`);
    const fcmWorker = await startBenchWorkerProcess(context, stack, {
      PUSH_PROVIDER: 'fcm',
      FCM_SERVICE_ACCOUNT_FILE: serviceAccount.file,
      FCM_BASE_URL: fake.baseUrl,
      FCM_CONCURRENCY: String(FCM_CONCURRENCY),
      FCM_MAX_PER_MINUTE: String(FCM_MAX_PER_MINUTE),
      NODE_EXTRA_CA_CERTS: certFile,
      ...workerEnv,
    });
    await fake.reset();
    const named = new Map([
      [fcmWorker.pid!, 'worker process'],
      [fake.pid, 'fake FCM process'],
    ]);
    const figures = await runSend(context, stack, client, tenant, { label: 'fcm', appId: fcmApp, segmentId: fcmSegment, devices: FCM_DEVICES, worker: fcmWorker, named, databaseName });
    const stats = await fake.stats();
    await stopWorker(fcmWorker);
    const atFakeMs = (stats.lastAcceptAt ?? Number.NaN) - (stats.firstAcceptAt ?? Number.NaN);
    fcm = { ...figures, fake: stats, perSecond: stats.accepted / (atFakeMs / 1000), playToLastAcceptMs: (stats.lastAcceptAt ?? Number.NaN) - figures.playTime };

    progress(`baseline: a plain https client posting the same ${FCM_DEVICES} FCM requests, ${fcmInFlight} in flight`);
    const { rows } = await sql.query<Record<string, unknown>>('select * from notifications where id = $1', [figures.notificationId]);
    const stored = rows[0]!;
    const notification: PushNotification = {
      notificationId: figures.notificationId,
      title: stored.title as string,
      subtitle: stored.subtitle as string | null,
      text: stored.text as string | null,
      action: stored.action as string,
      fbTitle: stored.fb_title as string | null,
      fbSubtitle: stored.fb_subtitle as string | null,
      fbText: stored.fb_text as string | null,
      type: stored.type as string,
      priority: stored.priority as string,
      expiry: stored.expiry as number,
      recordingUrl: null,
      richPushLevel: null,
    };
    fcmBase = await fcmBaseline(stack, fake, certificate.cert, figures.notificationId, notification);
  }

  let floor: Awaited<ReturnType<typeof measureTemporalFloor>> | undefined;
  if (FLOOR_UNITS > 0) {
    progress('the Temporal floor: one workflow with one activity per unit, on the same server');
    floor = await measureTemporalFloor({ address: stack.settings.temporalAddress, namespace: 'default', units: FLOOR_UNITS, concurrency: 16 });
  }

  // The figures.
  const logPerSecond = log.sent / (log.lastPushMs / 1000);
  const extra = [throttled, local].filter((figures) => figures !== undefined);
  const lost = log.lost + (fcm?.lost ?? 0) + extra.reduce((sum, figures) => sum + figures.lost, 0);
  const duplicates = log.dbDuplicates + (fcm ? fcm.dbDuplicates + fcm.fake.duplicates : 0) + extra.reduce((sum, figures) => sum + figures.dbDuplicates, 0);
  const workerPeakMiB = Math.max(log.workerPeakMiB, fcm?.workerPeakMiB ?? 0, ...extra.map((figures) => figures.workerPeakMiB));
  const maxHistoryEvents = Math.max(log.maxHistoryEvents, fcm?.maxHistoryEvents ?? 0, ...extra.map((figures) => figures.maxHistoryEvents));
  const ratioToInsert = logPerSecond / insert.perSecond;
  const ratioToFcmBaseline = fcm && fcmBase ? fcm.perSecond / fcmBase.perSecond : Number.NaN;
  const goals = {
    logAllSentWithin100s: log.lastPushMs <= 100_000 && log.sent === DEVICES,
    halfOfInsertBaseline: ratioToInsert >= 0.5,
    halfOfFcmBaseline: fcm ? ratioToFcmBaseline >= 0.5 : null,
    workerPeakWithin500MiB: workerPeakMiB <= 500,
    noHistoryOver10000Events: maxHistoryEvents <= 10_000,
    noneLostOrDuplicated: lost === 0 && duplicates === 0,
  };

  out(`bench:campaign — a campaign send to ${DEVICES} devices (log provider)${fcm ? ` and to ${FCM_DEVICES} devices (FCM, a local fake)` : ''}`);
  out();
  for (const line of await machineLines(sql, loadAtStart)) out(line);
  out(`  PostgreSQL settings                   ${pgSettings}`);
  if (WORKER_NODE_OPTIONS) out(`  worker NODE_OPTIONS                   ${WORKER_NODE_OPTIONS}`);
  out(`  load average at end (1/5/15 min)      ${loadavg().map((value) => fmt(value, 2)).join(' / ')}`);
  out();
  const sendLines = (figures: SendFigures) => {
    out(`  audience (snapshot) / segment         ${figures.audience} / ${figures.segmentDevices}; ended ${figures.state}`);
    out(`  sent; not sent                        ${figures.sent}; ${JSON.stringify(figures.notSent)}`);
    out(`  playTime → snapshot activity started  ${fmt(figures.beginStartedMs / 1000, 2)} s`);
    out(`  playTime → snapshot INSERT returned   ${fmt(figures.snapshotInsertedMs / 1000, 2)} s  (campaigns.started_at)`);
    out(`  playTime → snapshot activity done     ${fmt(figures.beginDoneMs / 1000, 2)} s  (INSERT, shard cut, message.sending event)`);
    out(`  playTime → first push                 ${fmt(figures.firstPushMs / 1000, 2)} s`);
    out(`  playTime → last push                  ${fmt(figures.lastPushMs / 1000, 2)} s`);
    const sorted = [...figures.shardMs].sort((a, b) => a - b);
    out(`  shards; each shard's activity         ${figures.shards}; ${fmt((sorted[0] ?? Number.NaN) / 1000, 1)}–${fmt((sorted.at(-1) ?? Number.NaN) / 1000, 1)} s (median ${fmt((sorted[Math.floor(sorted.length / 2)] ?? Number.NaN) / 1000, 1)} s)`);
    out(`  runs started; largest history         ${figures.runs.length} (${[...new Set(figures.runs.map((run) => run.type))].join(', ')}); ${figures.maxHistoryEvents} events`);
    out(`  send run's history                    ${figures.sendRunEvents} events, ${fmt((figures.sendRunEvents * 10_000) / Math.max(1, figures.audience), 2)} per 10,000 devices`);
    out(`  worker peak memory (VmHWM)            ${fmt(figures.workerPeakMiB, 0)} MiB (idle before the send: ${fmt(figures.workerIdleMiB, 0)} MiB)`);
    out(`  CPU seconds, schedule call → ended     ${figures.cpu.filter(([, spent]) => spent >= 0.05).map(([name, spent]) => `${name} ${fmt(spent, 1)}`).join('; ')}`);
    out(
      figures.updates === 0
        ? '  push_sends updates                    none (each push\'s row is inserted with its answer)'
        : `  push_sends updates; HOT               ${figures.updates}; ${figures.hotUpdates} (${fmt((100 * figures.hotUpdates) / figures.updates, 0)}%; the rest wrote an entry in each of the table's indexes)`,
    );
    out(`  lost; duplicates (DB)                 ${figures.lost}; ${figures.dbDuplicates}`);
    out(`  GET /notification/get → send         ${JSON.stringify(figures.apiSend)}`);
  };
  out(`Campaign send, log provider (${DEVICES} devices, shards of 25,000, 4 lanes, waves of 1000)`);
  sendLines(log);
  out(`  pushes/s (playTime → last push)       ${fmt(logPerSecond, 0)}`);
  out(`  pushes/s (first push → last push)     ${fmt(log.sent / ((log.lastPushMs - log.firstPushMs) / 1000), 0)}`);
  if (throttled) {
    out();
    out(`Throttled send, log provider (${THROTTLED_DEVICES} devices, ratePerMinute ${RATE_PER_MINUTE}: one shard at a time, waves of ${Math.ceil(RATE_PER_MINUTE / 60)})`);
    sendLines(throttled);
    out(`  measured rate (after the first wave)  ${fmt(throttledPerMinute, 0)} a minute, ${fmt(throttledPerMinute / RATE_PER_MINUTE, 3)}× the requested`);
  }
  if (local) {
    out();
    out(`Send in local time, log provider (${LOCAL_DEVICES} devices over ${localZones.length} zones, UTC−11:00 to UTC+12:00; playTime 11 h 5 min ago, so every group is due at once)`);
    sendLines(local);
    out(`  groups (offset: devices, last push after the send's start)`);
    for (const group of localGroups) out(`    ${group.offset >= 0 ? '+' : '-'}${fmt(Math.abs(group.offset) / 60, 0)} h: ${group.devices}, ${fmt(group.lastPushAfterStartS, 1)} s`);
  }
  out();
  out('Baselines (the database)');
  out(`  bare INSERT of the same ${insert.rows} rows, 1000 a statement, one client: ${fmt(insert.perSecond, 0)} rows/s (${fmt(insert.ms / 1000, 1)} s)`);
  out(`  the snapshot INSERT … SELECT alone, fresh table: ${snapshot.rows} rows in ${fmt(snapshot.ms / 1000, 1)} s`);
  out(`  ratio: log pushes/s ÷ insert rows/s   ${fmt(ratioToInsert, 3)}`);
  if (fcm && fcmBase) {
    out();
    out(`Campaign send, FCM through a local fake in its own process (${FCM_DEVICES} devices${FCM_DEVICES < DEVICES ? `, not ${DEVICES}: a million through the fake takes too long on this box` : ''}; FCM_CONCURRENCY=${FCM_CONCURRENCY}, waves of ${FCM_CONCURRENCY}, ${sendLanes} shards side by side, FCM_MAX_PER_MINUTE=${FCM_MAX_PER_MINUTE})`);
    sendLines(fcm);
    out(`  fake: accepted; received; duplicates  ${fcm.fake.accepted}; ${fcm.fake.received}; ${fcm.fake.duplicates} (distinct tokens ${fcm.fake.distinctTokens}, token requests ${fcm.fake.tokenRequests})`);
    out(`  playTime → last accept at the fake    ${fmt(fcm.playToLastAcceptMs / 1000, 2)} s`);
    out(`  pushes/s at the fake (first → last)   ${fmt(fcm.perSecond, 0)} (max in one second ${fcm.fake.maxPerSecond})`);
    out();
    out(`Baseline (FCM): a plain node https client, keep-alive, ${fcmInFlight} in flight (as the service), the same ${fcmBase.requests} requests`);
    out(`  requests/s at the fake                ${fmt(fcmBase.perSecond, 0)} (wall ${fmt(fcmBase.wallMs / 1000, 1)} s; max in one second ${fcmBase.stats.maxPerSecond})`);
    out(`  ratio: service ÷ baseline             ${fmt(ratioToFcmBaseline, 3)}`);
  }
  if (floor) {
    out();
    out(`Temporal floor (one workflow with one activity per unit, 16 in flight): ${fmt(floor.perSecond, 1)} runs/s`);
  }
  out();
  out('Goals');
  out(`  1M sent ≤ 100 s after playTime (log)  ${goals.logAllSentWithin100s ? 'met' : 'NOT met'} (${fmt(log.lastPushMs / 1000, 1)} s for ${log.sent})`);
  out(`  ≥ 0.5× the insert baseline            ${goals.halfOfInsertBaseline ? 'met' : 'NOT met'} (${fmt(ratioToInsert, 3)})`);
  out(`  ≥ 0.5× the FCM baseline               ${goals.halfOfFcmBaseline === null ? 'not measured' : goals.halfOfFcmBaseline ? 'met' : 'NOT met'} (${fmt(ratioToFcmBaseline, 3)})`);
  out(`  worker peak ≤ 500 MiB                 ${goals.workerPeakWithin500MiB ? 'met' : 'NOT met'} (${fmt(workerPeakMiB, 0)} MiB)`);
  out(`  no history > 10,000 events            ${goals.noHistoryOver10000Events ? 'met' : 'NOT met'} (largest ${maxHistoryEvents})`);
  out(`  0 lost, 0 duplicates                  ${goals.noneLostOrDuplicated ? 'met' : 'NOT met'} (${lost} lost, ${duplicates} duplicates)`);
  out(
    JSON.stringify({
      bench: 'campaign',
      unit: 'pushes/s',
      devices: DEVICES,
      logFirstPushS: seconds(log.firstPushMs),
      logAllSentS: seconds(log.lastPushMs),
      logSnapshotS: seconds(log.snapshotInsertedMs),
      logPerSecond: round(logPerSecond),
      insertPerSecond: round(insert.perSecond),
      ratioToInsert: round(ratioToInsert, 4),
      fcmDevices: fcm ? FCM_DEVICES : 0,
      fcmConcurrency: FCM_CONCURRENCY,
      fcmInFlight,
      fcmPerSecond: fcm ? round(fcm.perSecond) : null,
      fcmAllSentS: fcm ? seconds(fcm.playToLastAcceptMs) : null,
      fcmBaselinePerSecond: fcmBase ? round(fcmBase.perSecond) : null,
      ratioToFcmBaseline: fcm ? round(ratioToFcmBaseline, 4) : null,
      workerPeakRssMiB: round(workerPeakMiB),
      maxHistoryEvents,
      historyEventsPer10kDevices: round((log.sendRunEvents * 10_000) / Math.max(1, log.audience), 2),
      logHotUpdatePercent: log.updates === 0 ? null : round((100 * log.hotUpdates) / log.updates, 1),
      lost,
      duplicates,
      floor: floor ? round(floor.perSecond) : null,
      throttledDevices: throttled ? THROTTLED_DEVICES : 0,
      throttleRequestedPerMinute: RATE_PER_MINUTE,
      throttleMeasuredPerMinute: throttled ? round(throttledPerMinute) : null,
      throttleRatio: throttled ? round(throttledPerMinute / RATE_PER_MINUTE, 4) : null,
      localDevices: local ? LOCAL_DEVICES : 0,
      localGroups: localGroups.length,
      localAllSentS: local ? seconds(Math.max(...localGroups.map((group) => group.lastPushAfterStartS)) * 1000) : null,
      localSendRunEvents: local?.sendRunEvents ?? null,
      goals,
      machine: { cores: availableParallelism(), loadAtStart: loadAtStart.map((value) => round(value, 2)), pg: pgSettings },
      ...(WORKER_NODE_OPTIONS ? { workerNodeOptions: WORKER_NODE_OPTIONS } : {}),
    }),
  );
  return lost === 0 && duplicates === 0 ? 0 : 1;
});

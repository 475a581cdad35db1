import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { maxBatchDevices } from '../../src/api/devices/schemas.ts';
import { startFakeFcm, type FakeFcm, type FakeFcmOptions, type FakeFcmSend } from '../../src/dev/fake-fcm.ts';
import { call, sampleMessage, type TestAccount } from './api.ts';
import { query } from './db.ts';
import { newSegment, registerDevices } from './devices.ts';
import { fileRow } from './files.ts';
import { writeServiceAccount } from './fcm.ts';
import { ok } from './http-assertions.ts';
import { killWorker, startApiInstance, startWorkerProcess } from './instances.ts';
import { until } from './wait.ts';

// Helpers for the campaign send tests: an audience, a message to send, reading the message's send, and a send path
// of its own to a fake FCM.

/**
 * An account, and the API instance its calls go to (the run's own API when `baseUrl` is unset). A send scheduled or
 * a test send made through an API runs on that API's task queue.
 */
export type Caller = TestAccount & { baseUrl?: string | undefined };

const as = (caller: Caller) => ({ token: caller.apiKey, baseUrl: caller.baseUrl });

/**
 * `count` devices tagged `group = <group>` and the segment of them; answers the segment, the device ids by token and
 * the tokens (and each token's platform). They are registered in batches as large as POST /device/batch takes, each
 * with the fields `more` gives it (a timezone, say).
 */
export async function newAudience(account: Caller, count: number, group = 'campaign', more: (index: number) => Record<string, unknown> = () => ({})) {
  const devices = Array.from({ length: count }, (_, index) => ({
    token: `${group}-${index}-${account.appId.slice(0, 8)}`,
    platform: index % 2 ? 'ios' : 'android',
    attributes: { group },
    ...more(index),
  }));
  const ids = new Map<string, string>();
  for (let start = 0; start < devices.length; start += maxBatchDevices) {
    for (const [token, id] of await registerDevices(account, devices.slice(start, start + maxBatchDevices))) ids.set(token, id);
  }
  const segment = await newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: group }] });
  return { segment, ids, tokens: devices.map((device) => device.token), platformOf: new Map(devices.map((device) => [device.token, device.platform])) };
}

/** A message created through the API: the spec's sample with these fields changed. */
export async function createMessage(account: Caller, fields: Record<string, unknown> = {}): Promise<any> {
  return ok(await call('POST', '/notification/create', { ...as(account), body: { ...sampleMessage(account.appId), ...fields } }), 201);
}

/**
 * A READY rich message that plays a new stock recording: a ready file (a row as processing leaves it: these tests send
 * the message, not its audio), POST /stock/create, then POST /slot/create/fromStock with the spec's from-stock body (the
 * sample without filterId, priority, favourite and channel) and `fields`.
 */
export async function newStockMessage(account: Caller, fields: Record<string, unknown> = {}): Promise<{ stock: any; message: any }> {
  const { fileId } = await fileRow(account);
  const stock = ok(await call('POST', '/stock/create', { ...as(account), body: { appId: account.appId, title: 'Stock jingle', fileId, richPushLevel: 'TORSO' } }), 201);
  const { priority: _priority, favourite: _favourite, channel: _channel, ...fromStock } = sampleMessage(account.appId);
  const slot = ok(await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { ...as(account), body: { ...fromStock, ...fields } }), 201);
  return { stock, message: slot.notification };
}

export const scheduleSend = (account: Caller, id: string, body: Record<string, unknown> = {}) =>
  call('POST', `/notification/schedule?id=${id}&appId=${account.appId}`, { ...as(account), body });

export const cancelSend = (account: Caller, id: string) => call('POST', `/notification/cancel?id=${id}&appId=${account.appId}`, as(account));

/** POST /notification/test: the message now, to these devices (a `push-test:<testId>` run sends it). */
export const testSend = (account: Caller, id: string, deviceIds: string[]) =>
  call('POST', `/notification/test?id=${id}&appId=${account.appId}`, { ...as(account), body: { deviceIds } });

export const getMessage = async (account: Caller, id: string) => ok(await call('GET', `/notification/get?id=${id}`, as(account)));

/** Reads the message until its send matches. */
export const waitForSend = (account: Caller, id: string, predicate: (send: any) => boolean, timeoutMs = 60_000): Promise<any> =>
  until(`the send of message ${id} to match`, async () => (await getMessage(account, id)).send, predicate, { timeoutMs, intervalMs: 200 });

/** Every push of the message, all pages. */
export async function pushesOf(account: Caller, notificationId: string, filter = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = ok(await call('GET', `/push/sends?notificationId=${notificationId}&limit=100${filter}${cursor ? `&cursor=${cursor}` : ''}`, as(account)));
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** How many of the message's campaign pushes are in each status, read from the database (a status none is in is absent). */
export async function pushStatusCounts(notificationId: string): Promise<Record<string, number>> {
  const rows = await query<{ status: string; n: number }>(
    `select status, count(*)::int as n from push_sends where notification_id = $1 and source = 'campaign' group by status`,
    [notificationId],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

/** A campaign send path to a fake FCM, apart from the suite's worker: see `startFcmSendPath`. */
export interface FcmSendPath {
  fake: FakeFcm;
  /** The Firebase project the path's service account names: its pace is the `push_pace` row `fcm:<projectId>`. */
  projectId: string;
  taskQueue: string;
  /** The path's API instance: an event posted to it is relayed on the path's queue, so the runs it starts run there. */
  apiUrl: string;
  /** The first worker; `startWorker` starts another. */
  worker: ChildProcess;
  /** `account` calling this path's API instance, so that what it schedules and test-sends runs on this path's worker. */
  via(account: TestAccount): Caller;
  /** Another worker on the path's queue with the same settings (the next one after a crash). */
  startWorker(): Promise<ChildProcess>;
  /** Kills the workers and stops the API instance and the fake. */
  stop(): Promise<void>;
}

/** The sends of `tokens` that reached a path's fake (the fake serves every test of its block). */
export function sendsTo(path: FcmSendPath, tokens: string[]): FakeFcmSend[] {
  const wanted = new Set(tokens);
  return path.fake.bodies().filter((send) => wanted.has(send.token));
}

/** A fake FCM (src/dev/fake-fcm.ts) and the settings that make a worker process send to it. */
export interface FakeFcmForWorkers {
  fake: FakeFcm;
  /** The Firebase project the service account names: its pace is the `push_pace` row `fcm:<projectId>`. */
  projectId: string;
  /** PUSH_PROVIDER=fcm, the throwaway service account, the fake's URL, and trust in its certificate. */
  env: NodeJS.ProcessEnv;
  stop: () => Promise<void>;
}

/**
 * The fake, a throwaway service account whose token_uri is the fake's, and the environment of a worker that sends
 * to it. The project id is its own: the pace, shared by project across the deployment, is not shared with any other
 * test's sends.
 */
export async function startFakeFcmForWorkers(options: { fake?: Partial<FakeFcmOptions> } = {}): Promise<FakeFcmForWorkers> {
  const projectId = `richpush-${randomUUID().slice(0, 8)}`;
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const fake = await startFakeFcm({ cert: inject('receiverCert'), key: inject('receiverKey'), projectId, ...options.fake });
    cleanups.push(() => fake.close());
    const account = await writeServiceAccount({ project_id: projectId, token_uri: fake.tokenUri });
    cleanups.push(() => account.remove());
    // The worker trusts the fake's certificate as the suite's receivers do: NODE_EXTRA_CA_CERTS.
    const caFile = await account.writeVariant('fake-fcm-ca.pem', inject('receiverCert'));
    const env = { PUSH_PROVIDER: 'fcm', FCM_SERVICE_ACCOUNT_FILE: account.file, FCM_BASE_URL: fake.baseUrl, NODE_EXTRA_CA_CERTS: caFile };
    return { fake, projectId, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A send path of its own to a fake FCM (`startFakeFcmForWorkers`): `npm run worker` as a child process sending to it,
 * with `workerEnv` (FCM_CONCURRENCY, FCM_MAX_PER_MINUTE…), on a task queue of its own, and an API instance on that
 * queue. The suite's worker (the log provider) polls the run's queue only, so it never picks up this path's runs.
 */
export async function startFcmSendPath(options: { fake?: Partial<FakeFcmOptions>; workerEnv?: NodeJS.ProcessEnv } = {}): Promise<FcmSendPath> {
  const taskQueue = `campaign-fcm-${randomUUID()}`;
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const { fake, projectId, env: fcmEnv, stop: stopFake } = await startFakeFcmForWorkers(options);
    cleanups.push(stopFake);
    const env: NodeJS.ProcessEnv = { ...fcmEnv, ...options.workerEnv };
    const workers: ChildProcess[] = [];
    cleanups.push(() => Promise.all(workers.map(killWorker)));
    const startWorker = async () => {
      const worker = await startWorkerProcess(taskQueue, env);
      workers.push(worker);
      return worker;
    };
    const api = await startApiInstance({ taskQueue });
    cleanups.push(() => api.stop());
    const worker = await startWorker();
    return { fake, projectId, taskQueue, apiUrl: api.url, worker, via: (caller) => ({ ...caller, baseUrl: api.url }), startWorker, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

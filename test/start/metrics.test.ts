import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { waitForFinishedDelivery } from '../support/deliveries.ts';
import { directEvent, newConnection, postSigned, waitForEvent, type ConnectionFixture } from '../support/ingest.ts';
import { freePort, killWorker, startApiProcess, startWorkerProcess } from '../support/instances.ts';
import { scrape, sumOf, waitForMetrics, type Sample } from '../support/metrics.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';

/**
 * The API and the worker as production runs them (`npm run api`, `npm run worker`), each with its metrics listener
 * on a port of its own, on a task queue of their own: requests and events go through them, and their /metrics show it.
 */
const taskQueue = `metrics-${randomUUID()}`;
const children: ChildProcess[] = [];
let scratch: string;
let api: { url: string; metricsUrl: string };
let worker: { metricsUrl: string; sdkMetricsUrl: string };
let account: TestAccount;
let connection: ConnectionFixture;
let endpoint: EndpointFixture;
/** An event posted while no worker served the task queue: it waits, RECEIVED, until the worker starts. */
let waiting: { messageId: string; backlog: Sample[] };

const requestCount = (samples: Sample[], labels: Record<string, string>) => sumOf(samples, 'richpush_http_request_duration_seconds_count', labels);
const accepted = (samples: Sample[]) => sumOf(samples, 'richpush_ingest_events_accepted_total');

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-metrics-'));
  const caFile = join(scratch, 'receiver-ca.pem');
  await writeFile(caFile, inject('receiverCert'));
  account = await newAccount();
  [connection, endpoint] = await Promise.all([newConnection(account), newEndpoint(account, ['webhook.test'])]);

  const apiMetricsPort = await freePort();
  const started = await startApiProcess(taskQueue, { METRICS_PORT: String(apiMetricsPort) });
  children.push(started.child);
  api = { url: started.url, metricsUrl: `http://127.0.0.1:${apiMetricsPort}/metrics` };

  const event = directEvent();
  const posted = await postSigned(connection, event, { baseUrl: api.url });
  expect(posted.status, JSON.stringify(posted.body)).toBe(202);
  waiting = { messageId: event.messageId, backlog: (await scrape(api.metricsUrl)).samples };

  const [workerMetricsPort, sdkMetricsPort] = [await freePort(), await freePort()];
  children.push(
    await startWorkerProcess(taskQueue, {
      NODE_EXTRA_CA_CERTS: caFile,
      METRICS_PORT: String(workerMetricsPort),
      TEMPORAL_METRICS_PORT: String(sdkMetricsPort),
    }),
  );
  worker = { metricsUrl: `http://127.0.0.1:${workerMetricsPort}/metrics`, sdkMetricsUrl: `http://127.0.0.1:${sdkMetricsPort}/metrics` };
}, 120_000);

afterAll(async () => {
  await Promise.all(children.map(killWorker));
  await endpoint?.receiver.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('API metrics', () => {
  it('are not served on the public API port', async () => {
    const response = await call('GET', '/metrics', { baseUrl: api.url });
    expect(response.status).toBe(404);
    expect(JSON.stringify(response.body)).not.toContain('richpush_');
  });

  it('serve GET /metrics in the Prometheus text format, and nothing else, on their own port', async () => {
    const scraped = await scrape(api.metricsUrl);
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.text).toContain('# TYPE richpush_http_request_duration_seconds histogram');
    // Default process metrics, under the service's prefix.
    expect(sumOf(scraped.samples, 'richpush_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(scraped.samples.some((sample) => sample.name === 'richpush_nodejs_eventloop_lag_seconds')).toBe(true);
    // Its own registry: the worker's metrics are not here.
    expect(scraped.text).not.toContain('richpush_delivery_attempts_total');
    expect((await fetch(api.metricsUrl.replace(/\/metrics$/, '/other'))).status).toBe(404);
  });

  it('time requests by route pattern and status, never by raw path', async () => {
    const before = (await scrape(api.metricsUrl)).samples;
    const ok = await call('GET', '/healthz', { baseUrl: api.url });
    const unauthorised = await call('GET', `/accounts/${account.accountId}/apps`, { baseUrl: api.url, token: 'not-a-key' });
    const unknown = await call('GET', `/no/such/${randomUUID()}`, { baseUrl: api.url });
    expect([ok.status, unauthorised.status, unknown.status]).toEqual([200, 401, 404]);

    const { samples, text } = await scrape(api.metricsUrl);
    const moved = (labels: Record<string, string>) => requestCount(samples, labels) - requestCount(before, labels);
    expect(moved({ method: 'GET', route: '/healthz', status: '200' })).toBe(1);
    expect(moved({ method: 'GET', route: '/accounts/:accountId/apps', status: '401' })).toBe(1);
    expect(moved({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sumOf(samples, 'richpush_http_request_duration_seconds_bucket', { route: '/healthz', status: '200', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    // The ingest post of the set-up, under its pattern: the inbound key (a secret) is in no label.
    expect(requestCount(samples, { method: 'POST', route: '/v1/in/:inboundKey', status: '202' })).toBe(1);
    for (const secret of [connection.inboundKey, account.accountId, account.apiKey, 'not-a-key']) expect(text).not.toContain(secret);
  });

  it('count the events POST /v1/in/… accepted, not the ones it refused', async () => {
    expect(accepted(waiting.backlog)).toBe(1);
    const before = accepted((await scrape(api.metricsUrl)).samples);
    const event = directEvent();
    expect((await postSigned(connection, event, { baseUrl: api.url })).status).toBe(202);
    expect((await postSigned(connection, event, { baseUrl: api.url })).status).toBe(409);
    expect((await postSigned(connection, directEvent(), { baseUrl: api.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })).status).toBe(401);
    const { samples } = await scrape(api.metricsUrl);
    expect(accepted(samples) - before).toBe(1);
    expect(requestCount(samples, { route: '/v1/in/:inboundKey', status: '409' })).toBe(1);
    expect(requestCount(samples, { route: '/v1/in/:inboundKey', status: '401' })).toBe(1);
  });

  it('report the ingest backlog: an accepted event no worker has taken yet is in it', () => {
    // Other test files share the database, so the backlog holds at least this event, and its age is a number.
    expect(sumOf(waiting.backlog, 'richpush_ingest_backlog_events')).toBeGreaterThanOrEqual(1);
    const age = waiting.backlog.find((sample) => sample.name === 'richpush_ingest_backlog_oldest_age_seconds');
    expect(age?.value).toBeGreaterThanOrEqual(0);
  });
});

describe('worker metrics', () => {
  it('count the events the worker processed', async () => {
    await waitForEvent(account, waiting.messageId, 'PROCESSED', 30_000);
    await waitForMetrics(worker.metricsUrl, (samples) => sumOf(samples, 'richpush_ingest_events_processed_total', { status: 'PROCESSED' }) >= 1);
  });

  it('count delivery attempts by outcome, on the worker’s own registry', async () => {
    const sent = await call('POST', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/test`, { token: account.apiKey, baseUrl: api.url });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const delivery = await waitForFinishedDelivery(account, endpoint.endpointId, sent.body.eventId, 30_000);
    expect(delivery.status).toBe('succeeded');
    const samples = await waitForMetrics(worker.metricsUrl, (all) => sumOf(all, 'richpush_delivery_attempts_total', { outcome: 'delivered' }) === 1);
    expect(sumOf(samples, 'richpush_delivery_attempts_total')).toBe(1);
    expect(sumOf(samples, 'richpush_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.some((sample) => sample.name.startsWith('richpush_http_request'))).toBe(false);
  });

  it('include the Temporal SDK’s worker slot gauges, on the SDK exporter’s port', async () => {
    const samples = await waitForMetrics(worker.sdkMetricsUrl, (all) =>
      ['temporal_worker_task_slots_used', 'temporal_worker_task_slots_available'].every((name) =>
        all.some((sample) => sample.name === name && sample.labels.worker_type === 'ActivityWorker' && sample.labels.task_queue === taskQueue),
      ),
    );
    const available = sumOf(samples, 'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker', task_queue: taskQueue });
    expect(available).toBeGreaterThan(0);
  });
});

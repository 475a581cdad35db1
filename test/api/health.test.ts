import { afterEach, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startApiServer, type RunningApi } from '../../src/service/api-server.ts';
import { closeApiServices, createApiServices } from '../../src/service/compose.ts';
import { call } from '../support/api.ts';

const unreachable = '127.0.0.1:9';

/** A second instance of the API whose dependencies are chosen by the test, so one can be down. */
async function apiWith(databaseUrl: string, temporalAddress: string): Promise<RunningApi & { stop(): Promise<void> }> {
  const services = await createApiServices({
    databaseUrl,
    temporalAddress,
    namespace: 'default',
    taskQueue: 'unused',
    adminToken: 'x'.repeat(32),
    ingestRateLimit: { perSecond: 100, burst: 100 },
    secretsKey: inject('secretsKey'),
    delivery: { retryInitialMs: 1000, retryBackoff: 2, maxAttempts: 3, timeoutMs: 1000, disableAfterHours: 120 },
    logger: createLogger('silent'),
  });
  const api = await startApiServer(0, services, '127.0.0.1');
  return { ...api, stop: async () => { await api.close(); await closeApiServices(services); } };
}

let started: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(started.map((stop) => stop()));
  started = [];
});

describe('health endpoints', () => {
  it('answers liveness without touching dependencies', async () => {
    const response = await call('GET', '/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('is ready when Postgres and Temporal answer', async () => {
    const response = await call('GET', '/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { postgres: 'up', temporal: 'up' } });
  });

  it('answers 503 naming Temporal when only Temporal is down', async () => {
    const api = await apiWith(inject('databaseUrl'), unreachable);
    started.push(api.stop);
    const response = await fetch(`${api.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'unavailable', checks: { postgres: 'up', temporal: 'down' } });
  });

  it('answers a request that needs Temporal with 503 and Retry-After while Temporal is down', async () => {
    const api = await apiWith(inject('databaseUrl'), unreachable);
    started.push(api.stop);
    const response = await fetch(`${api.url}/admin/self-test`, { method: 'POST', headers: { authorization: `Bearer ${'x'.repeat(32)}` } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(((await response.json()) as any).error.code).toBe('service_unavailable');
  });

  it('answers a request that needs Postgres with 503 and Retry-After while Postgres is down', async () => {
    const api = await apiWith(`postgres://postgres@${unreachable}/none`, inject('temporalAddress'));
    started.push(api.stop);
    const response = await fetch(`${api.url}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${'x'.repeat(32)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'while down' }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
  });

  it('answers 503 naming Postgres when only Postgres is down', async () => {
    const api = await apiWith(`postgres://postgres@${unreachable}/none`, inject('temporalAddress'));
    started.push(api.stop);
    const response = await fetch(`${api.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'unavailable', checks: { postgres: 'down', temporal: 'up' } });
  });
});

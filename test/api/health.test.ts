import { afterEach, describe, expect, inject, it } from 'vitest';
import { call } from '../support/api.ts';
import { startApiInstance, unreachable } from '../support/instances.ts';

/** A second instance of the API whose dependencies are chosen by the test, so one can be down. */
const apiWith = (databaseUrl: string, temporalAddress: string) => startApiInstance({ databaseUrl, temporalAddress, taskQueue: 'unused' });

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

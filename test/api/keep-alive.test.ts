import { describe, expect, inject, it } from 'vitest';
import { apiKeepAliveTimeoutMs } from '../../src/service/api-server.ts';

describe('keep-alive connections', () => {
  it('stay open longer than a load balancer keeps them (60 s), and the API says how long', async () => {
    const answer = await fetch(`${inject('apiUrl')}/healthz`);
    await answer.arrayBuffer();
    expect(apiKeepAliveTimeoutMs).toBeGreaterThan(60_000);
    expect(answer.headers.get('keep-alive')).toBe(`timeout=${apiKeepAliveTimeoutMs / 1000}`);
  });
});

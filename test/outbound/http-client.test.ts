import { describe, expect, inject, it } from 'vitest';
import { createOutboundHttpClient, OutboundRequestError } from '../../src/outbound/http-client.ts';
import { parseAllowCidrs } from '../../src/security/ip-policy.ts';
import { startReceiver, type TestReceiver } from '../support/receiver.ts';
import { until } from '../support/wait.ts';

const client = (timeoutMs: number) => createOutboundHttpClient({ allow: parseAllowCidrs('127.0.0.0/8,::1/128'), timeoutMs, ca: inject('receiverCert') });

/** Polls until the receiver saw the sender close the connection of its first request. */
const waitForAbort = (receiver: TestReceiver, timeoutMs = 5000): Promise<number> =>
  until('the receiver to see its first request aborted', () => receiver.requests[0]?.abortedAt, { timeoutMs, intervalMs: 20 });

describe('outbound HTTP client', () => {
  it('aborts a request in flight when the caller’s signal fires (a cancelled activity)', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'late', delayMs: 60_000 }));
    const http = client(60_000);
    try {
      const controller = new AbortController();
      const sent = http.post(receiver.url, {}, '{}', controller.signal);
      await receiver.waitForRequests(1);
      controller.abort();
      await expect(sent).rejects.toThrow(OutboundRequestError);
      await expect(sent).rejects.toThrow(/^aborted: the attempt was cancelled/);
      await waitForAbort(receiver);
    } finally {
      http.close();
      await receiver.close();
    }
  });

  it('gives up at its own timeout and says so', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'late', delayMs: 60_000 }));
    const http = client(300);
    try {
      await expect(http.post(receiver.url, {}, '{}', new AbortController().signal)).rejects.toThrow('timed out after 300 ms');
      await waitForAbort(receiver);
    } finally {
      http.close();
      await receiver.close();
    }
  });
});

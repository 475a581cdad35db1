import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { inject } from 'vitest';
import { until } from './wait.ts';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** When the sender closed the connection before the reply was sent (it gave up on the request). */
  abortedAt?: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  respondWith(responder: Responder): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close: () => Promise<void>;
}

/** A real HTTPS webhook receiver on loopback, answering as the test scripts it (200 by default). */
export async function startReceiver(responder: Responder = () => ({ status: 200, body: 'ok' })): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  let respond = responder;
  const server: Server = createServer({ cert: inject('receiverCert'), key: inject('receiverKey') }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      requests.push(received);
      res.once('close', () => {
        if (!res.writableFinished) received.abortedAt = Date.now();
      });
      const reply = respond(received, requests.length - 1);
      setTimeout(() => {
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body ?? '');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://localhost:${port}/hooks`,
    requests,
    respondWith: (next) => (respond = next),
    async waitForRequests(count, timeoutMs = 20_000) {
      await until(`${count} requests at the receiver`, () => requests.length, (received) => received >= count, {
        timeoutMs,
        intervalMs: 25,
        show: (received) => `${received} received`,
      });
      return requests.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

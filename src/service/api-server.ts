import { createServer, type Server } from 'node:http';
import { routes } from '../api/routes.ts';
import { buildApp } from '../http/app.ts';
import type { ApiServices } from '../http/services.ts';

export interface RunningApi {
  url: string;
  server: Server;
  /** Stops accepting connections and waits for requests in flight to finish. */
  close(): Promise<void>;
}

export async function startApiServer(port: number, services: ApiServices, host = '0.0.0.0'): Promise<RunningApi> {
  const server = createServer(buildApp(routes, services).callback());
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

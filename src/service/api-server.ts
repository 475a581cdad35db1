import { createServer, type Server } from 'node:http';
import { routes } from '../api/routes.ts';
import { buildApp, requestListener } from '../http/app.ts';
import type { ApiServices } from '../http/services.ts';
import { resealLegacySecrets } from '../domain/secrets/reseal-legacy-secrets.ts';
import { sweepExpiredIdempotencyKeys } from '../persistence/idempotency-keys.ts';

const idempotencySweepEveryMs = 10 * 60 * 1000;

export interface RunningApi {
  url: string;
  server: Server;
  /** Stops accepting connections and waits for requests in flight to finish. */
  close: () => Promise<void>;
}

/** How long the API keeps an idle keep-alive connection open. */
export const apiKeepAliveTimeoutMs = 65_000;

export async function startApiServer(port: number, services: ApiServices, host = '0.0.0.0'): Promise<RunningApi> {
  const server = createServer(requestListener(buildApp(routes, services)));
  // An idle keep-alive connection outlives a load balancer's (60 s on the common ones) and a client's own reuse window:
  // a server that closes first races the client's next request on that socket, which then fails with ECONNRESET.
  server.keepAliveTimeout = apiKeepAliveTimeoutMs;
  server.headersTimeout = apiKeepAliveTimeoutMs + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  const stopSweep = sweepIdempotencyKeys(services);
  const resealing = resealStoredSecrets(services);
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    server,
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
      await Promise.all([stopSweep(), resealing]);
    },
  };
}

/** Deletes expired Idempotency-Key rows while the API serves: at start, then every 10 minutes. Returns the stop. */
function sweepIdempotencyKeys(services: ApiServices): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = sweepExpiredIdempotencyKeys(services.orm.em.fork()).then(
      (deleted) => void (deleted > 0 && services.logger.info({ deleted }, 'expired idempotency keys swept')),
      (error) => services.logger.warn({ err: error }, 'idempotency key sweep failed; the next one retries'),
    );
  };
  const timer = setInterval(sweep, idempotencySweepEveryMs).unref();
  sweep();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** Once at start: secrets stored before docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md are sealed again for their row (reseal-legacy-secrets.ts). */
async function resealStoredSecrets(services: ApiServices): Promise<void> {
  try {
    const { resealed, unreadable } = await resealLegacySecrets(services.orm.em.fork(), services.secrets);
    if (resealed > 0) services.logger.info({ resealed }, 'stored secrets sealed again for their rows (docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md)');
    if (unreadable.length > 0) {
      services.logger.warn({ unreadable }, 'stored secrets that do not open under SECRETS_KEY; rotate them (docs/operations.md)');
    }
  } catch (error) {
    services.logger.warn({ err: error }, 'resealing stored secrets failed; the next start retries');
  }
}

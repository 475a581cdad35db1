import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import { createMetricsRegistry } from './registry.ts';

/** METRICS_PORT / METRICS_HOST, as every role's configuration has them. */
export interface MetricsConfig {
  METRICS_PORT?: number | undefined;
  METRICS_HOST: string;
}

export interface MetricsListener {
  /** The registry to count on; undefined when METRICS_PORT is unset (nothing is served, nothing collected). */
  registry: Registry | undefined;
  url: string | undefined;
  close: () => Promise<void>;
}

/** `host:port` as a listener address, with an IPv6 host in brackets. */
export const listenAddress = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The bind address of the Temporal SDK's own Prometheus exporter (served by the SDK's native core, at /metrics on
 * METRICS_HOST:TEMPORAL_METRICS_PORT); undefined when TEMPORAL_METRICS_PORT is unset.
 */
export const temporalPrometheusAddress = (config: MetricsConfig & { TEMPORAL_METRICS_PORT?: number | undefined }): string | undefined =>
  config.TEMPORAL_METRICS_PORT === undefined ? undefined : listenAddress(config.METRICS_HOST, config.TEMPORAL_METRICS_PORT);

/**
 * The process's metrics listener: `GET /metrics` in the Prometheus text format on METRICS_HOST:METRICS_PORT, a
 * listener of its own, apart from the public API port; anything else there is a 404. None when METRICS_PORT is unset.
 */
export async function startMetricsListener(config: MetricsConfig, logger: Logger): Promise<MetricsListener> {
  if (config.METRICS_PORT === undefined) return { registry: undefined, url: undefined, close: async () => {} };
  const registry = createMetricsRegistry();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are served at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.METRICS_PORT, config.METRICS_HOST, () => resolve());
  });
  const url = `http://${listenAddress(config.METRICS_HOST === '0.0.0.0' ? '127.0.0.1' : config.METRICS_HOST, config.METRICS_PORT)}/metrics`;
  logger.info({ url }, 'metrics listening');
  return {
    registry,
    url,
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

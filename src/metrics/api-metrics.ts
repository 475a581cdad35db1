import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricPrefix } from './registry.ts';

/** What the ingest backlog gauges report, read at each scrape. */
export interface IngestBacklog {
  /** Accepted events whose processing has not started yet. */
  rows: number;
  /** Age of the oldest of them in seconds; 0 when there is none. */
  oldestAgeSeconds: number;
}

/**
 * Reads the backlog; the API passes one bound to its database (src/domain/ingest/measure-ingest-backlog.ts). A query
 * that fails shows as NaN on both gauges; the function should log its own failure.
 */
export type IngestBacklogQuery = () => Promise<IngestBacklog>;

export interface HttpRequestLabels {
  method: string;
  /** The route's pattern (`/v1/in/:inboundKey`), never the raw path: ids and inbound keys stay out of labels. */
  route: string;
  status: number;
}

/** The API's metrics, as the code that counts them sees them. */
export interface ApiMetrics {
  observeRequest(labels: HttpRequestLabels, seconds: number): void;
  /** Events a POST /v1/in/… accepted (answered 202 for); a batch counts each new event, duplicates none. */
  eventsAccepted(count: number): void;
}

/** Registers the API's metrics on `registry`; the backlog gauges run `backlog` when scraped. */
export function createApiMetrics(registry: Registry, backlog: IngestBacklogQuery): ApiMetrics {
  const requestDuration = new Histogram({
    name: `${metricPrefix}http_request_duration_seconds`,
    help: 'HTTP requests the API answered, by method, route pattern and status, and how long they took',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const accepted = new Counter({
    name: `${metricPrefix}ingest_events_accepted_total`,
    help: 'Events accepted by POST /v1/in/{inboundKey} (answered 202); a batch counts each new event',
    registers: [registry],
  });

  // Both gauges come from one query per scrape (the registry collects them together: the second reuses the first's
  // query). A failed query reports NaN, so the rest of the scrape is still served.
  let reading: Promise<IngestBacklog> | undefined;
  const read = () =>
    (reading ??= backlog()
      .catch(() => ({ rows: Number.NaN, oldestAgeSeconds: Number.NaN }))
      .finally(() => (reading = undefined)));
  const backlogGauge = (name: string, help: string, pick: (backlog: IngestBacklog) => number) =>
    new Gauge({
      name: `${metricPrefix}${name}`,
      help,
      registers: [registry],
      async collect() {
        this.set(pick(await read()));
      },
    });
  backlogGauge('ingest_backlog_events', 'Accepted inbound events whose processing has not started yet', (b) => b.rows);
  backlogGauge(
    'ingest_backlog_oldest_age_seconds',
    'Age of the oldest accepted inbound event whose processing has not started yet (0 when none)',
    (b) => b.oldestAgeSeconds,
  );

  return {
    observeRequest: ({ method, route, status }, seconds) => requestDuration.observe({ method, route, status: String(status) }, seconds),
    eventsAccepted: (count) => accepted.inc(count),
  };
}

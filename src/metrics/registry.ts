import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every metric this service defines starts with this, the default process metrics included. */
export const metricPrefix = 'richpush_';

/**
 * A process's own registry (never prom-client's global one), with the default process metrics (CPU, memory, heap,
 * event-loop lag, GC, handles) under `richpush_`. A process that serves no metrics passes none, and its metrics are
 * counted on a private registry that nothing reads.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: metricPrefix });
  return registry;
}

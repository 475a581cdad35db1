import { Counter, type Registry } from 'prom-client';
import type { AttemptOutcome } from '../persistence/entities/delivery-attempt.ts';
import type { InboundEventStatus } from '../persistence/entities/inbound-event.ts';
import { metricPrefix } from './registry.ts';

/** The worker's metrics, as the activities and domain functions that count them see them. */
export interface WorkerMetrics {
  /** An inbound event reached this status (IGNORED, HELD, PROCESSED, EXPIRED, FAILED). */
  eventProcessed(status: InboundEventStatus): void;
  /** A delivery attempt was made and recorded, with this outcome. */
  deliveryAttempt(outcome: AttemptOutcome): void;
}

/** Registers the worker's metrics on `registry`. */
export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const processed = new Counter({
    name: `${metricPrefix}ingest_events_processed_total`,
    help: 'Inbound events the worker moved to a status: IGNORED, HELD, PROCESSED, EXPIRED or FAILED',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: `${metricPrefix}delivery_attempts_total`,
    help: 'Webhook delivery attempts recorded, by outcome: delivered, retry, gone, rejected or error (no answer)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    eventProcessed: (status) => processed.inc({ status }),
    deliveryAttempt: (outcome) => attempts.inc({ outcome }),
  };
}

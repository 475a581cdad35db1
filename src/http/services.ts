import type { Client, Connection } from '@temporalio/client';
import type { DeliverySettings } from '../domain/deliveries/delivery-settings.ts';
import type { InboundConnections } from '../domain/ingest/inbound-connections.ts';
import type { Logger } from '../logger.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import type { IngestRateLimiter, RateLimit } from '../persistence/ingest-rate-limiter.ts';
import type { CoalescedWake } from '../outbox/coalesced-wake.ts';
import type { Orm } from '../persistence/orm.ts';
import type { AllowList, Resolve } from '../security/ip-policy.ts';
import type { SecretBox } from '../security/secret-box.ts';

/** What the API needs from the outside world; built once at start and shared by every request. */
export interface ApiServices {
  orm: Orm;
  /** The pool of the routes marked `interactive` (recording-job steps), apart from `orm` (decision 103). */
  interactiveOrm: Orm;
  temporal: { client: Client; connection: Connection; taskQueue: string; interactiveTaskQueue: string };
  adminToken: string;
  logger: Logger;
  secrets: SecretBox;
  delivery: DeliverySettings;
  /** Checks endpoint URLs against the address policy. */
  outbound: { allow: AllowList; resolve: Resolve };
  ingest: {
    rateLimiter: IngestRateLimiter;
    /** Connections by inbound key, cached for a second; connection routes forget the one they change. */
    connections: InboundConnections;
    defaultRateLimit: RateLimit;
    /** Wakes the ingest relays after accepted rows commit, at most once per 20 ms per instance. */
    wakeRelay: CoalescedWake;
    /** Public base of inbound URLs; the request's own origin when unset. */
    baseUrl: string | undefined;
  };
  /** Request durations and accepted events, served by the process's metrics listener (when it has one). */
  metrics: ApiMetrics;
}

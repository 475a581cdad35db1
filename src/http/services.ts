import type { Client, Connection } from '@temporalio/client';
import type { DeliverySettings } from '../domain/deliveries/delivery-settings.ts';
import type { FileSettings } from '../domain/files/file-deps.ts';
import type { InboundConnections } from '../domain/ingest/inbound-connections.ts';
import type { Logger } from '../logger.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import type { RateLimit, RateLimiter } from '../persistence/rate-limiter.ts';
import type { CoalescedWake } from '../outbox/coalesced-wake.ts';
import type { Orm } from '../persistence/orm.ts';
import type { AllowList, Resolve } from '../security/ip-policy.ts';
import type { SecretBox } from '../security/secret-box.ts';

/** What the API needs from the outside world; built once at start and shared by every request. */
export interface ApiServices {
  orm: Orm;
  /** The pool of the routes marked `interactive` (recording-job steps), apart from `orm` (docs/adr/0045-the-job-routes-have-a-postgres-pool-of-their-own.md). */
  interactiveOrm: Orm;
  temporal: { client: Client; connection: Connection; taskQueue: string; interactiveTaskQueue: string };
  adminToken: string;
  logger: Logger;
  secrets: SecretBox;
  delivery: DeliverySettings;
  /** PUBLIC_URL: the start of the links the API hands out (no trailing slash). */
  publicUrl: string;
  /** ARTIST_LINK_GRACE_HOURS: how long an artist's link outlives its job's artistDueDate. */
  artistLinkGraceHours: number;
  /** Checks endpoint URLs against the address policy. */
  outbound: { allow: AllowList; resolve: Resolve };
  /**
   * The management API's limit (API_RATE_LIMIT_PER_SECOND, _BURST): per account on the API-key routes, per admin
   * token on the admin routes, counted in Postgres by every instance (src/http/rate-limit.ts).
   */
  apiRateLimit: {
    limiter: RateLimiter;
    limit: RateLimit;
    /** The admin routes' key: a keyed hash of ADMIN_TOKEN, never the token (src/http/rate-limit.ts). */
    adminKey: string;
  };
  ingest: {
    rateLimiter: RateLimiter;
    /** Connections by inbound key, cached for a second; connection routes forget the one they change. */
    connections: InboundConnections;
    defaultRateLimit: RateLimit;
    /** Wakes the ingest relays after accepted rows commit, at most once per 20 ms per instance. */
    wakeRelay: CoalescedWake;
    /** Public base of inbound URLs; the request's own origin when unset. */
    baseUrl: string | undefined;
  };
  /** The console's build, served at /console (src/http/console-pages.ts); built by `npm start` or the image, never here. */
  consoleDir: string;
  /** The Temporal UI (TEMPORAL_UI_URL, no trailing slash) and the namespace, for the console's links to runs; null when unset. */
  temporalUi: { url: string; namespace: string } | null;
  /** Request durations and accepted events, served by the process's metrics listener (when it has one). */
  metrics: ApiMetrics;
  /** Recording files: the storage uploads stream into, their limits, and whether they can be processed. */
  files: FileSettings;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { RateLimit, RateLimiter } from '../../persistence/rate-limiter.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { InboundConnections } from './inbound-connections.ts';

export interface IngestDeps {
  em: EntityManager;
  temporal: { client: Client; taskQueue: string };
  secrets: SecretBox;
  rateLimiter: RateLimiter;
  /** This instance's cache of connections by inbound key. */
  connections: InboundConnections;
  /** Wakes the ingest relays once accepted rows are committed (coalesced; the relays' poll is the fallback). */
  wakeRelay: () => void;
  /** INGEST_RATE_LIMIT_PER_SECOND / _BURST: the limit of a connection whose eventConfig sets none. */
  defaultRateLimit: RateLimit;
}

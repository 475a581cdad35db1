import type { DeliverySettings } from '../src/domain/deliveries/delivery-settings.ts';
import type { RetentionPolicy } from '../src/domain/files/delete-expired-files.ts';
import type { Logger } from '../src/logger.ts';
import type { MediaSupport, RecordingLimits } from '../src/media/index.ts';
import type { WorkerMetrics } from '../src/metrics/worker-metrics.ts';
import type { OutboundHttpClient } from '../src/outbound/http-client.ts';
import type { PushProvider } from '../src/outbound/push/push-provider.ts';
import type { Orm } from '../src/persistence/orm.ts';
import type { SecretBox } from '../src/security/secret-box.ts';
import type { ObjectStorage } from '../src/storage/index.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';

/** Everything an activity may touch from outside. Tests pass real or fake ones. */
export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  http: OutboundHttpClient;
  secrets: SecretBox;
  /** A client for starting and signalling runs from an activity (routing starts experience runs; linking releases held events). */
  temporal: TemporalAccess;
  delivery: DeliverySettings;
  /** PUBLIC_URL: the start of the links the worker hands out (an artist's link in `job.assigned`). */
  publicUrl: string;
  /** ARTIST_LINK_GRACE_HOURS: how long an artist's link outlives its job's artistDueDate. */
  artistLinkGraceHours: number;
  /** Sends pushes: the provider PUSH_PROVIDER names (log by default). */
  push: PushProvider;
  /** Events processed and delivery attempts, served by the worker's metrics listener (when it has one). */
  metrics: WorkerMetrics;
  /** Recording files: where they are kept, and what processes them. */
  files: WorkerFileSettings;
}

export interface WorkerFileSettings {
  storage: ObjectStorage;
  /** This worker's ffmpeg, or why it has none (processing then fails, to be retried, until a worker has one). */
  media: MediaSupport;
  limits: RecordingLimits;
  /** A local folder for the copies processing works on. */
  scratchDir: string;
  /** Files processed at once by this worker: each takes a core while ffmpeg runs. */
  processingSlots: number;
  retention: RetentionPolicy;
}

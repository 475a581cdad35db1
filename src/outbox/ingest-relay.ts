import { inboundEventsChannel } from '../persistence/outbox-channels.ts';
import { createIngestRelay } from './ingest-batches.ts';
import type { Logger } from '../logger.ts';
import type { Orm } from '../persistence/orm.ts';
import type { TemporalAccess } from '../temporal/temporal-access.ts';
import { startRelayLoop, type RunningRelay } from './relay-loop.ts';

/** INGEST_RELAY_*: how the worker's ingest relay moves accepted events from the outbox into `ingestBatch` runs. */
export interface IngestRelaySettings {
  batchSize: number;
  chunkSize: number;
  lanes: number;
  pollIntervalMs: number;
  /** After a batch is relayed, a lane waits this long before it claims again, so that under load batches fill up. */
  lingerMs: number;
}

export const defaultIngestRelaySettings: IngestRelaySettings = { batchSize: 200, chunkSize: 25, lanes: 2, pollIntervalMs: 1000, lingerMs: 100 };

export interface IngestRelayOptions {
  databaseUrl: string;
  orm: Orm;
  temporal: TemporalAccess;
  settings: IngestRelaySettings;
  logger: Logger;
}

/**
 * The ingest relay of a worker process: woken by the NOTIFY an API instance sends after its inserts commit (decision
 * 92), polling as a fallback, it claims accepted events of its task queue into a batch and starts the batch's
 * `ingestBatch` run. INGEST_RELAY_LANES=0 runs none in this worker (another process relays). An event that comes
 * alone is claimed at once; while events keep coming, a lane lingers `lingerMs` after each batch it relayed, so
 * batches grow with the load and the per-batch cost (a claim, a run, its workflow tasks) is shared by more events.
 */
export function startIngestRelay(options: IngestRelayOptions): RunningRelay {
  const { settings } = options;
  if (settings.lanes === 0) return { wake: () => undefined, stop: async () => undefined };
  return startRelayLoop({
    name: 'ingest',
    databaseUrl: options.databaseUrl,
    channel: inboundEventsChannel,
    relayBatch: createIngestRelay({ em: () => options.orm.em.fork(), temporal: options.temporal }, settings),
    pollIntervalMs: settings.pollIntervalMs,
    lanes: settings.lanes,
    lingerMs: settings.lingerMs,
    logger: options.logger,
  });
}

import type { DeliverySettings } from '../domain/deliveries/delivery-settings.ts';
import { deliveryOutboxChannel } from '../persistence/outbox-channels.ts';
import { relayDeliveryBatch, restartStalledBatch } from './delivery-batches.ts';
import type { Logger } from '../logger.ts';
import type { Orm } from '../persistence/orm.ts';
import type { TemporalAccess } from '../temporal/temporal-access.ts';
import { startRelayLoop, type RunningRelay } from './relay-loop.ts';

/** How the delivery relay claims and starts batches (DELIVERY_BATCH_MAX, DELIVERY_RELAY_LANES, …). */
export interface DeliveryRelaySettings {
  /** Deliveries one run sends at most. */
  batchMax: number;
  /** Batches claimed and started side by side. */
  lanes: number;
  pollIntervalMs: number;
  /** A batch claimed this long ago and never marked started is started again (its relay died in between). */
  recoverAfterMs: number;
  /**
   * Under load only (the last claim found deliveries), wait this long before the next claim, so that batches fill:
   * fewer, larger runs. A claim after an idle spell never waits, so one event alone is sent at once.
   */
  lingerMs: number;
}

export const defaultDeliveryRelaySettings: DeliveryRelaySettings = { batchMax: 50, lanes: 2, pollIntervalMs: 1_000, recoverAfterMs: 10_000, lingerMs: 20 };

export interface DeliveryRelayOptions {
  databaseUrl: string;
  orm: Orm;
  temporal: TemporalAccess;
  delivery: DeliverySettings;
  settings: DeliveryRelaySettings;
  logger: Logger;
}

/**
 * The delivery relay of a worker process: woken by the NOTIFY of a publish (or its poll), it claims whatever is
 * pending for its task queue into a batch and starts the batch's `deliverBatch` run. One event in flight is claimed
 * and started alone, at once; under load, rows pile up while a lane starts a run (and lingers `lingerMs`), so batches
 * grow with the load.
 * About once per recovery period, a lane also restarts a batch whose relay died between claim and start.
 */
export function startDeliveryRelay(options: DeliveryRelayOptions): RunningRelay {
  const { settings } = options;
  const deps = () => ({ em: options.orm.em.fork(), temporal: options.temporal, delivery: options.delivery });
  let nextRecovery = 0;
  return startRelayLoop({
    name: 'deliveries',
    databaseUrl: options.databaseUrl,
    channel: deliveryOutboxChannel,
    pollIntervalMs: settings.pollIntervalMs,
    lanes: settings.lanes,
    lingerMs: settings.lingerMs,
    logger: options.logger,
    async relayBatch() {
      if (Date.now() >= nextRecovery) {
        nextRecovery = Date.now() + Math.min(settings.recoverAfterMs, settings.pollIntervalMs * 5);
        // A batch that cannot be started must not hold up new ones: its failure is logged, and it is tried again
        // at a later pass (the attempt moved its claim time, so other stalled batches get their turn first). A
        // warning, as for any failed batch: it is retried, and Postgres or Temporal being away (a Ctrl-C reaches
        // the embedded servers first) fails it for as long as they are.
        const restarted = await restartStalledBatch(deps(), settings.recoverAfterMs).catch((error: unknown) => {
          options.logger.warn({ err: error }, 'restarting a stalled delivery batch failed; it stays claimed and is tried again later');
          return 0;
        });
        if (restarted > 0) {
          options.logger.warn({ deliveries: restarted }, 'restarted a delivery batch whose relay stopped between claim and start');
          return restarted;
        }
      }
      return relayDeliveryBatch(deps(), settings.batchMax);
    },
  });
}

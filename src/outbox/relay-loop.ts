import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * The engine of an outbox relay. A request commits its rows and answers at once, and `pg_notify(channel)` tells the
 * relays (in the committing transaction, which Postgres delivers only at commit, or after it, as the ingest API does
 * with `createCoalescedWake`); a relay then moves those rows on, here by starting their
 * Temporal runs. This loop owns only the "when": it calls `relayBatch` again and again while it finds work, wakes on a
 * NOTIFY or on the poll timer (which also catches a notification sent while the listener was reconnecting, and rows
 * of a crashed relay), and backs off while the database or Temporal fails. What a batch is, how it is claimed
 * (`FOR UPDATE SKIP LOCKED`, so any number of relays can run side by side) and how it is started, is the caller's.
 */
export interface RelayLoopOptions {
  /** For log lines and the listener's application_name. */
  name: string;
  /** The LISTEN connection's: a session of its own, so a direct connection, never PgBouncer in transaction mode. */
  databaseUrl: string;
  /** The NOTIFY channel writers signal after inserting rows. */
  channel: string;
  /** Claims and relays one batch; resolves to the number of rows it moved (0: nothing to do now). */
  relayBatch: () => Promise<number>;
  /** Polls this often even without a NOTIFY. */
  pollIntervalMs: number;
  /** Batches relayed side by side (each claims disjoint rows). Default 1. */
  lanes?: number;
  /**
   * After a batch that moved rows, the lane waits this long before it looks again (a NOTIFY does not cut the wait
   * short), so that under load rows pile up and batches grow; a row that comes alone is still taken at once. Default 0.
   */
  lingerMs?: number;
  logger: Logger;
}

export interface RunningRelay {
  /** Asks the loop to look for work now (a writer in the same process may call it instead of NOTIFY). */
  wake: () => void;
  /** Stops claiming, waits for the batches in flight and closes the listener. */
  stop: () => Promise<void>;
}

const maxBackoffMs = 5_000;

export function startRelayLoop(options: RelayLoopOptions): RunningRelay {
  const log = options.logger.child({ component: 'outbox-relay', relay: options.name });
  let stopped = false;
  /** The lanes asleep, each by the function that wakes it; a wake takes one, so that one claim answers one NOTIFY. */
  const sleeping = new Set<() => void>();
  let pendingWake = false;
  const wake = () => {
    pendingWake = true;
    // Any lane asleep, whatever the others do: one lingering after its last batch must not hold up a row that
    // comes alone (with one wake-up slot shared by the lanes, it did, for up to lingerMs).
    const [first] = sleeping;
    first?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (pendingWake || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleeping.delete(done);
        resolve();
      }
      sleeping.add(done);
    });

  const listener = listenFor(options, log, wake, () => stopped);

  const lane = async () => {
    let failures = 0;
    while (!stopped) {
      pendingWake = false;
      try {
        const moved = await options.relayBatch();
        failures = 0;
        if (moved > 0) {
          if (options.lingerMs) await new Promise((resolve) => setTimeout(resolve, options.lingerMs));
          continue;
        }
      } catch (error) {
        failures += 1;
        const delay = Math.min(options.pollIntervalMs * 2 ** failures, maxBackoffMs);
        log.warn({ err: error, failures, retryInMs: delay }, 'relaying a batch failed; its rows stay in the outbox');
        await new Promise((resolve) => setTimeout(resolve, delay));
        continue;
      }
      await sleep(options.pollIntervalMs);
    }
  };
  const lanes = Promise.all(Array.from({ length: options.lanes ?? 1 }, lane));

  return {
    wake,
    async stop() {
      stopped = true;
      for (const done of [...sleeping]) done();
      await lanes;
      await listener.close();
    },
  };
}

/** A dedicated connection that LISTENs on the channel and reconnects after it is lost. */
function listenFor(options: RelayLoopOptions, log: Logger, onNotify: () => void, isStopped: () => boolean) {
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (isStopped()) return;
    const next = new pg.Client({ connectionString: options.databaseUrl, application_name: `relay:${options.name}` });
    next.on('notification', onNotify);
    next.on('error', (error) => {
      log.warn({ err: error }, 'relay listener lost its connection; polling until it is back');
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(options.channel)}`);
      if (isStopped()) return void (await next.end());
      client = next;
      // Rows committed while no one was listening are picked up now rather than at the next poll.
      onNotify();
    } catch (error) {
      log.warn({ err: error }, 'relay listener could not connect; polling until it can');
      await next.end().catch(() => undefined);
      schedule();
    }
  };
  const schedule = () => {
    if (isStopped() || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1_000);
  };
  void connect();
  return {
    async close() {
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}

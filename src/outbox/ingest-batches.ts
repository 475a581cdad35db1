import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../security/ids.ts';
import type { TemporalAccess } from '../temporal/temporal-access.ts';
import { ingestBatchWorkflowId, maxIngestBatchSize } from '../../workflows/ingest-batch.contract.ts';
import { startIngestBatch } from '../temporal/starters/ingest-batch.ts';

export interface IngestRelayOptions {
  /** Events claimed per batch (one `ingestBatch` run). */
  batchSize: number;
  /** Events per activity within a batch. */
  chunkSize: number;
}

interface ClaimedRow {
  id: string;
  account_id: string;
  client_user_id: string | null;
}

/**
 * A batch claimed but not started this long ago belongs to a relay that crashed or could not reach Temporal; any
 * relay restarts it (under the same id, so at most one run ever exists for it).
 */
const orphanAfterSeconds = 5;
const orphanCheckEveryMs = 1_000;

/**
 * Claims are serialised across every relay (a transaction-scoped advisory lock, held for one statement) so that the
 * "no older event of this person is still in flight" check sees every other claim; the starts run side by side.
 */
const claimLock = 'ingest-relay-claim';

/**
 * Claims up to `batchSize` unrelayed events of one task queue, oldest first, and writes a new batch id on them in one transaction:
 * `FOR UPDATE SKIP LOCKED` lets any number of relays run side by side without claiming a row twice. A person's event
 * waits while an older event of the same person is claimed and still RECEIVED (being processed by another batch),
 * so a person's events are processed in their order of arrival.
 */
const claimSql = `with picked as (
  select e.id from inbound_events e
  where e.workflow_started_at is null and e.relay_batch_id is null and e.task_queue = ?
    and (e.client_user_id is null or not exists (
      select 1 from inbound_events o
      where o.account_id = e.account_id and o.client_user_id = e.client_user_id and o.status = 'RECEIVED'
        and o.relay_batch_id is not null and (o.created_at, o.id) < (e.created_at, e.id)))
  order by e.created_at, e.id
  limit ?
  for update skip locked
), claimed as (
  update inbound_events set relay_batch_id = ?, relay_claimed_at = now(), workflow_id = ?
  from picked where inbound_events.id = picked.id
  returning inbound_events.id, inbound_events.account_id, inbound_events.client_user_id, inbound_events.created_at
)
select id, account_id, client_user_id from claimed order by created_at, id`;

/**
 * One step of the ingest relay (run by `startRelayLoop`): restarts one orphaned batch if there is one, otherwise
 * claims a new batch and starts its `ingestBatch` run, then marks its rows relayed (`workflow_started_at`). Returns
 * the number of events relayed (0: nothing to do). Throws when Postgres or Temporal fails; the claimed rows keep
 * their batch id, and the next step (of this relay, or of any other after `orphanAfterSeconds`) starts them again.
 */
export function createIngestRelay(deps: { em: () => EntityManager; temporal: TemporalAccess }, options: IngestRelayOptions) {
  const batchSize = Math.min(options.batchSize, maxIngestBatchSize);
  /** Batches this relay claimed and failed to start: retried before anything new is claimed. */
  const unstarted: string[] = [];

  /** Every so often, not at every step: a claim that looks for orphans first costs one event alone a round trip. */
  let nextOrphanCheckAt = 0;

  /** Starts the batch's run with its rows in order of arrival (as claimed, or read back) and marks them relayed. */
  const start = async (em: EntityManager, batchId: string, claimed?: ClaimedRow[]): Promise<number> => {
    const rows =
      claimed ??
      (await em.execute<ClaimedRow[]>('select id, account_id, client_user_id from inbound_events where relay_batch_id = ? order by created_at, id', [batchId]));
    if (rows.length === 0) return 0;
    await startIngestBatch(deps.temporal, { version: 1, batchId, groups: groupsOf(rows), chunkSize: options.chunkSize });
    await em.execute('update inbound_events set workflow_started_at = now() where relay_batch_id = ? and workflow_started_at is null', [batchId]);
    return rows.length;
  };

  return async function relayBatch(): Promise<number> {
    const em = deps.em();
    const own = unstarted[0];
    if (own !== undefined) {
      const moved = await start(em, own);
      unstarted.shift();
      return Math.max(moved, 1);
    }
    if (Date.now() >= nextOrphanCheckAt) {
      const [orphan] = await em.execute<Array<{ relay_batch_id: string }>>(
        `select relay_batch_id from inbound_events where workflow_started_at is null and relay_batch_id is not null
           and task_queue = ? and relay_claimed_at < now() - interval '${orphanAfterSeconds} seconds' limit 1`,
        [deps.temporal.taskQueue],
      );
      if (orphan) return Math.max(await start(em, orphan.relay_batch_id), 1);
      nextOrphanCheckAt = Date.now() + orphanCheckEveryMs;
    }

    const { batchId, rows } = await claimInboundBatch(em, deps.temporal.taskQueue, batchSize);
    if (rows.length === 0) return 0;
    try {
      return await start(em, batchId, rows);
    } catch (error) {
      unstarted.push(batchId);
      throw error;
    }
  };
}

/** Claims one batch of `taskQueue`'s events (see claimSql), in order of arrival, in its own transaction; not started yet. */
export async function claimInboundBatch(em: EntityManager, taskQueue: string, batchSize: number): Promise<{ batchId: string; rows: ClaimedRow[] }> {
  const batchId = newId('ibt_');
  const rows = await em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [claimLock]);
    return tx.execute<ClaimedRow[]>(claimSql, [taskQueue, Math.min(batchSize, maxIngestBatchSize), batchId, ingestBatchWorkflowId(batchId)]);
  });
  return { batchId, rows };
}

/** The claimed events (in order of arrival), one group per person; the groups in the order of their first event. */
function groupsOf(rows: ClaimedRow[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const row of rows) {
    const key = row.client_user_id ? `${row.account_id}:${row.client_user_id}` : row.id;
    groups.set(key, [...(groups.get(key) ?? []), row.id]);
  }
  return [...groups.values()];
}

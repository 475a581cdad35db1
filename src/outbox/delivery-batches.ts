import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../security/ids.ts';
import type { TemporalAccess } from '../temporal/temporal-access.ts';
import { deliveryBatchWorkflowId, type BatchedDelivery } from '../../workflows/deliver-batch.contract.ts';
import { startDeliveryBatch } from '../temporal/starters/deliver-batch.ts';
import { retryOf, type DeliverySettings } from '../domain/deliveries/delivery-settings.ts';

export interface RelayDeps {
  em: EntityManager;
  /** The relay sends the deliveries published for this task queue, and starts their runs on it. */
  temporal: TemporalAccess;
  delivery: DeliverySettings;
}

export interface ClaimedBatch {
  batchId: string;
  deliveries: BatchedDelivery[];
}

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  event_type: string;
}

const byId = (a: DeliveryRow, b: DeliveryRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const toBatched = (rows: DeliveryRow[]): BatchedDelivery[] =>
  rows.sort(byId).map((row) => ({ deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id, eventType: row.event_type }));

/**
 * Claims up to `limit` pending, unclaimed deliveries of the task queue, oldest first, into a new batch: in one
 * statement (so one commit) it records the batch, and gives each row the batch id and the run's workflow id.
 * `SKIP LOCKED` lets relays claim side by side, each taking other rows. Answers undefined when nothing is pending.
 */
export function claimDeliveryBatch(em: EntityManager, taskQueue: string, limit: number): Promise<ClaimedBatch | undefined> {
  return claimInto(em, { taskQueue, limit, leaseMs: 0 });
}

/**
 * Claims those of the given deliveries that are still pending and unclaimed into a new batch, as the relay would, for
 * a caller that sends them itself (`deliverImmediately`), in the run `sentBy` names, which becomes their workflow id. The
 * claim counts from `leaseMs` ahead, so the relay's recovery restarts the batch only if it is neither settled nor
 * started within that time and its recovery period after.
 */
export async function claimDeliveriesById(
  em: EntityManager,
  claim: { taskQueue: string; deliveryIds: string[]; leaseMs: number; sentBy: string },
): Promise<ClaimedBatch | undefined> {
  if (claim.deliveryIds.length === 0) return undefined;
  return claimInto(em, { taskQueue: claim.taskQueue, limit: claim.deliveryIds.length, leaseMs: claim.leaseMs, onlyIds: claim.deliveryIds, sentBy: claim.sentBy });
}

async function claimInto(
  em: EntityManager,
  claim: { taskQueue: string; limit: number; leaseMs: number; onlyIds?: string[]; sentBy?: string },
): Promise<ClaimedBatch | undefined> {
  const batchId = newId('dbt_');
  const which = claim.onlyIds ? ` and id in (${claim.onlyIds.map(() => '?').join(', ')})` : '';
  const rows = await em.execute<DeliveryRow[]>(
    `with claimed as (
       select id from deliveries
        where batch_id is null and status = 'pending' and task_queue = ?${which}
        order by created_at limit ? for update skip locked
     ), batch as (
       insert into delivery_batches (id, task_queue, claimed_at)
       select ?, ?, now() + make_interval(secs => ?) where exists (select 1 from claimed)
     )
     update deliveries d set batch_id = ?, workflow_id = ?
       from claimed, outbound_events e
      where d.id = claimed.id and e.id = d.event_id
     returning d.id, d.event_id, d.endpoint_id, e.type as event_type`,
    [
      claim.taskQueue,
      ...(claim.onlyIds ?? []),
      claim.limit,
      batchId,
      claim.taskQueue,
      claim.leaseMs / 1000,
      batchId,
      claim.sentBy ?? deliveryBatchWorkflowId(batchId),
    ],
  );
  return rows.length === 0 ? undefined : { batchId, deliveries: toBatched(rows) };
}

/**
 * Starts the run of a claimed batch, then marks the batch started. Starting it again is harmless (the start is
 * idempotent), so a batch whose relay died between its claim and this mark is simply started again.
 */
export async function startClaimedBatch(deps: RelayDeps, batch: ClaimedBatch): Promise<void> {
  await startDeliveryBatch(deps.temporal, { version: 1, batchId: batch.batchId, deliveries: batch.deliveries, retry: retryOf(deps.delivery) });
  await markBatchStarted(deps.em, batch.batchId);
}

/** No recovery starts the batch's run from now on: it is started, or what it held was settled without one. */
export async function markBatchStarted(em: EntityManager, batchId: string): Promise<void> {
  await em.execute('update delivery_batches set started_at = now() where id = ?', [batchId]);
}

/**
 * Gives what is still pending in the batch to the batch's own run, by naming that run on it (a batch claimed for a
 * first attempt made immediately names the run that made it, `deliverImmediately`), and answers every delivery of the batch.
 */
export async function assignPendingToBatchRun(em: EntityManager, batchId: string): Promise<BatchedDelivery[]> {
  const rows = await em.execute<DeliveryRow[]>(
    `update deliveries d set workflow_id = case when d.status = 'pending' then ? else d.workflow_id end
       from outbound_events e where d.batch_id = ? and e.id = d.event_id
     returning d.id, d.event_id, d.endpoint_id, e.type as event_type`,
    [deliveryBatchWorkflowId(batchId), batchId],
  );
  return toBatched(rows);
}

/**
 * A batch claimed more than `olderThanMs` ago and never marked started: its relay died between the claim and the
 * start (or the start failed). Takes one such batch (bumping its claim time, so no other relay takes it meanwhile)
 * with its deliveries, to start it again.
 */
export async function reclaimStalledBatch(em: EntityManager, taskQueue: string, olderThanMs: number): Promise<ClaimedBatch | undefined> {
  const [stalled] = await em.execute<Array<{ id: string }>>(
    `update delivery_batches set claimed_at = now()
      where id = (select id from delivery_batches
                   where task_queue = ? and started_at is null and claimed_at < now() - make_interval(secs => ?)
                   order by claimed_at limit 1 for update skip locked)
      returning id`,
    [taskQueue, olderThanMs / 1000],
  );
  if (!stalled) return undefined;
  return { batchId: stalled.id, deliveries: await assignPendingToBatchRun(em, stalled.id) };
}

/**
 * One step of the delivery relay: claims a batch of what is pending and starts its run. Answers how many
 * deliveries it moved (0: nothing pending).
 */
export async function relayDeliveryBatch(deps: RelayDeps, batchSize: number): Promise<number> {
  const batch = await claimDeliveryBatch(deps.em, deps.temporal.taskQueue, batchSize);
  if (!batch) return 0;
  await startClaimedBatch(deps, batch);
  return batch.deliveries.length;
}

/** Starts again one batch whose relay died after claiming it; answers how many deliveries it moved. */
export async function restartStalledBatch(deps: RelayDeps, olderThanMs: number): Promise<number> {
  const batch = await reclaimStalledBatch(deps.em, deps.temporal.taskQueue, olderThanMs);
  if (!batch) return 0;
  await startClaimedBatch(deps, batch);
  return batch.deliveries.length;
}

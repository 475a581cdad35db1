import { attemptDelivery, type AttemptDeps, type AttemptResult } from '../domain/deliveries/attempt-delivery.ts';
import { finishDelivery } from '../domain/deliveries/finish-delivery.ts';
import type { Logger } from '../logger.ts';
import { wakeDeliveryRelays } from '../persistence/outbox-channels.ts';
import type { BatchedDelivery } from '../../workflows/deliver-batch.contract.ts';
import { assignPendingToBatchRun, claimDeliveriesById, markBatchStarted, startClaimedBatch, type ClaimedBatch } from './delivery-batches.ts';

/** More deliveries than this from one caller go to the relay, which batches them into runs with others. */
export const immediateDeliveryMax = 8;
/**
 * How long the immediate attempts may take, all of them together: an endpoint slower than this has its attempt
 * aborted (and recorded) and is left to a batch run, so a slow receiver never holds up the routing that called.
 */
export const immediateDeliveryBudgetMs = 2_000;

export interface ImmediateDeliveryDeps extends AttemptDeps {
  logger: Logger;
  /** Aborts the attempts in flight (the calling activity is cancelled). */
  signal?: AbortSignal | undefined;
}

/**
 * Sends deliveries its caller has just committed to the outbox without waking the relay (`takeDeliveries`), once
 * each, immediately, from where the caller runs: an experience's action reaches its receiver without a `deliverBatch` run's start
 * and workflow task in between (ADR 0027). A delivery is claimed first, into a batch of its own, as the relay would
 * claim it, so the relay never sends it too. What the attempt does not settle (the receiver failed, or answered too
 * slowly) goes on in the batch's `deliverBatch` run, which is started for those deliveries alone and retries them on
 * the usual schedule; if this process dies in between, the relay's recovery starts the run for the whole batch
 * (`claimDeliveriesById`'s lease), and a run finds a delivered row delivered and does not send it again.
 *
 * More than `immediateDeliveryMax` deliveries, a cancelled caller, or any failure here, leave everything to the relay, which
 * this wakes: the rows are committed, so nothing is lost, only sent a batch run later. `sentBy` names the run the
 * caller is part of: a delivery's workflow id while this sends it, and after, if this settled it.
 */
export async function deliverImmediately(deps: ImmediateDeliveryDeps, deliveryIds: string[], sentBy: string): Promise<void> {
  const unique = [...new Set(deliveryIds)];
  if (unique.length === 0) return;
  try {
    // A cancelled caller (a worker shutting down) makes no attempt that would only be cut short and logged.
    if (unique.length > immediateDeliveryMax || deps.signal?.aborted) return void (await wakeDeliveryRelays(deps.em));
    const batch = await claimDeliveriesById(deps.em, { taskQueue: deps.publish.temporal.taskQueue, deliveryIds: unique, leaseMs: immediateDeliveryBudgetMs, sentBy });
    if (batch) await attemptBatch(deps, batch);
  } catch (error) {
    deps.logger.warn({ err: error, deliveries: unique.length }, 'sending deliveries immediately failed; the relay sends them');
    await wakeDeliveryRelays(deps.em).catch(() => undefined);
  }
}

async function attemptBatch(deps: ImmediateDeliveryDeps, batch: ClaimedBatch): Promise<void> {
  const abort = new AbortController();
  const stop = () => abort.abort(deps.signal?.reason);
  const timer = setTimeout(() => abort.abort(new DOMException(`no answer within the ${immediateDeliveryBudgetMs} ms of a first attempt made immediately`, 'TimeoutError')), immediateDeliveryBudgetMs);
  deps.signal?.addEventListener('abort', stop, { once: true });
  let results: AttemptResult[];
  try {
    results = await Promise.all(
      batch.deliveries.map(({ deliveryId }) => {
        const em = deps.em.fork();
        return attemptDelivery({ ...deps, em, publish: { ...deps.publish, em } }, { deliveryId, attemptNumber: 1, signal: abort.signal }).catch(
          // Not an answer of the receiver (the database failed): the batch run tries it.
          (error: unknown): AttemptResult => ({ kind: 'retry', reason: error instanceof Error ? error.message : String(error) }),
        );
      }),
    );
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', stop);
  }

  const unsettled: BatchedDelivery[] = [];
  for (const [index, result] of results.entries()) {
    const delivery = batch.deliveries[index]!;
    if (result.kind === 'retry') unsettled.push(delivery);
    else if (result.kind !== 'delivered') await finishDelivery(deps.em.fork(), { deliveryId: delivery.deliveryId, status: 'failed', reason: result.reason });
  }
  // Nothing left for a run: no recovery is to start one.
  if (unsettled.length === 0) return markBatchStarted(deps.em, batch.batchId);
  // What is left is the batch run's from now on, and names it before it starts (a crash in between: the recovery
  // starts that run).
  await assignPendingToBatchRun(deps.em, batch.batchId);
  await startClaimedBatch({ ...deps.publish, em: deps.em.fork() }, { batchId: batch.batchId, deliveries: unsettled });
}

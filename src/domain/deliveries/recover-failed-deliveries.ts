import { Delivery } from '../../persistence/entities/delivery.ts';
import { wakeDeliveryRelays } from '../../persistence/outbox-channels.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import { enabledEndpointToRedeliverTo, newRedelivery } from './redeliver.ts';

/** Failed deliveries one recover sends again; the answer says when there were more (call it again). */
export const maxRecoveredAtOnce = 1000;

export interface RecoveredDeliveries {
  deliveries: Delivery[];
  /** Whether more failed deliveries since the time wait for another call. */
  more: boolean;
}

// The later delivery is looked for among the endpoint's own (a redelivery goes to its original's endpoint): indexed.
const failedNotRedeliveredSql = `
select d.id from deliveries d
where d.account_id = ? and d.endpoint_id = ? and d.status = 'failed' and d.created_at >= ?
  and not exists (select 1 from deliveries later where later.endpoint_id = d.endpoint_id and later.redelivery_of = d.id)
order by d.created_at, d.id limit ?`;

/**
 * Sends again every failed delivery to the endpoint made since a time that nothing has redelivered yet: each gets a
 * redelivery of its own (same envelope id), as `redeliver` makes one. A failed redelivery is itself failed and not
 * yet redelivered, so calling it again retries each event once more, never twice at once.
 */
export async function recoverFailedDeliveries(deps: PublishDeps, accountId: string, endpointId: string, since: Date): Promise<RecoveredDeliveries> {
  const endpoint = await enabledEndpointToRedeliverTo(deps, accountId, endpointId);
  const rows = await deps.em.execute<Array<{ id: string }>>(failedNotRedeliveredSql, [accountId, endpoint.id, since, maxRecoveredAtOnce + 1]);
  const failed = rows.length ? await deps.em.find(Delivery, { id: { $in: rows.map((row) => row.id) } }, { orderBy: { createdAt: 'asc', id: 'asc' } }) : [];
  const deliveries = failed.slice(0, maxRecoveredAtOnce).map((original) => newRedelivery(deps, original));
  if (deliveries.length === 0) return { deliveries, more: false };
  await deps.em.flush();
  await wakeDeliveryRelays(deps.em);
  return { deliveries, more: failed.length > maxRecoveredAtOnce };
}

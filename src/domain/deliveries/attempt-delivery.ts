import type { EntityManager } from '@mikro-orm/postgresql';
import { Delivery } from '../../persistence/entities/delivery.ts';
import { DeliveryAttempt, type AttemptOutcome } from '../../persistence/entities/delivery-attempt.ts';
import { Endpoint } from '../../persistence/entities/endpoint.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { OutboundRequestError, type OutboundHttpClient, type OutboundResponse } from '../../outbound/http-client.ts';
import { derivedId } from '../../security/ids.ts';
import type { WorkerMetrics } from '../../metrics/worker-metrics.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { buildWebhookHeaders } from '../../security/standard-webhooks.ts';
import { randomUUID } from 'node:crypto';
import { endpointSigningSecrets } from '../endpoints/active-secrets.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { classifyResponse } from './classify-response.ts';

export interface AttemptDeps {
  em: EntityManager;
  http: OutboundHttpClient;
  secrets: SecretBox;
  publish: PublishDeps;
  /** Counts each attempt made, by outcome, where its row is recorded. */
  metrics: Pick<WorkerMetrics, 'deliveryAttempt'>;
  now?: () => Date;
}

export type AttemptResult =
  | { kind: 'delivered' }
  | { kind: 'gone'; reason: string }
  | { kind: 'rejected'; reason: string }
  | { kind: 'retry'; reason: string; afterMs?: number }
  | { kind: 'endpoint_unavailable'; reason: string };

const describeStatus = (response: OutboundResponse) => `HTTP ${response.status}`;

/**
 * One HTTP attempt of a delivery: signs the stored body with a fresh timestamp, POSTs it, and records the attempt.
 * Keeps the endpoint's failure streak, and disables the endpoint when it answered 410 or when every attempt has
 * failed for `disableAfterHours`, emitting `endpoint.disabled`.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  input: { deliveryId: string; attemptNumber: number; signal?: AbortSignal | undefined },
): Promise<AttemptResult> {
  const { em } = deps;
  const now = deps.now ?? (() => new Date());
  const delivery = await em.findOneOrFail(Delivery, { id: input.deliveryId });
  if (delivery.status === 'succeeded') return { kind: 'delivered' };
  if (delivery.status === 'failed') return { kind: 'rejected', reason: delivery.failureReason ?? 'the delivery already failed' };
  const endpoint = await em.findOneOrFail(Endpoint, { id: delivery.endpointId });
  if (endpoint.deletedAt) return { kind: 'endpoint_unavailable', reason: 'the endpoint was deleted' };
  if (endpoint.status !== 'enabled') return { kind: 'endpoint_unavailable', reason: 'the endpoint is disabled' };
  const event = await em.findOneOrFail(OutboundEvent, { id: delivery.eventId });
  // A delivery first tried immediately, as the experience action was routed (deliverImmediately), comes to its batch run with one
  // attempt recorded: the run's attempts are numbered after it.
  const attemptNumber = Math.max(input.attemptNumber, delivery.attemptCount + 1);

  const startedAt = now();
  const headers = buildWebhookHeaders({
    id: event.id,
    timestamp: Math.floor(startedAt.getTime() / 1000),
    body: event.body,
    secrets: endpointSigningSecrets(endpoint, deps.secrets, startedAt),
  });
  let response: OutboundResponse | undefined;
  let error: string | undefined;
  try {
    response = await deps.http.post(endpoint.url, headers, event.body, input.signal);
  } catch (failure) {
    if (!(failure instanceof OutboundRequestError)) throw failure;
    error = failure.message;
  }
  const durationMs = Math.max(0, now().getTime() - startedAt.getTime());
  const verdict = response ? classifyResponse(response.status, response.retryAfter, startedAt.getTime()) : { kind: 'retry' as const };
  const outcome: AttemptOutcome = response ? verdict.kind : 'error';
  const reason = response ? describeStatus(response) : error!;

  // The attempt and what it changes commit together: a worker that dies in between leaves neither, so a delivered
  // attempt is never left beside a pending delivery that a retry would send again.
  await em.transactional(async (tx) => {
    await tx
      .createQueryBuilder(DeliveryAttempt)
      .insert({
        id: randomUUID(),
        deliveryId: delivery.id,
        attemptNumber,
        startedAt,
        durationMs,
        statusCode: response?.status ?? null,
        error: error ?? null,
        responseBody: response?.body ?? null,
        outcome,
      })
      .onConflict(['deliveryId', 'attemptNumber'])
      .ignore()
      .execute();
    delivery.attemptCount = Math.max(delivery.attemptCount, attemptNumber);
    delivery.lastStatusCode = response?.status ?? null;
    delivery.lastError = response ? null : reason;
    if (verdict.kind === 'delivered') {
      delivery.status = 'succeeded';
      delivery.completedAt = now();
      endpoint.failingSince = null;
    } else {
      endpoint.failingSince ??= startedAt;
      const disableReason = whyDisable(verdict.kind, endpoint, startedAt, deps.publish.delivery.disableAfterHours);
      if (disableReason) await disableEndpoint({ ...deps, publish: { ...deps.publish, em: tx } }, endpoint, disableReason, verdict.kind === 'gone' ? delivery.id : 'failing');
    }
  });
  deps.metrics.deliveryAttempt(outcome);

  switch (verdict.kind) {
    case 'delivered':
      return { kind: 'delivered' };
    case 'gone':
      return { kind: 'gone', reason: `${reason}: the receiver asked us to stop, so the endpoint was disabled` };
    case 'rejected':
      return { kind: 'rejected', reason: `${reason}: the receiver rejected the event` };
    case 'retry':
      return verdict.afterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, afterMs: verdict.afterMs };
  }
}

function whyDisable(kind: string, endpoint: Endpoint, at: Date, disableAfterHours: number): string | undefined {
  if (kind === 'gone') return 'the endpoint answered 410 Gone';
  const failingForMs = at.getTime() - endpoint.failingSince!.getTime();
  if (failingForMs >= disableAfterHours * 3_600_000) return `every delivery failed for ${disableAfterHours} hours`;
  return undefined;
}

/**
 * The event id derives from what caused the disable, so a retried attempt that disables again emits the same
 * event, which is delivered once.
 */
async function disableEndpoint(deps: AttemptDeps, endpoint: Endpoint, reason: string, cause: string): Promise<void> {
  const causeKey = cause === 'failing' ? endpoint.failingSince!.toISOString() : cause;
  await publishEvent(deps.publish, {
    eventId: derivedId('evt_', 'endpoint.disabled', endpoint.id, causeKey),
    accountId: endpoint.accountId,
    type: 'endpoint.disabled',
    // It is being disabled: it gets no delivery of its own disable, as if this ran after the flush below.
    exceptEndpointId: endpoint.id,
    data: { result: { endpointId: endpoint.id, url: endpoint.url, reason } },
  });
  endpoint.status = 'disabled';
  endpoint.disabledReason = reason;
}

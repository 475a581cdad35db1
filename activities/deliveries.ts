import { ApplicationFailure, Context } from '@temporalio/activity';
import { attemptDelivery } from '../src/domain/deliveries/attempt-delivery.ts';
import { finishDelivery } from '../src/domain/deliveries/finish-delivery.ts';
import type { ActivityDeps } from './deps.ts';

/**
 * Delivery activities. Each forks its own EntityManager; the attempt turns the domain's verdict into what Temporal
 * understands: a normal return, a non-retryable failure, or a retryable one with an optional next delay.
 */
export function createDeliveryActivities({ orm, http, secrets, temporal, delivery, metrics }: ActivityDeps) {
  return {
    async attemptDelivery(input: { deliveryId: string }): Promise<{ delivered: boolean; reason?: string }> {
      const em = orm.em.fork();
      const result = await attemptDelivery(
        { em, http, secrets, publish: { em, temporal, delivery }, metrics },
        // Cancellation (a worker shutting down) aborts the request in flight; the attempt is recorded and retried.
        { deliveryId: input.deliveryId, attemptNumber: Context.current().info.attempt, signal: Context.current().cancellationSignal },
      );
      switch (result.kind) {
        case 'delivered':
          return { delivered: true };
        case 'gone':
          return { delivered: false, reason: result.reason };
        case 'rejected':
          throw ApplicationFailure.nonRetryable(result.reason, 'DeliveryRejected');
        case 'endpoint_unavailable':
          throw ApplicationFailure.nonRetryable(result.reason, 'EndpointUnavailable');
        case 'retry':
          throw ApplicationFailure.create({
            message: result.reason,
            type: 'DeliveryFailed',
            ...(result.afterMs === undefined ? {} : { nextRetryDelay: result.afterMs }),
          });
      }
    },

    async finishDelivery(input: { deliveryId: string; status: 'pending' | 'succeeded' | 'failed'; reason?: string }): Promise<void> {
      if (input.status === 'pending') return;
      await finishDelivery(orm.em.fork(), { deliveryId: input.deliveryId, status: input.status, reason: input.reason });
    },
  };
}

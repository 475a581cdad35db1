import { z } from 'zod';
import type { DeliveryWithAttempts } from '../../domain/deliveries/list-deliveries.ts';
import { attemptOutcomes } from '../../persistence/entities/delivery-attempt.ts';
import { deliveryStatuses, type Delivery } from '../../persistence/entities/delivery.ts';
import { pageOf, paginationQuery, timestamp } from '../shared-schemas.ts';

export const listDeliveriesQuery = z.object({ status: z.enum(deliveryStatuses).optional(), ...paginationQuery });

export const redeliverParams = z.object({
  accountId: z.uuid(),
  endpointId: z.string().min(1).max(64).optional(),
  deliveryId: z.string().min(1).max(64),
});

const attemptSchema = z
  .object({
    attemptNumber: z.number().int(),
    startedAt: timestamp,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    responseBody: z.string().nullable().meta({ description: 'The first 4 KB of the response body.' }),
    outcome: z.enum(attemptOutcomes),
  })
  .meta({ id: 'DeliveryAttempt' });

export const deliverySchema = z
  .object({
    deliveryId: z.string(),
    eventId: z.string(),
    endpointId: z.string(),
    status: z.enum(deliveryStatuses),
    attemptCount: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    failureReason: z.string().nullable(),
    redeliveryOf: z.string().nullable(),
    workflowId: z.string().nullable().meta({
      description:
        'The Temporal workflow that sends this delivery: `deliveries:<batchId>`, a run that sends several deliveries side by side (its `deliveries` query lists them); or, for an experience’s action while its first attempt is in flight and after it if that attempt settled it, the `ingest-batch:<batchId>` run that routed the event and makes that attempt. Null for the moment between the publish and the claim.',
    }),
    createdAt: timestamp,
    completedAt: timestamp.nullable(),
  })
  .meta({ id: 'Delivery' });

export const deliveryWithAttemptsSchema = deliverySchema
  .extend({ eventType: z.string(), attempts: z.array(attemptSchema) })
  .meta({ id: 'DeliveryWithAttempts' });

export const recoverBody = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601: failed deliveries made at or after this time are sent again.' }),
  })
  .meta({ id: 'RecoverDeliveries' });

export const recoveredSchema = z
  .object({
    recovered: z.number().int().meta({ description: 'Redeliveries started now (at most 1000).' }),
    deliveries: z.array(deliverySchema).meta({ description: 'The new deliveries, oldest original first.' }),
    more: z.boolean().meta({ description: 'More failed deliveries since that time wait: call again.' }),
  })
  .meta({ id: 'RecoveredDeliveries' });

export const deliveryPage = pageOf(deliveryWithAttemptsSchema).meta({ id: 'DeliveryPage' });

export function toDeliveryResponse(delivery: Delivery): z.infer<typeof deliverySchema> {
  return {
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    status: delivery.status,
    attemptCount: delivery.attemptCount,
    lastStatusCode: delivery.lastStatusCode ?? null,
    failureReason: delivery.failureReason ?? null,
    redeliveryOf: delivery.redeliveryOf ?? null,
    workflowId: delivery.workflowId ?? null,
    createdAt: delivery.createdAt.toISOString(),
    completedAt: delivery.completedAt?.toISOString() ?? null,
  };
}

export function toDeliveryWithAttempts(item: DeliveryWithAttempts): z.infer<typeof deliveryWithAttemptsSchema> {
  return {
    ...toDeliveryResponse(item.delivery),
    eventType: item.eventType,
    attempts: item.attempts.map((attempt) => ({
      attemptNumber: attempt.attemptNumber,
      startedAt: attempt.startedAt.toISOString(),
      durationMs: attempt.durationMs,
      statusCode: attempt.statusCode ?? null,
      error: attempt.error ?? null,
      responseBody: attempt.responseBody ?? null,
      outcome: attempt.outcome,
    })),
  };
}

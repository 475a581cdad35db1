import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Delivery } from './delivery.ts';

export const attemptOutcomes = ['delivered', 'retry', 'gone', 'rejected', 'error'] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];

/** One HTTP attempt of a delivery, as the receiver answered it (or why it could not answer). */
export const DeliveryAttempt = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempts',
  properties: {
    id: p.uuid().primary(),
    deliveryId: () => p.manyToOne(Delivery).mapToPk().fieldName('delivery_id'),
    attemptNumber: p.integer(),
    startedAt: p.datetime(),
    durationMs: p.integer(),
    statusCode: p.integer().nullable(),
    error: p.text().nullable(),
    /** The first 4 KB of the response body. */
    responseBody: p.text().nullable(),
    outcome: p.enum(attemptOutcomes),
  },
  uniques: [{ properties: ['deliveryId', 'attemptNumber'] }],
});

export type DeliveryAttempt = InferEntity<typeof DeliveryAttempt>;

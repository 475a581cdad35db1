import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A push provider's pace across the deployment (src/persistence/push-pace.ts): the earliest time the next message to
 * that provider's project may go. One row per provider key, e.g. `fcm:<projectId>`.
 */
export const PushPace = defineEntity({
  name: 'PushPace',
  tableName: 'push_pace',
  properties: {
    key: p.string().length(200).primary(),
    nextAt: p.datetime().fieldName('next_at'),
  },
});

export type PushPace = InferEntity<typeof PushPace>;

import { p } from '@mikro-orm/core';

/**
 * A row's `updatedAt`: on creation the very instant of its `createdAt`, which every entity declares just before it
 * (MikroORM fills properties in declaration order), so a new row never reads as changed a millisecond after it was
 * made; after that, the time of each update.
 */
export const updatedAtProperty = () =>
  p
    .datetime()
    .onCreate((row: { createdAt?: Date }) => row.createdAt ?? new Date())
    .onUpdate(() => new Date());

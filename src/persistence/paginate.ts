import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, FilterQuery } from '@mikro-orm/core';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface Keyed {
  id: string;
  createdAt: Date;
}

/**
 * Keyset pagination, newest first, on (createdAt, id). The cursor is MikroORM's opaque encoding of the last row's
 * keys; the API validates its shape (see `cursorQuery`) before it reaches the database.
 */
export async function paginate<T extends Keyed>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<T>> {
  const result = await em.findByCursor(entity, {
    where,
    first: page.limit,
    ...(page.cursor ? { after: page.cursor } : {}),
    orderBy: { createdAt: 'desc', id: 'desc' } as never,
    includeCount: false,
  });
  return { items: result.items, nextCursor: result.hasNextPage ? result.endCursor : null };
}

import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Stock } from '../../persistence/entities/stock.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';

export async function createStock(
  em: EntityManager,
  accountId: string,
  input: { appId: string; title: string; url: string; richPushLevel?: string | undefined },
): Promise<Stock> {
  await findOwnedApp(em, accountId, input.appId);
  const stock = em.create(Stock, { id: randomUUID(), accountId, ...input, richPushLevel: input.richPushLevel ?? null });
  await em.flush();
  return stock;
}

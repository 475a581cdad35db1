import type { EntityManager } from '@mikro-orm/postgresql';
import { App } from '../../persistence/entities/app.ts';
import { notFound } from '../errors.ts';

/** An app of this account, or 404: another account's app is as invisible as one that does not exist. */
export async function findOwnedApp(em: EntityManager, accountId: string, appId: string): Promise<App> {
  const app = await em.findOne(App, { id: appId, accountId });
  if (!app) throw notFound('App');
  return app;
}

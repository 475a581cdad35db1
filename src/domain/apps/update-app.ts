import type { EntityManager } from '@mikro-orm/postgresql';
import type { App } from '../../persistence/entities/app.ts';
import { findOwnedApp } from './find-owned-app.ts';

export interface AppChanges {
  name?: string | undefined;
  defaultTimezone?: string | undefined;
}

/** PATCH /accounts/{accountId}/apps/{appId}: what is given changes, the rest stays. */
export async function updateApp(em: EntityManager, accountId: string, appId: string, changes: AppChanges): Promise<App> {
  const app = await findOwnedApp(em, accountId, appId);
  if (changes.name !== undefined) app.name = changes.name;
  if (changes.defaultTimezone !== undefined) app.defaultTimezone = changes.defaultTimezone;
  await em.flush();
  return app;
}

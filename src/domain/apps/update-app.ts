import type { EntityManager } from '@mikro-orm/postgresql';
import type { App, FrequencyCap, QuietHours } from '../../persistence/entities/app.ts';
import { findOwnedApp } from './find-owned-app.ts';

export interface AppChanges {
  name?: string | undefined;
  defaultTimezone?: string | undefined;
  /** Null removes the cap. */
  frequencyCap?: FrequencyCap | null | undefined;
  /** Null removes them. */
  quietHours?: QuietHours | null | undefined;
}

/** PATCH /accounts/{accountId}/apps/{appId}: what is given changes, the rest stays. */
export async function updateApp(em: EntityManager, accountId: string, appId: string, changes: AppChanges): Promise<App> {
  const app = await findOwnedApp(em, accountId, appId);
  if (changes.name !== undefined) app.name = changes.name;
  if (changes.defaultTimezone !== undefined) app.defaultTimezone = changes.defaultTimezone;
  if (changes.frequencyCap !== undefined) app.frequencyCap = changes.frequencyCap;
  if (changes.quietHours !== undefined) app.quietHours = changes.quietHours;
  await em.flush();
  return app;
}

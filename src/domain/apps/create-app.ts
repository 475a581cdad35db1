import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { App } from '../../persistence/entities/app.ts';
import type { AppChanges } from './update-app.ts';

export async function createApp(
  em: EntityManager,
  accountId: string,
  input: Omit<AppChanges, 'name'> & { name: string },
): Promise<App> {
  const app = em.create(App, {
    id: randomUUID(),
    accountId,
    name: input.name,
    defaultTimezone: input.defaultTimezone ?? 'UTC',
    frequencyCap: input.frequencyCap ?? null,
    quietHours: input.quietHours ?? null,
  });
  await em.flush();
  return app;
}

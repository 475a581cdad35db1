import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { App } from '../../persistence/entities/app.ts';

export async function createApp(em: EntityManager, accountId: string, input: { name: string; defaultTimezone?: string | undefined }): Promise<App> {
  const app = em.create(App, { id: randomUUID(), accountId, name: input.name, defaultTimezone: input.defaultTimezone ?? 'UTC' });
  await em.flush();
  return app;
}

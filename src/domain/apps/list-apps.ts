import type { EntityManager } from '@mikro-orm/postgresql';
import { App } from '../../persistence/entities/app.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';

export function listApps(em: EntityManager, accountId: string, page: { limit: number; cursor?: string | undefined }): Promise<Page<App>> {
  return paginate(em, App, { accountId }, page);
}

import type { Logger } from '../logger.ts';
import { connectOrm, type Orm } from '../persistence/orm.ts';
import { createTemporalClients } from '../temporal/client.ts';
import type { ApiServices } from '../http/services.ts';

/** Builds the API's long-lived dependencies from settings. */
export async function createApiServices(settings: {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  adminToken: string;
  logger: Logger;
  orm?: Orm;
}): Promise<ApiServices> {
  const orm = settings.orm ?? (await connectOrm(settings.databaseUrl));
  const temporal = createTemporalClients(settings.temporalAddress, settings.namespace);
  return {
    orm,
    temporal: { ...temporal, taskQueue: settings.taskQueue },
    adminToken: settings.adminToken,
    logger: settings.logger,
  };
}

export async function closeApiServices(services: ApiServices): Promise<void> {
  await services.temporal.connection.close();
  await services.orm.close();
}

import type { Client, Connection } from '@temporalio/client';
import type { Logger } from '../logger.ts';
import type { Orm } from '../persistence/orm.ts';

/** What the API needs from the outside world; built once at start and shared by every request. */
export interface ApiServices {
  orm: Orm;
  temporal: { client: Client; connection: Connection; taskQueue: string };
  adminToken: string;
  logger: Logger;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import { createPushPace } from '../../persistence/push-pace.ts';
import { createFcmPushProvider } from './fcm-provider.ts';
import { createLogPushProvider } from './log-provider.ts';
import type { PushProvider } from './push-provider.ts';

/**
 * PUSH_PROVIDER and, for fcm, its settings (src/config.ts checks the combination). `ca`: the one CA that FCM's and the
 * token endpoint's certificates are trusted by (`npm start`'s fake FCM), instead of the usual ones.
 */
export type PushSettings =
  | { provider: 'log' }
  | { provider: 'fcm'; serviceAccountFile: string; baseUrl: string; concurrency: number; maxPerMinute: number; ca?: string };

/**
 * The provider the settings name. `ca` adds a trusted CA for FCM's endpoints (tests); fcm reads its key file now and
 * paces its project through `em`'s database, shared with every other worker. `batchesInParallel` is how many batches
 * of `concurrency` requests the worker has in flight at once (a send's shards side by side): fcm keeps that many
 * times `concurrency` connections.
 */
export function createPushProvider(
  settings: PushSettings,
  options: { logger: Logger; ca?: string | undefined; em?: EntityManager; batchesInParallel?: number },
): PushProvider {
  if (settings.provider === 'log') return createLogPushProvider(options.logger);
  const { maxPerMinute, ...fcm } = settings;
  const { em } = options;
  const paceFor = em ? (projectId: string) => createPushPace(em, { key: `fcm:${projectId}`, perMinute: maxPerMinute }) : undefined;
  return createFcmPushProvider({ ...fcm, connections: fcm.concurrency * (options.batchesInParallel ?? 1), logger: options.logger, ca: fcm.ca ?? options.ca, paceFor });
}

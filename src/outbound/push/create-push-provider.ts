import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import { createPushPace } from '../../persistence/push-pace.ts';
import { createFcmPushProvider } from './fcm-provider.ts';
import { createLogPushProvider } from './log-provider.ts';
import type { PushProvider } from './push-provider.ts';

/** PUSH_PROVIDER and, for fcm, its settings (src/config.ts checks the combination). */
export type PushSettings =
  | { provider: 'log' }
  | { provider: 'fcm'; serviceAccountFile: string; baseUrl: string; concurrency: number; maxPerMinute: number };

/**
 * The provider the settings name. `ca` adds a trusted CA for FCM's endpoints (tests); fcm reads its key file now and
 * paces its project through `em`'s database, shared with every other worker.
 */
export function createPushProvider(settings: PushSettings, options: { logger: Logger; ca?: string | undefined; em?: EntityManager }): PushProvider {
  if (settings.provider === 'log') return createLogPushProvider(options.logger);
  const { maxPerMinute, ...fcm } = settings;
  const { em } = options;
  const paceFor = em ? (projectId: string) => createPushPace(em, { key: `fcm:${projectId}`, perMinute: maxPerMinute }) : undefined;
  return createFcmPushProvider({ ...fcm, logger: options.logger, ca: options.ca, paceFor });
}

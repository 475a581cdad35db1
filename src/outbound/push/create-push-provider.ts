import type { Logger } from '../../logger.ts';
import { createFcmPushProvider } from './fcm-provider.ts';
import { createLogPushProvider } from './log-provider.ts';
import type { PushProvider } from './push-provider.ts';

/** PUSH_PROVIDER and, for fcm, its settings (src/config.ts checks the combination). */
export type PushSettings =
  | { provider: 'log' }
  | { provider: 'fcm'; serviceAccountFile: string; baseUrl: string; concurrency: number };

/** The provider the settings name. `ca` adds a trusted CA for FCM's endpoints (tests); fcm reads its key file now. */
export function createPushProvider(settings: PushSettings, options: { logger: Logger; ca?: string | undefined }): PushProvider {
  if (settings.provider === 'log') return createLogPushProvider(options.logger);
  return createFcmPushProvider({ ...settings, logger: options.logger, ca: options.ca });
}

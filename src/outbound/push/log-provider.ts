import type { Logger } from '../../logger.ts';
import type { PushProvider } from './push-provider.ts';

/**
 * The default provider (and `npm start`'s): every message counts as sent and nothing leaves the process. A
 * benchmark pushes 100,000 messages through it, so a batch costs one array and at most one debug line.
 */
export function createLogPushProvider(logger: Logger): PushProvider {
  return {
    name: 'log',
    // Nothing is in flight: a wave is just the engine's page.
    waveSize: 1000,
    async sendBatch(messages) {
      logger.debug({ provider: 'log', messages: messages.length }, 'push batch recorded as sent');
      return messages.map((message) => ({ sendId: message.sendId, outcome: 'sent' }));
    },
    async close() {},
  };
}

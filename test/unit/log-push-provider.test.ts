import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogPushProvider } from '../../src/outbound/push/log-provider.ts';
import type { PushMessage } from '../../src/outbound/push/push-provider.ts';

describe('the log push provider', () => {
  it('records every message of a 100,000-message batch as sent, in order, with one debug line for the batch', async () => {
    const lines: string[] = [];
    const provider = createLogPushProvider(pino({ level: 'debug' }, { write: (line: string) => lines.push(line) }));
    const notification = { notificationId: 'n-1', title: 'Hi', action: 'Open', type: 'PUSH', priority: 'NORMAL', expiry: 1440 };
    const messages: PushMessage[] = Array.from({ length: 100_000 }, (_, index) => ({ sendId: `send-${index}`, token: `token-${index}`, platform: 'android', notification }));

    const results = await provider.sendBatch(messages);

    expect(provider.name).toBe('log');
    expect(results).toHaveLength(100_000);
    expect(results.every((result, index) => result.sendId === `send-${index}` && result.outcome === 'sent')).toBe(true);
    expect(results[0]).toEqual({ sendId: 'send-0', outcome: 'sent' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 20, provider: 'log', messages: 100_000, msg: 'push batch recorded as sent' });
    expect(lines[0]).not.toContain('token-');
    await provider.close();
  });
});

import { describe, expect, it } from 'vitest';
import { normalise, providers, type Provider } from '../../../src/domain/ingest/normalise/index.ts';
import { onlyEvent, payload } from './payloads.ts';

// The entry point only dispatches; these check that each provider reaches its own reader and that the clock is
// only consulted when the caller gives no time.

const directEnvelope = { version: '1', messageId: 'm-1', occurredAt: '2026-01-01T10:00:00+01:00', eventType: 'signup' };

describe('normalise: entry point', () => {
  it('lists the four providers', () => {
    expect(providers).toEqual(['direct', 'webhook', 'segment', 'rudderstack']);
  });

  it.each([
    ['direct', directEnvelope, {}, 'signup'],
    ['webhook', payload('webhook-order-paid'), { messageId: 'id', eventType: 'topic' }, 'orders/paid'],
    ['segment', payload('segment-track'), {}, 'Order Completed'],
    ['rudderstack', payload('rudderstack-track'), {}, 'Product Added'],
  ] as const)('sends %s bodies to their own reader', (provider, body, mapping, eventType) => {
    expect(onlyEvent(normalise(provider, body, mapping, { now: new Date(0) })).eventType).toBe(eventType);
  });

  it.each([
    ['webhook', payload('webhook-order-paid'), { messageId: 'id', eventType: 'topic' }],
    ['segment', { ...payload('segment-track'), timestamp: undefined, originalTimestamp: undefined, sentAt: undefined, receivedAt: undefined }, {}],
  ] as const)('uses the given time for a %s event without one, and the clock when none is given', (provider, body, mapping) => {
    const given = new Date('2030-07-01T00:00:00.000Z');
    expect(onlyEvent(normalise(provider, body, mapping, { now: given })).occurredAt).toBe('2030-07-01T00:00:00.000Z');
    const before = Date.now();
    const occurredAt = Date.parse(onlyEvent(normalise(provider, body, mapping)).occurredAt);
    expect(occurredAt).toBeGreaterThanOrEqual(before);
    expect(occurredAt).toBeLessThanOrEqual(Date.now());
  });

  it('refuses the same body under the wrong provider', () => {
    expect(normalise('direct', payload('segment-track'), {}).ok).toBe(false);
    expect(normalise('segment', directEnvelope, {}).ok).toBe(false);
    expect(normalise('webhook', payload('segment-track'), {}).ok).toBe(false);
  });

  it('treats an unknown provider as a programming error', () => {
    expect(() => normalise('mixpanel' as Provider, {}, {})).toThrow('Unknown ingest provider: mixpanel');
  });
});

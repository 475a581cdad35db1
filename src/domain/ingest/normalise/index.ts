import { normaliseDirect } from './direct.ts';
import type { NormaliseOptions, NormaliseResult, Provider } from './envelope.ts';
import { normaliseRudderStack } from './rudderstack.ts';
import { normaliseSegment } from './segment.ts';
import { normaliseWebhook } from './webhook.ts';

export { providers, directEnvelopeSchema, maxBatchSize } from './envelope.ts';
export type { InboundEnvelope, NormaliseOptions, NormaliseResult, Provider } from './envelope.ts';
export { readPath } from '../../../sandbox-safe/field-path.ts';

/**
 * Turns a connection's raw JSON body into inbound envelopes, or says everything wrong with it. Pure when `options`
 * is given: `now` (the time the request arrived) stands in for events that carry no time of their own, and
 * without it that is the clock.
 */
export function normalise(
  provider: Provider,
  body: unknown,
  mapping: Record<string, string>,
  options: NormaliseOptions = { now: new Date() },
): NormaliseResult {
  switch (provider) {
    case 'direct':
      return normaliseDirect(body, mapping);
    case 'webhook':
      return normaliseWebhook(body, mapping, options.now);
    case 'segment':
      return normaliseSegment(body, mapping, options.now);
    case 'rudderstack':
      return normaliseRudderStack(body, mapping, options.now);
    default:
      // The provider comes from our own stored connection, so an unknown one is a bug or a bad migration, not bad input.
      throw new Error(`Unknown ingest provider: ${String(provider satisfies never)}`);
  }
}

import type { NormaliseResult } from './envelope.ts';
import { normaliseSpecPayload, type SpecDialect } from './segment.ts';

// RudderStack implements Segment's spec field for field: type, event, messageId, userId, anonymousId, properties,
// traits, the timestamps and `{ batch: [...] }`. Where it differs, the shared reader already covers both:
// - its SDKs put identify traits in `context.traits` (Segment's put them in top-level `traits`), and both are read;
// - `originalTimestamp` and `sentAt` are always set and `timestamp` is derived by its server, which is the
//   precedence the shared reader uses anyway;
// - its web SDK sends `"userId": ""` for anonymous visitors, which the shared reader treats as no user id;
// - extra fields (`channel`, `rudderId`, `request_ip`) are not part of the envelope and stay in `raw`.
// So the dialect only changes how errors name the sender.

export const rudderstackDialect: SpecDialect = { name: 'RudderStack' };

export function normaliseRudderStack(body: unknown, mapping: Record<string, string>, now: Date): NormaliseResult {
  return normaliseSpecPayload(rudderstackDialect, body, mapping, now);
}

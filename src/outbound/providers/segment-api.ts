/**
 * Segment's HTTP tracking API, which RudderStack's data plane implements too: one POST per call to
 * `<base>/v1/track` or `<base>/v1/identify`, HTTP Basic auth with the write key as the user name and an empty
 * password, and a JSON body. Pure: it builds the request; the caller sends it.
 */

export const specCalls = ['track', 'identify'] as const;
export type SpecCall = (typeof specCalls)[number];

export interface SpecCallInput {
  call: SpecCall;
  /** The event's name; required for track, ignored for identify. */
  event?: string | undefined;
  /** A track call's `properties`, or an identify call's `traits`: a JSON object, already rendered. */
  properties: Record<string, unknown>;
  /** At least one of userId and anonymousId; both are sent when both are given. */
  userId?: string | undefined;
  anonymousId?: string | undefined;
  /** The provider deduplicates on it, so a retried call must reuse it (e.g. one per run and node). */
  messageId: string;
  /** When it happened, ISO-8601 UTC. */
  timestamp: string;
}

export interface SpecLibrary {
  name: string;
  version: string;
}

export interface SpecRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The Basic credentials for a write key: base64 of `<writeKey>:` (an empty password). */
export const basicAuthorization = (writeKey: string) => `Basic ${Buffer.from(`${writeKey}:`, 'utf8').toString('base64')}`;

/** Why the provider would refuse this call, or undefined when it is well formed. */
export function specCallProblem(input: SpecCallInput): string | undefined {
  if (!input.userId && !input.anonymousId) return 'a userId or an anonymousId is required';
  if (input.call === 'track' && !input.event) return 'a track call needs an event name';
  if (!input.messageId) return 'a messageId is required';
  return undefined;
}

/** The request for one call. `baseUrl` is the API's base (e.g. https://api.segment.io), with or without a path. */
export function buildSpecRequest(baseUrl: string, writeKey: string, input: SpecCallInput, library: SpecLibrary): SpecRequest {
  const identity = {
    ...(input.userId ? { userId: input.userId } : {}),
    ...(input.anonymousId ? { anonymousId: input.anonymousId } : {}),
  };
  const payload =
    input.call === 'track'
      ? { ...identity, event: input.event, properties: input.properties }
      : { ...identity, traits: input.properties };
  return {
    url: `${baseUrl.replace(/\/+$/, '')}/v1/${input.call}`,
    headers: { 'content-type': 'application/json', authorization: basicAuthorization(writeKey) },
    body: JSON.stringify({ ...payload, timestamp: input.timestamp, messageId: input.messageId, context: { library } }),
  };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import packageJson from '../../../package.json' with { type: 'json' };
import { OutboundRequestError, type OutboundHttpClient, type OutboundResponse } from '../../outbound/http-client.ts';
import { basicAuthorization, buildSpecRequest, specCallProblem, type SpecCallInput } from '../../outbound/providers/segment-api.ts';
import type { Connection } from '../../persistence/entities/connection.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { findOwnedConnection } from '../connections/find-owned-connection.ts';
import { noteConnectionTraffic } from '../connections/note-traffic.ts';
import { effectiveOutboundUrl, hasOutboundApi } from '../connections/outbound-url.ts';
import { classifyResponse } from '../deliveries/classify-response.ts';
import { DomainError } from '../errors.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';

export interface CallProviderDeps {
  em: EntityManager;
  http: OutboundHttpClient;
  secrets: SecretBox;
  /** Aborts the request in flight, e.g. when the activity is cancelled. */
  signal?: AbortSignal | undefined;
  now?: () => Date;
}

/** One call: the format's fields (see SpecCallInput), on a connection of the account. */
export interface ProviderCall extends Omit<SpecCallInput, 'timestamp'> {
  accountId: string;
  connectionId: string;
  /** When it happened: an ISO-8601 string or a Date; sent as ISO-8601 UTC. */
  timestamp: string | Date;
}

/**
 * - `sent`: the provider answered 2xx.
 * - `rejected`: final; retrying cannot help. The provider answered 3xx or 4xx other than 408 and 429, or the call
 *   was never made: the connection is gone, paused, not a segment or rudderstack connection, lacks its write key
 *   or base URL, or the call is malformed.
 * - `retry`: 408, 429, 5xx, a timeout or a connection error; `afterMs` is the provider's Retry-After when it gave one.
 */
export type ProviderCallVerdict =
  | { kind: 'sent'; status: number }
  | { kind: 'rejected'; reason: string; status?: number }
  | { kind: 'retry'; reason: string; afterMs?: number; status?: number };

const library = { name: 'richpush', version: packageJson.version };
/** How much of a refusing provider's answer goes into the reason. */
const reasonBodyLimit = 300;

/**
 * Calls the provider API of a segment or rudderstack connection in its own format (Segment's tracking API, which
 * RudderStack's data plane speaks too) and says what the answer means. Each call that reaches the network moves the
 * connection's lastOutboundAt. The write key goes only into the Authorization header: never into a reason or a log.
 */
export async function callProvider(deps: CallProviderDeps, input: ProviderCall): Promise<ProviderCallVerdict> {
  const now = deps.now ?? (() => new Date());
  const target = await loadTarget(deps.em, input);
  if (!target.ok) return { kind: 'rejected', reason: target.reason };

  const timestamp = new Date(input.timestamp);
  if (Number.isNaN(timestamp.getTime())) return { kind: 'rejected', reason: 'the timestamp is not a valid date' };
  const { accountId: _accountId, connectionId: _connectionId, ...fields } = input;
  const call: SpecCallInput = { ...fields, timestamp: timestamp.toISOString() };
  const problem = specCallProblem(call);
  if (problem) return { kind: 'rejected', reason: problem };

  const writeKey = deps.secrets.open(target.sealedWriteKey, secretContexts.connectionOutboundCredential(input.connectionId));
  const request = buildSpecRequest(target.baseUrl, writeKey, call, library);
  const startedAt = now();
  let response: OutboundResponse;
  try {
    response = await deps.http.post(request.url, request.headers, request.body, deps.signal);
  } catch (failure) {
    if (!(failure instanceof OutboundRequestError)) throw failure;
    await noteConnectionTraffic(deps.em, input.connectionId, 'outbound', startedAt);
    return { kind: 'retry', reason: failure.message };
  }
  await noteConnectionTraffic(deps.em, input.connectionId, 'outbound', startedAt);

  const verdict = classifyResponse(response.status, response.retryAfter, startedAt.getTime());
  const { status } = response;
  switch (verdict.kind) {
    case 'delivered':
      return { kind: 'sent', status };
    case 'retry': {
      const reason = describe(response, target.provider, writeKey);
      return verdict.afterMs === undefined ? { kind: 'retry', reason, status } : { kind: 'retry', reason, status, afterMs: verdict.afterMs };
    }
    case 'gone':
    case 'rejected':
      return { kind: 'rejected', reason: describe(response, target.provider, writeKey), status };
  }
}

type Target = { ok: true; provider: string; baseUrl: string; sealedWriteKey: string } | { ok: false; reason: string };

async function loadTarget(em: EntityManager, input: ProviderCall): Promise<Target> {
  let connection: Connection;
  try {
    connection = await findOwnedConnection(em, input.accountId, input.connectionId);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return { ok: false, reason: `connection ${input.connectionId} not found in the account (deleted?)` };
    throw error;
  }
  if (!hasOutboundApi(connection.provider)) return { ok: false, reason: `a ${connection.provider} connection has no provider API to call` };
  if (connection.status === 'paused') return { ok: false, reason: 'the connection is paused' };
  if (!connection.outboundCredentialSealed) return { ok: false, reason: 'the connection has no outboundCredential (the provider’s write key)' };
  const { url } = effectiveOutboundUrl(connection);
  if (url === null) return { ok: false, reason: `the connection has no outboundUrl (the ${connection.provider} data plane URL)` };
  return { ok: true, provider: connection.provider, baseUrl: url, sealedWriteKey: connection.outboundCredentialSealed };
}

/** "HTTP 400 from segment: <start of its answer>", with the write key struck out should the answer echo it. */
function describe(response: OutboundResponse, provider: string, writeKey: string): string {
  // Struck out before the cut, so a key the cut splits does not leave its first half behind.
  const answer = redact(response.body, writeKey).slice(0, reasonBodyLimit).trim();
  return `HTTP ${response.status} from ${provider}${answer ? `: ${answer}` : ''}`;
}

function redact(text: string, writeKey: string): string {
  const encoded = basicAuthorization(writeKey).slice('Basic '.length);
  return [writeKey, encoded].reduce((kept, secret) => (secret ? kept.replaceAll(secret, '[redacted]') : kept), text);
}

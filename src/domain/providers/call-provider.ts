// TEMPORARY stand-in, replaced by branch i9-provider.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboundHttpClient } from '../../outbound/http-client.ts';
import type { SecretBox } from '../../security/secret-box.ts';

export type ProviderVerdict = { kind: 'sent'; status: number } | { kind: 'rejected'; reason: string } | { kind: 'retry'; reason: string; afterMs?: number };

export async function callProvider(
  _deps: { em: EntityManager; http: OutboundHttpClient; secrets: SecretBox; signal?: AbortSignal | undefined },
  _input: {
    accountId: string;
    connectionId: string;
    call: 'track' | 'identify';
    event?: string | undefined;
    properties: Record<string, unknown>;
    userId?: string | undefined;
    anonymousId?: string | undefined;
    messageId: string;
    timestamp: string;
  },
): Promise<ProviderVerdict> {
  throw new Error('not built yet');
}

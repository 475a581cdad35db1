import type { Connection } from '../../persistence/entities/connection.ts';
import type { AllowList, Resolve } from '../../security/ip-policy.ts';
import { checkEndpointUrl } from '../endpoints/check-endpoint-url.ts';
import { DomainError } from '../errors.ts';

/**
 * Providers whose API an experience can call, and the base URL used when the connection sets none. RudderStack has no
 * default: every workspace has a data plane URL of its own.
 */
const outboundApis: Record<string, { defaultUrl: string | null }> = {
  segment: { defaultUrl: 'https://api.segment.io' },
  rudderstack: { defaultUrl: null },
};

export const outboundProviders = Object.keys(outboundApis);

export const hasOutboundApi = (provider: string) => Object.hasOwn(outboundApis, provider);

/** The base URL calls go to: the one the account set, else the provider's default, else none. */
export function effectiveOutboundUrl(connection: Pick<Connection, 'provider' | 'outboundUrl'>): { url: string | null; isDefault: boolean } {
  if (connection.outboundUrl) return { url: connection.outboundUrl, isDefault: false };
  const fallback = hasOutboundApi(connection.provider) ? outboundApis[connection.provider]!.defaultUrl : null;
  return { url: fallback, isDefault: fallback !== null };
}

/**
 * Checks a base URL like an endpoint URL (https, no credentials, no blocked address; the outbound client checks the
 * address again when it connects) and returns it without a trailing slash, ready for `/v1/track` to be appended.
 */
export async function checkOutboundUrl(provider: string, url: string, outbound: { allow: AllowList; resolve: Resolve }): Promise<string> {
  if (!hasOutboundApi(provider)) {
    throw new DomainError('validation_failed', 'The request is not valid', [
      { path: 'body.outboundUrl', message: `only ${outboundProviders.join(' and ')} connections call a provider API; this is a ${provider} connection` },
    ]);
  }
  // Outside the query and fragment they start, `?` and `#` are always percent-encoded in a URL.
  if (/[?#]/.test(url)) throw new DomainError('invalid_url', 'The url is rejected: a base URL must not have a query or a fragment');
  const checked = new URL(await checkEndpointUrl(url, outbound));
  return `${checked.origin}${checked.pathname}`.replace(/\/+$/, '');
}

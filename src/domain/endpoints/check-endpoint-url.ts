import { checkUrl, type AllowList, type Resolve } from '../../security/ip-policy.ts';
import { DomainError } from '../errors.ts';

/** An endpoint URL must be https, without credentials, and resolve only to addresses outside the blocked ranges. */
export async function checkEndpointUrl(url: string, outbound: { allow: AllowList; resolve: Resolve }): Promise<string> {
  const check = await checkUrl(url, outbound);
  if (!check.ok) throw new DomainError('invalid_url', `The url is rejected: ${check.reason}`);
  return check.url.toString();
}

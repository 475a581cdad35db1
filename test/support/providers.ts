import { call, type TestAccount } from './api.ts';
import { newConnection, type ConnectionFixture } from './ingest.ts';

export const connectionPath = (account: TestAccount, connectionId = '') => `/accounts/${account.accountId}/connections${connectionId ? `/${connectionId}` : ''}`;

/** A local receiver's origin, as an outboundUrl: https://localhost:<port>. */
export const originOf = (url: string) => new URL(url).origin;

/**
 * A segment or rudderstack connection made through the API, with its write key and (when given) its outboundUrl set
 * by PATCH, as an account would.
 */
export async function newProviderConnection(
  account: TestAccount,
  options: { provider?: 'segment' | 'rudderstack'; writeKey?: string; outboundUrl?: string } = {},
): Promise<ConnectionFixture> {
  const connection = await newConnection(account, { provider: options.provider ?? 'segment', label: 'Provider' });
  const changes = {
    ...(options.writeKey === undefined ? {} : { outboundCredential: options.writeKey }),
    ...(options.outboundUrl === undefined ? {} : { outboundUrl: options.outboundUrl }),
  };
  if (Object.keys(changes).length > 0) {
    const patched = await call('PATCH', connectionPath(account, connection.connectionId), { token: account.apiKey, body: changes });
    if (patched.status !== 200) throw new Error(`connection update failed: ${patched.status} ${JSON.stringify(patched.body)}`);
  }
  return connection;
}

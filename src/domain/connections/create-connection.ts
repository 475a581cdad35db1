import type { Connection, EventConfig } from '../../persistence/entities/connection.ts';
import { Connection as ConnectionEntity } from '../../persistence/entities/connection.ts';
import { newId } from '../../security/ids.ts';
import { generateWebhookSecret } from '../../security/standard-webhooks.ts';
import { generateToken } from '../../security/tokens.ts';
import type { Provider } from '../ingest/normalise/envelope.ts';
import type { ConnectionDeps } from './connection-deps.ts';
import { withEventConfigDefaults } from './event-config.ts';
import { checkOutboundUrl } from './outbound-url.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';

/** Every provider today pushes to the connection's inbound URL; an OAuth-connected provider would differ. */
export const connectMethodOf = (_provider: Provider) => 'webhook';

export async function createConnection(
  deps: ConnectionDeps,
  accountId: string,
  input: {
    provider: Provider;
    label: string;
    mapping?: Record<string, string> | undefined;
    eventConfig?: Partial<EventConfig> | undefined;
    outboundUrl?: string | undefined;
  },
): Promise<{ connection: Connection; signingSecret: string }> {
  const outboundUrl = input.outboundUrl === undefined ? null : await checkOutboundUrl(input.provider, input.outboundUrl, deps.outbound);
  const signingSecret = generateWebhookSecret();
  const id = newId('conn_');
  const connection = deps.em.create(ConnectionEntity, {
    id,
    accountId,
    provider: input.provider,
    label: input.label,
    status: 'active',
    connectMethod: connectMethodOf(input.provider),
    // 256 random bits: the key alone names the connection, so it must not be guessable.
    inboundKey: generateToken('in_'),
    signingSecretSealed: deps.secrets.seal(signingSecret, secretContexts.connectionSigning(id)),
    mapping: input.mapping ?? {},
    eventConfig: withEventConfigDefaults(input.eventConfig),
    outboundUrl,
  });
  await deps.em.flush();
  return { connection, signingSecret };
}

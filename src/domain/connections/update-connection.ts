import type { Connection, ConnectionStatus, EventConfig } from '../../persistence/entities/connection.ts';
import type { ConnectionDeps } from './connection-deps.ts';
import { withEventConfigDefaults } from './event-config.ts';
import { findOwnedConnection } from './find-owned-connection.ts';
import { checkOutboundUrl } from './outbound-url.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';

export interface ConnectionChanges {
  label?: string | undefined;
  status?: ConnectionStatus | undefined;
  mapping?: Record<string, string> | undefined;
  eventConfig?: Partial<EventConfig> | undefined;
  /** Write-only: stored sealed, never returned. `null` removes it. */
  outboundCredential?: string | null | undefined;
  /** The base of the provider's API (segment and rudderstack only). `null` returns to the provider's default. */
  outboundUrl?: string | null | undefined;
}

export async function updateConnection(deps: ConnectionDeps, accountId: string, connectionId: string, changes: ConnectionChanges): Promise<Connection> {
  const connection = await findOwnedConnection(deps.em, accountId, connectionId);
  // Checked before anything changes, so a refused URL leaves the connection as it was.
  const outboundUrl = typeof changes.outboundUrl === 'string' ? await checkOutboundUrl(connection.provider, changes.outboundUrl, deps.outbound) : changes.outboundUrl;
  if (changes.label !== undefined) connection.label = changes.label;
  if (changes.status !== undefined) connection.status = changes.status;
  if (changes.mapping !== undefined) connection.mapping = changes.mapping;
  if (changes.eventConfig !== undefined) connection.eventConfig = withEventConfigDefaults(changes.eventConfig, connection.eventConfig);
  if (changes.outboundCredential !== undefined) {
    const context = secretContexts.connectionOutboundCredential(connection.id);
    connection.outboundCredentialSealed = changes.outboundCredential === null ? null : deps.secrets.seal(changes.outboundCredential, context);
  }
  if (outboundUrl !== undefined) connection.outboundUrl = outboundUrl;
  await deps.em.flush();
  return connection;
}

import type { Connection } from '../../persistence/entities/connection.ts';
import { rotate } from '../secrets/rotation.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';
import type { ConnectionDeps } from './connection-deps.ts';
import { findOwnedConnection } from './find-owned-connection.ts';

/** A new signing secret; posts signed with the previous one are still accepted for 24 hours. */
export async function rotateConnectionSecret(deps: ConnectionDeps, accountId: string, connectionId: string): Promise<{ connection: Connection; signingSecret: string }> {
  const connection = await findOwnedConnection(deps.em, accountId, connectionId);
  const { secret, sealed } = rotate(deps.secrets, {
    current: connection.signingSecretSealed,
    previous: connection.previousSigningSecretSealed,
    previousExpiresAt: connection.previousSigningSecretExpiresAt,
  }, secretContexts.connectionSigning(connection.id));
  connection.signingSecretSealed = sealed.current;
  connection.previousSigningSecretSealed = sealed.previous;
  connection.previousSigningSecretExpiresAt = sealed.previousExpiresAt;
  await deps.em.flush();
  return { connection, signingSecret: secret };
}

/** Deletes a connection: its inbound key stops working at once. Its events stay. */
export async function deleteConnection(deps: Pick<ConnectionDeps, 'em'>, accountId: string, connectionId: string): Promise<void> {
  const connection = await findOwnedConnection(deps.em, accountId, connectionId);
  connection.deletedAt = new Date();
  connection.status = 'paused';
  await deps.em.flush();
}

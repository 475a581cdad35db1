import type { Endpoint } from '../../persistence/entities/endpoint.ts';
import { rotate } from '../secrets/rotation.ts';
import type { EndpointDeps } from './create-endpoint.ts';
import { findOwnedEndpoint } from './find-owned-endpoint.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';

/**
 * Issues a new signing secret. The old one keeps signing beside it for 24 hours, so a receiver can switch without
 * rejecting deliveries; a second rotation within that time drops the oldest.
 */
export async function rotateEndpointSecret(
  deps: Pick<EndpointDeps, 'em' | 'secrets'>,
  accountId: string,
  endpointId: string,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const endpoint = await findOwnedEndpoint(deps.em, accountId, endpointId);
  const { secret, sealed } = rotate(deps.secrets, { current: endpoint.secretSealed, previous: endpoint.previousSecretSealed, previousExpiresAt: endpoint.previousSecretExpiresAt }, secretContexts.endpointSigning(endpoint.id));
  endpoint.secretSealed = sealed.current;
  endpoint.previousSecretSealed = sealed.previous;
  endpoint.previousSecretExpiresAt = sealed.previousExpiresAt;
  await deps.em.flush();
  return { endpoint, secret };
}

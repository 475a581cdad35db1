import type { Endpoint } from '../../persistence/entities/endpoint.ts';
import { generateWebhookSecret } from '../../security/standard-webhooks.ts';
import type { EndpointDeps } from './create-endpoint.ts';
import { findOwnedEndpoint } from './find-owned-endpoint.ts';

export const secretOverlapMs = 24 * 60 * 60 * 1000;

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
  const secret = generateWebhookSecret();
  endpoint.previousSecretSealed = endpoint.secretSealed;
  endpoint.previousSecretExpiresAt = new Date(Date.now() + secretOverlapMs);
  endpoint.secretSealed = deps.secrets.seal(secret);
  await deps.em.flush();
  return { endpoint, secret };
}

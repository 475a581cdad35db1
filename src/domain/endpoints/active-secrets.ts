import type { Endpoint } from '../../persistence/entities/endpoint.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { activeSecrets } from '../secrets/rotation.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';

/** The secrets that sign a delivery now: the current one, and the previous one during its 24 h overlap. */
export function endpointSigningSecrets(endpoint: Endpoint, box: SecretBox, now: Date): string[] {
  return activeSecrets(box, { current: endpoint.secretSealed, previous: endpoint.previousSecretSealed, previousExpiresAt: endpoint.previousSecretExpiresAt }, secretContexts.endpointSigning(endpoint.id), now);
}

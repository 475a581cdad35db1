import type { Endpoint } from '../../persistence/entities/endpoint.ts';
import type { SecretBox } from '../../security/secret-box.ts';

/** The secrets that sign a delivery now: the current one, and the previous one during its 24 h overlap. */
export function activeSecrets(endpoint: Endpoint, box: SecretBox, now: Date): string[] {
  const secrets = [box.open(endpoint.secretSealed)];
  if (endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(box.open(endpoint.previousSecretSealed));
  }
  return secrets;
}

import type { SecretBox } from '../../security/secret-box.ts';
import { generateWebhookSecret } from '../../security/standard-webhooks.ts';

/** After a rotation the previous secret stays valid this long, so the other side can switch without failures. */
export const secretOverlapMs = 24 * 60 * 60 * 1000;

export interface SealedSecrets {
  current: string;
  previous: string | null | undefined;
  previousExpiresAt: Date | null | undefined;
}

/**
 * A new `whsec_` secret, sealed for `context` (the row's, see secret-contexts.ts); the current one becomes the
 * previous, valid for the overlap.
 */
export function rotate(box: SecretBox, sealed: SealedSecrets, context: string, now = new Date()): { secret: string; sealed: Required<SealedSecrets> } {
  const secret = generateWebhookSecret();
  return {
    secret,
    sealed: { current: box.seal(secret, context), previous: sealed.current, previousExpiresAt: new Date(now.getTime() + secretOverlapMs) },
  };
}

/** The secrets valid now: the current one, and the previous one during its overlap. */
export function activeSecrets(box: SecretBox, sealed: SealedSecrets, context: string, now: Date): string[] {
  const secrets = [box.open(sealed.current, context)];
  if (sealed.previous && sealed.previousExpiresAt && sealed.previousExpiresAt > now) secrets.push(box.open(sealed.previous, context));
  return secrets;
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets that the service must be able to read back (webhook signing secrets, provider credentials,
 * idempotent answers) with AES-256-GCM under SECRETS_KEY, so a copy of the database alone does not let anyone sign as
 * an account.
 *
 * Each secret is sealed for a context that says whose it is and what it is for (`endpoint:ep_…:signing`, see
 * src/domain/secrets/secret-contexts.ts), bound in as GCM's associated data: it opens only for that same context. So
 * someone who can write to the database cannot move one account's sealed secret into a row of their own and have the
 * service use or show it there (docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md).
 *
 * Stored form: `v2.<iv>.<tag>.<ciphertext>`, each part base64url. `v1.…` was sealed without a context, before
 * docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md; it still opens, and the API re-seals stored ones as v2 when it starts (reseal-legacy-secrets.ts).
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export const legacySealPrefix = 'v1.';

export function createSecretBox(base64Key: string): SecretBox {
  const key = Buffer.from(base64Key, 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, base64-encoded');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v2', ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      if (version === 'v2') decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // GCM says only "unable to authenticate data": a changed value, another key, or another context.
        throw new Error(`the sealed secret does not open for ${context}: it was changed, sealed under another key, or belongs elsewhere`);
      }
    },
  };
}

export const generateSecretsKey = () => randomBytes(32).toString('base64');

import { createCipheriv, randomBytes } from 'node:crypto';

/** A secret sealed the way the service stored them before docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md (`v1.`, AES-256-GCM with no context). */
export function sealLegacy(base64Key: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(base64Key, 'base64'), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

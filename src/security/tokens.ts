import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random credential such as `rpk_…`: 32 random bytes, base64url, behind a prefix that says what it is. */
export function generateToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/** API keys carry 256 random bits, so a fast hash is enough: there is nothing to brute-force. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares two secrets without leaking, through timing, how much of them matched or how long they are. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

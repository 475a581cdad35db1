import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual } from './tokens.ts';

/**
 * Recording URLs: devices fetch a file's delivery audio without a key, at `/recordings/{fileId}/{signature}.m4a`, where
 * the signature is an HMAC of the file id under a key derived from SECRETS_KEY and used for nothing else. The URL is
 * stable (the same id always gives it) and unguessable (192 bits); a file id with another signature names nothing.
 * The `.m4a` ending is for iOS, whose notification attachments take their type from the name.
 */
export function recordingUrlKey(secretsKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secretsKey, 'base64'), Buffer.alloc(0), 'richpush recording url', 32));
}

/** 32 base64url characters: 192 bits of the HMAC. */
export const recordingSignature = (key: Buffer, fileId: string) => createHmac('sha256', key).update(fileId, 'utf8').digest('base64url').slice(0, 32);

export const recordingSignaturePattern = /^[A-Za-z0-9_-]{32}$/;

/** The playback URL of a file, under the service's public base (a path prefix in it is kept). */
export function recordingUrl(baseUrl: string, key: Buffer, fileId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/recordings/${encodeURIComponent(fileId)}/${recordingSignature(key, fileId)}.m4a`;
}

/** Whether `signature` is the file's, compared in constant time. */
export const recordingSignatureMatches = (key: Buffer, fileId: string, signature: string) => constantTimeEqual(recordingSignature(key, fileId), signature);

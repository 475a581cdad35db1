import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { DomainError } from '../domain/errors.ts';
import { assertStorableText } from './storable-text.ts';

/**
 * Reads the request body as bytes. raw-body checks Content-Length up front and counts while streaming, so an
 * oversized body is refused without ever being held in memory.
 */
export async function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit: limitBytes, length: req.headers['content-length'] });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      throw new DomainError('payload_too_large', `The body exceeds ${Math.floor(limitBytes / 1024)} KB`);
    }
    if (type === 'request.size.invalid' || type === 'request.aborted') {
      throw new DomainError('validation_failed', 'The body ended before its declared Content-Length');
    }
    throw error;
  }
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** Parses a JSON body; an empty body is `undefined`, so the schema decides whether a body is required. */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  return raw.length === 0 ? undefined : parseJson(raw, contentType);
}

/**
 * Parses a body its route read as bytes to verify them first (a signed post): JSON however short (an empty body is
 * not), and refused with 400 when it holds text that cannot be stored, as `parseInput` refuses it in other bodies.
 */
export function parseVerifiedJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  const body = parseJson(raw, contentType);
  assertStorableText(body, 'body');
  return body;
}

function parseJson(raw: Buffer, contentType: string | undefined): unknown {
  if (!isJsonContentType(contentType)) {
    throw new DomainError('unsupported_media_type', 'Send the body as application/json');
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new DomainError('invalid_json', 'The body is not valid JSON');
  }
}

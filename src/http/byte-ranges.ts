import type { ByteRange } from '../storage/index.ts';

/**
 * The one byte range of a `Range` header (RFC 9110, 14.2): `bytes=0-99`, `bytes=100-`, `bytes=-500`. A header that is
 * absent, malformed, of another unit, or asks for several ranges is ignored (undefined), as the RFC allows: the whole
 * content is answered.
 */
export function parseRangeHeader(header: string | undefined): ByteRange | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') return Number.isSafeInteger(Number(last)) ? { suffixLength: Number(last) } : undefined;
  const start = Number(first);
  const end = last === '' ? undefined : Number(last);
  if (!Number.isSafeInteger(start) || (end !== undefined && (!Number.isSafeInteger(end) || end < start))) return undefined;
  return { start, end };
}

/** Whether an `If-None-Match` header names this entity tag (weak comparison, `*` for any). */
export function matchesEntityTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const weak = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || weak(tag) === weak(etag));
}

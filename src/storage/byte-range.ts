import { StorageError } from './errors.ts';
import type { ByteRange } from './object-storage.ts';

/** Throws a RangeError for a range no HTTP Range header could mean (the route parses the header; a bad one is its bug). */
export function assertByteRange(range: ByteRange): void {
  const whole = (value: number) => Number.isSafeInteger(value) && value >= 0;
  const valid = 'suffixLength' in range ? whole(range.suffixLength) : whole(range.start) && (range.end === undefined || (whole(range.end) && range.end >= range.start));
  if (!valid) throw new RangeError(`not a byte range: ${JSON.stringify(range)}`);
}

/**
 * The inclusive bytes `range` names in an object of `sizeBytes`, as RFC 9110 reads a Range header: an end past the
 * object is its last byte, a suffix longer than the object is all of it. `range_not_satisfiable` when no byte is named
 * (a start at or past the end, an empty suffix, any range of an empty object).
 */
export function resolveByteRange(range: ByteRange, sizeBytes: number): { start: number; end: number } {
  assertByteRange(range);
  const lastByte = sizeBytes - 1;
  const resolved =
    'suffixLength' in range
      ? { start: Math.max(0, sizeBytes - range.suffixLength), end: lastByte }
      : { start: range.start, end: Math.min(range.end ?? lastByte, lastByte) };
  if (resolved.start > resolved.end) {
    throw new StorageError('range_not_satisfiable', `the range ${JSON.stringify(range)} names no byte of an object of ${sizeBytes} bytes`);
  }
  return resolved;
}

/** The Range header for `range`: `bytes=0-99`, `bytes=100-`, `bytes=-500`. */
export function rangeHeader(range: ByteRange): string {
  assertByteRange(range);
  if ('suffixLength' in range) return `bytes=-${range.suffixLength}`;
  return `bytes=${range.start}-${range.end ?? ''}`;
}

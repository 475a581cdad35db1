import { StorageError } from './errors.ts';

/**
 * Object keys are made by the service, never taken from a user (a file name is kept as data, not as a key): segments
 * of letters, digits, `.`, `_` and `-`, joined by `/`, each starting with a letter or digit. So no key holds `..`, an
 * empty segment, a leading `/` or a backslash, and none can name anything outside the storage root of the local
 * driver, whose own entries (`.tmp`, `.meta`) start with a dot. The same grammar holds on both drivers, so a key that
 * works in tests on one works on the other.
 */
const segmentPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const maxKeyLength = 512;

/** Throws `invalid_key` unless `key` follows the grammar. */
export function assertObjectKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > maxKeyLength || !key.split('/').every((segment) => segmentPattern.test(segment))) {
    throw new StorageError('invalid_key', `not a storage key: ${JSON.stringify(String(key).slice(0, 80))}`);
  }
}

/** Joins segments into a key, checking each: `objectKey('recordings', fileId, 'original')`. */
export function objectKey(...segments: string[]): string {
  const key = segments.join('/');
  assertObjectKey(key);
  return key;
}

/**
 * Checks a `list` prefix: empty, or whole segments and then the start of one (`recordings/app_1/`, `recordings/ap`).
 * Answers the directory part, the whole segments before the last `/`.
 */
export function prefixDirectory(prefix: string): string {
  if (prefix === '') return '';
  const cut = prefix.lastIndexOf('/');
  const directory = cut < 0 ? '' : prefix.slice(0, cut);
  const partial = prefix.slice(cut + 1);
  if (directory !== '') assertObjectKey(directory);
  if (partial !== '' && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(partial)) {
    throw new StorageError('invalid_key', `not a storage key prefix: ${JSON.stringify(prefix.slice(0, 80))}`);
  }
  return directory;
}

import { randomUUID } from 'node:crypto';
import { createWriteStream, type Stats } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { resolveByteRange } from './byte-range.ts';
import { isStorageError, StorageError } from './errors.ts';
import { assertObjectKey, prefixDirectory } from './keys.ts';
import { copyMetered } from './metered-copy.ts';
import type { ObjectInfo, ObjectRead, ObjectStorage, ObjectSummary, ReadOptions, WriteOptions, WrittenObject } from './object-storage.ts';

/** The local driver keeps its files under `<DATA_DIR>/files`. */
export const localStorageRoot = (dataDir: string) => join(resolve(dataDir), 'files');

/**
 * The local driver keeps each object as a file at `<root>/<key>`, and its content type and SHA-256 in a small JSON
 * file at `<root>/.meta/<key>.json`. A write streams into `<root>/.tmp/` (same file system), flushes, then renames the
 * metadata and the file into place, so a reader sees the old object or the new one, never a part. A file's metadata
 * is in place before it, and removed after it. The key grammar keeps keys out of the dotted folders and inside the root.
 *
 * A file system cannot hold `a` as a file and as a folder at once, so here, unlike on S3, a key cannot be both an
 * object and the start of another's (`a` and `a/b`): such a write fails with `invalid_key`. Keys of one fixed shape
 * (`recordings/<fileId>/original`) never meet this.
 */
export function createLocalStorage(rootDirectory: string): ObjectStorage {
  const root = resolve(rootDirectory);
  const tempDirectory = join(root, '.tmp');
  const metaRoot = join(root, '.meta');
  let sweep: Promise<void> | undefined;

  const pathOf = (key: string) => insideRoot(root, key);
  const metaPathOf = (key: string) => `${insideRoot(metaRoot, key)}.json`;

  async function write(key: string, body: Readable, options: WriteOptions): Promise<WrittenObject> {
    const path = pathOf(key);
    await (sweep ??= removeAbandonedTemporaries(tempDirectory).catch(() => undefined));
    await mkdir(tempDirectory, { recursive: true }).catch(unavailable);
    const temporary = join(tempDirectory, randomUUID());
    const temporaryMeta = `${temporary}.json`;
    try {
      const { sizeBytes, sha256 } = await copyMetered(body, options, (metered) =>
        pipeline(metered, createWriteStream(temporary, { flags: 'wx', flush: true })),
      );
      const sidecar: Sidecar = { contentType: options.contentType, sha256 };
      await writeFile(temporaryMeta, JSON.stringify(sidecar), { flag: 'wx', flush: true }).catch(unavailable);
      await moveInto(temporaryMeta, metaPathOf(key), key);
      await moveInto(temporary, path, key).catch(async (error: unknown) => {
        await rm(metaPathOf(key), { force: true });
        throw error;
      });
      return { key, sizeBytes, sha256, etag: etagOf(sha256), contentType: options.contentType };
    } finally {
      await Promise.all([rm(temporary, { force: true }), rm(temporaryMeta, { force: true })]);
    }
  }

  async function read(key: string, options: ReadOptions = {}): Promise<ObjectRead> {
    const path = pathOf(key);
    options.signal?.throwIfAborted();
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw isAbsence(error) ? notFound(key) : asUnavailable(error);
    });
    try {
      const info = await infoOf(key, await handle.stat());
      if (!info) throw notFound(key);
      const range = options.range && resolveByteRange(options.range, info.sizeBytes);
      const bytes = range ?? { start: 0, end: info.sizeBytes - 1 };
      // The open handle reads the file it opened, even if a write renames a new one into place meanwhile.
      const body = handle.createReadStream({ start: bytes.start, end: Math.max(bytes.end, 0), autoClose: true, signal: options.signal });
      return { ...info, body, contentLength: bytes.end - bytes.start + 1, range };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async function head(key: string): Promise<ObjectInfo | undefined> {
    return infoOf(key, await stat(pathOf(key)).catch(absentOrFail));
  }

  async function infoOf(key: string, stats: Stats | undefined): Promise<ObjectInfo | undefined> {
    if (!stats?.isFile()) return undefined;
    const sidecar = await readSidecar(metaPathOf(key));
    return {
      key,
      sizeBytes: stats.size,
      // A file put in place by hand has no metadata: its entity tag comes from the file itself.
      etag: sidecar ? etagOf(sidecar.sha256) : `"${stats.ino.toString(36)}-${stats.size.toString(36)}-${Math.trunc(stats.mtimeMs).toString(36)}"`,
      contentType: sidecar?.contentType ?? 'application/octet-stream',
      lastModified: stats.mtime,
    };
  }

  async function remove(key: string): Promise<void> {
    const path = pathOf(key);
    try {
      await rm(path, { force: true });
      await rm(metaPathOf(key), { force: true });
    } catch (error) {
      // A folder at the key holds other objects (`a/b` when deleting `a`): there is no object `a` to delete.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_FS_EISDIR' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw asUnavailable(error);
    }
    await Promise.all([removeEmptyFolders(dirname(path), root), removeEmptyFolders(dirname(metaPathOf(key)), metaRoot)]);
  }

  async function* list(prefix: string): AsyncIterable<ObjectSummary> {
    const start = join(root, prefixDirectory(prefix));
    for await (const path of filesUnder(start)) {
      const key = relative(root, path).split(sep).join('/');
      if (!key.startsWith(prefix)) continue;
      const stats = await stat(path).catch(absentOrFail);
      if (stats?.isFile()) yield { key, sizeBytes: stats.size, lastModified: stats.mtime };
    }
  }

  return { driver: 'local', write, read, head, delete: remove, list, close: async () => undefined };
}

interface Sidecar {
  contentType: string;
  sha256: string;
}

const etagOf = (sha256: string) => `"${sha256}"`;

/** The path of `key` under `base`, refusing (whatever the key grammar says) one that would leave it. */
function insideRoot(base: string, key: string): string {
  assertObjectKey(key);
  const path = resolve(base, ...key.split('/'));
  if (!path.startsWith(base + sep)) throw new StorageError('invalid_key', `the key ${JSON.stringify(key)} leaves the storage root`);
  return path;
}

/** Renames `from` to `to`, making `to`'s folder; again if a delete removed that folder (emptied) in between. */
async function moveInto(from: string, to: string, key: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await mkdir(dirname(to), { recursive: true });
      await rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && attempt < 3) continue;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOTEMPTY') {
        throw new StorageError('invalid_key', `the key ${JSON.stringify(key)} is, or is inside, another object's path on the local driver`, { cause: error });
      }
      throw asUnavailable(error);
    }
  }
}

async function readSidecar(path: string): Promise<Sidecar | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<Sidecar>;
    return typeof parsed.contentType === 'string' && typeof parsed.sha256 === 'string' ? { contentType: parsed.contentType, sha256: parsed.sha256 } : undefined;
  } catch {
    return undefined;
  }
}

/** Removes `folder` and each emptied folder above it, up to (not including) `stopAt`; stops at the first one in use. */
async function removeEmptyFolders(folder: string, stopAt: string): Promise<void> {
  for (let current = folder; current.startsWith(stopAt + sep); current = dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
  }
}

async function* filesUnder(folder: string): AsyncIterable<string> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
    if (isAbsence(error)) return [];
    throw asUnavailable(error);
  });
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

/** A temporary file older than this belongs to a write whose process died; no write takes an hour. */
const abandonedAfterMs = 3600_000;

async function removeAbandonedTemporaries(folder: string): Promise<void> {
  for (const name of await readdir(folder).catch(() => [])) {
    const path = join(folder, name);
    const stats = await stat(path).catch(() => undefined);
    if (stats && Date.now() - stats.mtimeMs > abandonedAfterMs) await rm(path, { force: true });
  }
}

const isAbsence = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

function absentOrFail(error: unknown): undefined {
  if (isAbsence(error)) return undefined;
  throw asUnavailable(error);
}

const notFound = (key: string) => new StorageError('not_found', `no object at ${JSON.stringify(key)}`);

function asUnavailable(error: unknown): StorageError {
  if (isStorageError(error)) return error;
  return new StorageError('unavailable', `the storage folder failed: ${(error as Error).message}`, { cause: error });
}

function unavailable(error: unknown): never {
  throw asUnavailable(error);
}

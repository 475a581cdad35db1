import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, isStorageError, objectKey, type ObjectStorage, type ObjectSummary, type StorageErrorCode } from '../../src/storage/index.ts';
import { seaweedFsForThisFile, seaweedFsStartTimeoutMs } from '../support/seaweedfs.ts';

// One suite, run against both drivers: the local disk (under a temporary DATA_DIR) and S3 on a real SeaweedFS, which
// checks signatures as S3 does. What a failed write could leave behind is driver-specific (temporary files and
// orphaned metadata; unfinished multipart uploads), so each driver says how to find it.

const seaweedFs = seaweedFsForThisFile();
const MiB = 1024 * 1024;

interface DriverUnderTest {
  storage: ObjectStorage;
  /** What a write could leave behind besides its object: should always be empty. */
  leftovers(): Promise<string[]>;
  stop(): Promise<void>;
}

const drivers: Array<{ name: 'local' | 's3'; start: () => Promise<DriverUnderTest> }> = [
  {
    name: 'local',
    async start() {
      const dataDir = await mkdtemp(join(tmpdir(), 'rp-storage-'));
      const root = join(dataDir, 'files');
      const storage = createStorage({ driver: 'local', root });
      return {
        storage,
        async leftovers() {
          const temporaries = (await filesUnder(join(root, '.tmp'))).map((path) => relative(root, path));
          const objects = new Set((await filesUnder(root)).map((path) => relative(root, path)));
          const orphanedMeta = (await filesUnder(join(root, '.meta')))
            .map((path) => relative(join(root, '.meta'), path).replace(/\.json$/, ''))
            .filter((key) => !objects.has(key));
          return [...temporaries, ...orphanedMeta.map((key) => `.meta of ${key}`)];
        },
        stop: () => rm(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 's3',
    async start() {
      const { s3 } = await seaweedFs();
      const storage = createStorage({ driver: 's3', ...s3 });
      const client = new S3Client(s3);
      return {
        storage,
        async leftovers() {
          const { Uploads } = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
          return (Uploads ?? []).map((upload) => `unfinished upload of ${upload.Key}`);
        },
        async stop() {
          client.destroy();
          await storage.close();
        },
      };
    },
  },
];

describe.each(drivers)('the $name storage driver', ({ name, start }) => {
  let under: DriverUnderTest;
  let storage: ObjectStorage;
  beforeAll(async () => {
    under = await start();
    storage = under.storage;
  }, seaweedFsStartTimeoutMs);
  afterAll(() => under?.stop());

  /** A key of its own for each use, so tests never see each other's objects. */
  const freshKey = (...rest: string[]) => objectKey('t', randomUUID(), ...(rest.length ? rest : ['object']));

  it('stores a body and reads it back whole, with its size, SHA-256, entity tag and type', async () => {
    const key = freshKey();
    const bytes = randomBytes(300_000);
    const written = await storage.write(key, countingBody(bytes).stream, { maxBytes: 1 * MiB, contentType: 'audio/wav' });
    expect(written).toEqual({ key, sizeBytes: bytes.length, sha256: sha256(bytes), etag: expect.stringMatching(/^".+"$/), contentType: 'audio/wav' });

    const info = await storage.head(key);
    expect(info).toEqual({ key, sizeBytes: bytes.length, etag: written.etag, contentType: 'audio/wav', lastModified: expect.any(Date) });

    const read = await storage.read(key);
    expect({ ...read, body: undefined }).toEqual({ ...info, body: undefined, contentLength: bytes.length, range: undefined });
    expect((await buffer(read.body)).equals(bytes)).toBe(true);
  });

  it('streams a body of several 5 MiB parts, and an empty one', async () => {
    const large = randomBytes(12 * MiB + 12_345);
    const key = freshKey();
    const written = await storage.write(key, countingBody(large).stream, { maxBytes: 13 * MiB, contentType: 'audio/mp4' });
    expect(written.sizeBytes).toBe(large.length);
    expect(written.sha256).toBe(sha256(large));
    expect((await buffer((await storage.read(key)).body)).equals(large)).toBe(true);

    const empty = freshKey();
    expect(await storage.write(empty, countingBody(Buffer.alloc(0)).stream, { maxBytes: 10, contentType: 'audio/mp4' })).toMatchObject({
      sizeBytes: 0,
      sha256: sha256(Buffer.alloc(0)),
    });
    const read = await storage.read(empty);
    expect([read.sizeBytes, read.contentLength, (await buffer(read.body)).length]).toEqual([0, 0, 0]);
  });

  it('reads byte ranges as HTTP Range names them, and refuses one past the end', async () => {
    const key = freshKey();
    const bytes = randomBytes(10_000);
    await storage.write(key, countingBody(bytes).stream, { maxBytes: bytes.length, contentType: 'audio/mp4' });
    const cases = [
      { range: { start: 0, end: 99 }, expected: { start: 0, end: 99 } },
      { range: { start: 9_000 }, expected: { start: 9_000, end: 9_999 } },
      { range: { start: 9_990, end: 1_000_000 }, expected: { start: 9_990, end: 9_999 } },
      { range: { suffixLength: 500 }, expected: { start: 9_500, end: 9_999 } },
      { range: { suffixLength: 50_000 }, expected: { start: 0, end: 9_999 } },
      { range: { start: 9_999, end: 9_999 }, expected: { start: 9_999, end: 9_999 } },
    ];
    for (const { range, expected } of cases) {
      const read = await storage.read(key, { range });
      const body = await buffer(read.body);
      expect({ range: read.range, contentLength: read.contentLength, sizeBytes: read.sizeBytes, contentType: read.contentType }, JSON.stringify(range)).toEqual({
        range: expected,
        contentLength: expected.end - expected.start + 1,
        sizeBytes: bytes.length,
        contentType: 'audio/mp4',
      });
      expect(body.equals(bytes.subarray(expected.start, expected.end + 1)), JSON.stringify(range)).toBe(true);
    }
    await expectStorageError(storage.read(key, { range: { start: 10_000 } }), 'range_not_satisfiable');
    await expectStorageError(storage.read(key, { range: { start: 20_000, end: 30_000 } }), 'range_not_satisfiable');
  });

  it('takes a body of exactly the cap, and refuses one byte more with too_large, storing nothing', async () => {
    const atCap = freshKey();
    const written = await storage.write(atCap, countingBody(randomBytes(4096)).stream, { maxBytes: 4096, contentType: 'audio/wav' });
    expect(written.sizeBytes).toBe(4096);

    const overCap = freshKey();
    await expectStorageError(storage.write(overCap, countingBody(randomBytes(4097)).stream, { maxBytes: 4096, contentType: 'audio/wav' }), 'too_large');
    expect(await storage.head(overCap)).toBeUndefined();
    expect(await under.leftovers()).toEqual([]);
  });

  // 1 MiB is cut inside S3's first part (nothing sent yet); 12 MiB after two parts went up (the upload is aborted).
  it.each([1 * MiB, 12 * MiB])('stops reading a body as soon as it passes a cap of %i bytes, and leaves it to the caller', async (maxBytes) => {
    const key = freshKey();
    const body = countingBody(64 * MiB);
    await expectStorageError(storage.write(key, body.stream, { maxBytes, contentType: 'audio/wav' }), 'too_large');
    // What was read past the cap is a few stream buffers, not the rest of the 64 MiB.
    expect(body.pulled()).toBeGreaterThan(maxBytes);
    expect(body.pulled()).toBeLessThan(maxBytes + 1 * MiB);
    // The body is the caller's: left paused and whole, so an HTTP handler can still answer 413 on its connection.
    expect(body.stream.destroyed).toBe(false);
    expect(body.stream.isPaused()).toBe(true);
    expect(await storage.head(key)).toBeUndefined();
    expect(await under.leftovers()).toEqual([]);
    body.stream.destroy();
  });

  it("fails with the body's own error when it breaks off, and stores nothing", async () => {
    const key = freshKey();
    const broken = countingBody(randomBytes(12 * MiB), { failAfterBytes: 7 * MiB });
    await expect(storage.write(key, broken.stream, { maxBytes: 50 * MiB, contentType: 'audio/wav' })).rejects.toThrow('the client went away');
    expect(await storage.head(key)).toBeUndefined();
    await expectStorageError(storage.read(key), 'not_found');
    expect(await under.leftovers()).toEqual([]);
  });

  it("stops when the caller's signal aborts, and stores nothing", async () => {
    const key = freshKey();
    const controller = new AbortController();
    const body = countingBody(64 * MiB, { onPulled: (pulled) => pulled >= 6 * MiB && controller.abort(new Error('cancelled by the activity')) });
    await expect(storage.write(key, body.stream, { maxBytes: 64 * MiB, contentType: 'audio/wav', signal: controller.signal })).rejects.toThrow('cancelled by the activity');
    expect(body.pulled()).toBeLessThan(8 * MiB);
    expect(await storage.head(key)).toBeUndefined();
    expect(await under.leftovers()).toEqual([]);
    body.stream.destroy();
  });

  it('keeps the object at a key whole when a write over it fails', async () => {
    const key = freshKey();
    const original = randomBytes(6 * MiB);
    const written = await storage.write(key, countingBody(original).stream, { maxBytes: 8 * MiB, contentType: 'audio/wav' });
    await expectStorageError(storage.write(key, countingBody(randomBytes(9 * MiB)).stream, { maxBytes: 8 * MiB, contentType: 'audio/mp4' }), 'too_large');
    await expect(storage.write(key, countingBody(randomBytes(7 * MiB), { failAfterBytes: 6 * MiB }).stream, { maxBytes: 8 * MiB, contentType: 'audio/mp4' })).rejects.toThrow(
      'the client went away',
    );
    const read = await storage.read(key);
    expect([read.etag, read.contentType, read.sizeBytes]).toEqual([written.etag, 'audio/wav', original.length]);
    expect((await buffer(read.body)).equals(original)).toBe(true);
    expect(await under.leftovers()).toEqual([]);
  });

  it('replaces an object by writing the key again', async () => {
    const key = freshKey();
    const first = await storage.write(key, countingBody(Buffer.from('first take')).stream, { maxBytes: 100, contentType: 'audio/wav' });
    const second = await storage.write(key, countingBody(Buffer.from('second take')).stream, { maxBytes: 100, contentType: 'audio/mp4' });
    expect(second.etag).not.toBe(first.etag);
    const read = await storage.read(key);
    expect([read.etag, read.contentType, (await buffer(read.body)).toString()]).toEqual([second.etag, 'audio/mp4', 'second take']);
  });

  it('deletes an object, and deleting an absent one succeeds', async () => {
    const key = freshKey();
    await storage.write(key, countingBody(Buffer.from('a take')).stream, { maxBytes: 100, contentType: 'audio/wav' });
    await storage.delete(key);
    expect(await storage.head(key)).toBeUndefined();
    await expectStorageError(storage.read(key), 'not_found');
    await storage.delete(key);
    await storage.delete(freshKey());
  });

  it('lists the objects under a prefix', async () => {
    const base = objectKey('t', randomUUID());
    const keys = ['takes/1', 'takes/2', 'takes-old/3', 'delivery/4'].map((rest) => `${base}/${rest}`);
    for (const [index, key] of keys.entries()) {
      await storage.write(key, countingBody(Buffer.alloc(index + 1)).stream, { maxBytes: 100, contentType: 'audio/wav' });
    }
    const listed = async (prefix: string) => (await listAll(storage, prefix)).map(({ key, sizeBytes }) => `${key.slice(base.length + 1)}:${sizeBytes}`).sort();
    expect(await listed(`${base}/takes/`)).toEqual(['takes/1:1', 'takes/2:2']);
    expect(await listed(`${base}/takes`)).toEqual(['takes-old/3:3', 'takes/1:1', 'takes/2:2']);
    expect(await listed(`${base}/`)).toEqual(['delivery/4:4', 'takes-old/3:3', 'takes/1:1', 'takes/2:2']);
    expect(await listed(`${base}/nothing/`)).toEqual([]);
    await storage.delete(keys[0]!);
    expect(await listed(`${base}/takes/`)).toEqual(['takes/2:2']);
  });

  it('refuses every key that is not one the service makes, so none can name a path outside its place', async () => {
    const badKeys = ['../escape', 'a/../../escape', '/etc/passwd', 'a//b', '', '.hidden', 'a/./b', '..', 'a/..', 'a\\b', 'take 1.wav', '%2e%2e/x', `a/${'x'.repeat(600)}`, 'a/'];
    for (const key of badKeys) {
      await expectStorageError(storage.write(key, countingBody(Buffer.from('x')).stream, { maxBytes: 10, contentType: 'audio/wav' }), 'invalid_key', key);
      await expectStorageError(storage.read(key), 'invalid_key', key);
      await expectStorageError(storage.head(key), 'invalid_key', key);
      await expectStorageError(storage.delete(key), 'invalid_key', key);
    }
    await expectStorageError(listAll(storage, '../'), 'invalid_key');
    // A user's file name is never a key segment: objectKey refuses it.
    expect(() => objectKey('recordings', '../../etc', 'passwd')).toThrow(/not a storage key/);
    expect(await under.leftovers()).toEqual([]);
  });

  it(name === 's3' ? 'hands out presigned GET URLs' : 'has no presigned URLs: the service serves the files itself', () => {
    expect(typeof storage.presignedGetUrl).toBe(name === 's3' ? 'function' : 'undefined');
  });
});

describe('the local driver on disk', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'rp-storage-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps each object as a file under its root, and writes nothing outside it', async () => {
    const root = join(dataDir, 'files');
    const storage = createStorage({ driver: 'local', root });
    await storage.write('recordings/f1/original', countingBody(Buffer.from('take')).stream, { maxBytes: 10, contentType: 'audio/wav' });
    await expectStorageError(storage.write('../outside', countingBody(Buffer.from('x')).stream, { maxBytes: 10, contentType: 'audio/wav' }), 'invalid_key');
    expect(await readdir(dataDir)).toEqual(['files']);
    const files = async () => (await filesUnder(root)).map((path) => relative(root, path).split(sep).join('/')).sort();
    expect(await files()).toEqual(['.meta/recordings/f1/original.json', 'recordings/f1/original']);
    // Deleting the last object of a folder removes the emptied folders too, its metadata's included.
    await storage.delete('recordings/f1/original');
    expect(await files()).toEqual([]);
    expect(await readdir(root)).toEqual(expect.not.arrayContaining(['recordings']));
    expect(await readdir(join(root, '.meta'))).toEqual([]);
  });

  it('removes the temporary file of a write whose process died, once it is an hour old', async () => {
    const root = join(dataDir, 'sweep');
    const temporaries = join(root, '.tmp');
    await mkdir(temporaries, { recursive: true });
    await writeFile(join(temporaries, 'abandoned'), 'half a take');
    await writeFile(join(temporaries, 'in-progress'), 'a take being written');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(temporaries, 'abandoned'), twoHoursAgo, twoHoursAgo);
    await createStorage({ driver: 'local', root }).write('a', countingBody(Buffer.from('x')).stream, { maxBytes: 10, contentType: 'audio/wav' });
    expect(await readdir(temporaries)).toEqual(['in-progress']);
  });

  it('refuses a key that is an object and a folder of others at once, which a file system cannot hold', async () => {
    const storage = createStorage({ driver: 'local', root: join(dataDir, 'collide') });
    await storage.write('a/b', countingBody(Buffer.from('x')).stream, { maxBytes: 10, contentType: 'audio/wav' });
    await expectStorageError(storage.write('a', countingBody(Buffer.from('y')).stream, { maxBytes: 10, contentType: 'audio/wav' }), 'invalid_key');
    await expectStorageError(storage.write('a/b/c', countingBody(Buffer.from('z')).stream, { maxBytes: 10, contentType: 'audio/wav' }), 'invalid_key');
    expect(await storage.head('a')).toBeUndefined();
    await storage.delete('a');
    expect((await buffer((await storage.read('a/b')).body)).toString()).toBe('x');
  });
});

describe('the S3 driver against SeaweedFS', () => {
  let storage: ObjectStorage;
  let s3: Awaited<ReturnType<typeof seaweedFs>>['s3'];
  const key = objectKey('t', randomUUID(), 'delivery');
  const bytes = randomBytes(100_000);
  beforeAll(async () => {
    ({ s3 } = await seaweedFs());
    storage = createStorage({ driver: 's3', ...s3 });
    await storage.write(key, countingBody(bytes).stream, { maxBytes: bytes.length, contentType: 'audio/mp4' });
  }, seaweedFsStartTimeoutMs);
  afterAll(() => storage?.close());

  it('presigns a GET that fetches the object, whole or a range, with its type', async () => {
    const url = await storage.presignedGetUrl!(key, { expiresInSeconds: 60 });
    const whole = await fetch(url);
    expect([whole.status, whole.headers.get('content-type')]).toEqual([200, 'audio/mp4']);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(url, { headers: { Range: 'bytes=10-19' } });
    expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 10-19/${bytes.length}`]);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
  });

  it('signs URLs that the server refuses once expired', async () => {
    // Signed by a clock two minutes behind: a 60 s URL expired a minute ago; a 300 s one is still good.
    const behind = createStorage({ driver: 's3', ...s3 }, { now: () => new Date(Date.now() - 120_000) });
    try {
      const expired = await fetch(await behind.presignedGetUrl!(key, { expiresInSeconds: 60 }));
      expect(expired.status).toBe(403);
      expect(await expired.text()).toMatch(/expired/i);
      expect((await fetch(await behind.presignedGetUrl!(key, { expiresInSeconds: 300 }))).status).toBe(200);
    } finally {
      await behind.close();
    }
  });

  it('is refused by the server with a wrong secret, or with no signature at all', async () => {
    const impostor = createStorage({ driver: 's3', ...s3, credentials: { ...s3.credentials, secretAccessKey: 'not-the-secret' } });
    try {
      const failure = await impostor.write(objectKey('t', randomUUID()), countingBody(Buffer.from('x')).stream, { maxBytes: 10, contentType: 'audio/wav' }).catch((error: unknown) => error);
      expect(isStorageError(failure, 'unavailable')).toBe(true);
      expect(((failure as Error).cause as Error).name).toBe('SignatureDoesNotMatch');
      await expectStorageError(impostor.read(key), 'unavailable');
      expect((await fetch(await impostor.presignedGetUrl!(key))).status).toBe(403);
    } finally {
      await impostor.close();
    }
    const unsigned = await fetch(`${s3.endpoint}/${s3.bucket}/${key}`);
    expect(unsigned.status).toBe(403);
  });
});

async function listAll(storage: ObjectStorage, prefix: string): Promise<ObjectSummary[]> {
  const summaries: ObjectSummary[] = [];
  for await (const summary of storage.list(prefix)) summaries.push(summary);
  return summaries;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A body the writer pulls from in 64 KiB chunks, counting what it pulled: `content` itself, or that many zero bytes.
 * `failAfterBytes` breaks it off there (a client that went away); `onPulled` sees the count after each chunk.
 */
function countingBody(content: Buffer | number, options: { failAfterBytes?: number; onPulled?: (pulled: number) => unknown } = {}) {
  const chunkBytes = 64 * 1024;
  const total = typeof content === 'number' ? content : content.length;
  const zeros = Buffer.alloc(chunkBytes);
  let pulled = 0;
  const stream = new Readable({
    highWaterMark: chunkBytes,
    read() {
      if (options.failAfterBytes !== undefined && pulled >= options.failAfterBytes) {
        this.destroy(new Error('the client went away'));
        return;
      }
      if (pulled >= total) {
        this.push(null);
        return;
      }
      const size = Math.min(chunkBytes, total - pulled);
      const chunk = typeof content === 'number' ? zeros.subarray(0, size) : content.subarray(pulled, pulled + size);
      pulled += size;
      this.push(chunk);
      options.onPulled?.(pulled);
    },
  });
  return { stream, pulled: () => pulled };
}

async function expectStorageError(operation: Promise<unknown>, code: StorageErrorCode, what = ''): Promise<void> {
  const failure = await operation.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(isStorageError(failure) ? failure.code : failure, `${code} expected ${what}`).toBe(code);
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ffmpegAt, type Ffmpeg } from '../../src/media/index.ts';
import { recordingSignature, recordingUrlKey } from '../../src/security/recording-urls.ts';
import { localStorageRoot } from '../../src/storage/local-storage.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { encodeWith, sineWav, wavHeader } from '../support/audio.ts';
import { query } from '../support/db.ts';
import { accountUpload, fileRow, readyFile, settledFile, shortTake, streamUpload, uploadFile, uploadPastItsAnswer } from '../support/files.ts';
import { expectError, ok } from '../support/http-assertions.ts';
import { startApiInstance, suiteFileSettings } from '../support/instances.ts';

// POST /file/upload and GET /file/get, black-box, with audio the tests write (WAV) or encode with ffmpeg (MP3, M4A),
// and each bad input of issue 41 that concerns an upload; then the recording URL devices play.

let ffmpeg: Ffmpeg;
let scratch: string;
beforeAll(async () => {
  ffmpeg = await ffmpegAt(inject('ffmpegPath'));
  scratch = await mkdtemp(join(tmpdir(), 'rp-files-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const storageRoot = () => localStorageRoot(inject('dataDir'));
/** What storage holds of the account: its files' folders, by file id. */
const storedFolders = async (account: TestAccount) => readdir(join(storageRoot(), 'recordings', account.accountId)).catch(() => [] as string[]);
const fileRows = (account: TestAccount) => query('select id, status from files where account_id = $1', [account.accountId]);

/** A take encoded by ffmpeg from a WAV the test wrote. */
async function encoded(name: string, seconds: number, args: string[] = []): Promise<Buffer> {
  const wav = join(scratch, `${name}.wav`);
  await writeFile(wav, sineWav({ seconds, sampleRate: 44_100, channels: 2 }));
  const out = join(scratch, name);
  await encodeWith(ffmpeg, wav, out, args);
  return readFile(out);
}

/** Within 5 % of what the test wrote. */
const closeTo = (actualMs: number, seconds: number) => expect(Math.abs(actualMs - seconds * 1000)).toBeLessThanOrEqual(seconds * 50);

describe('POST /file/upload: a file that plays', () => {
  it('takes a WAV (202 processing), then processes it on the worker: ready, its length within 5 %, with what was measured', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const bytes = sineWav({ seconds: 3, sampleRate: 48_000, channels: 2, peakDbfs: -20 });
    const uploaded = ok(await uploadFile(account, bytes, { fileName: 'Take one.wav' }), 202);
    expect(uploaded).toMatchObject({ fileId: expect.stringMatching(/^fil_[A-Za-z0-9_-]{22}$/), appId: account.appId, jobId: null, status: 'processing', reason: null, fileName: 'Take one.wav' });
    expect(uploaded.sizeBytes).toBe(bytes.length);

    const file = await settledFile(account, uploaded.fileId);
    expect(file).toMatchObject({ status: 'ready', reason: null, detail: null, detectedType: 'wav', sampleRate: 48_000, channels: 2, contentType: 'audio/mp4', sizeBytes: bytes.length });
    closeTo(file.durationMs, 3);
    // A −20 dBFS sine measures about −23 LUFS (mono downmix); the delivery file is at −16.
    expect(file.loudnessLufs).toBeGreaterThan(-26);
    expect(file.loudnessLufs).toBeLessThan(-20);
    expect(file.waveform).toHaveLength(200);
    // A steady tone at −16 LUFS peaks near −13 dBFS: about a quarter of full scale, the same all along.
    expect(Math.min(...file.waveform.slice(10, 190))).toBeGreaterThan(0.15);
    expect(file.url).toMatch(new RegExp(`/recordings/${file.fileId}/[A-Za-z0-9_-]{32}\\.m4a$`));
    expect(file.processedAt).toEqual(expect.any(String));

    // The original is kept as sent; the delivery file beside it.
    const folder = join(storageRoot(), 'recordings', account.accountId, file.fileId);
    expect((await readdir(folder)).sort()).toEqual(['delivery.m4a', 'original']);
    expect((await readFile(join(folder, 'original'))).equals(bytes)).toBe(true);
  });

  it.each([
    ['an MP3', 'take.mp3', 'audio/mpeg', 'mp3'],
    ['an M4A', 'take.m4a', 'audio/mp4', 'm4a'],
  ])('takes %s made by ffmpeg, and reads its length within 5 %', { timeout: 60_000 }, async (_name, fileName, contentType, detectedType) => {
    const account = await newAccount();
    const file = await readyFile(account, await encoded(fileName, 4), { fileName, contentType });
    expect(file).toMatchObject({ status: 'ready', detectedType, sampleRate: 44_100, channels: 2, contentType: 'audio/mp4' });
    closeTo(file.durationMs, 4);
  });

  it('takes application/octet-stream or no Content-Type, which declare nothing', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    for (const contentType of ['application/octet-stream', null]) {
      expect((await readyFile(account, shortTake(), { contentType })).status).toBe('ready');
    }
  });
});

describe('POST /file/upload: bad input', () => {
  /** Uploaded and refused on its first bytes: 202 with the file rejected, its reason and a sentence; nothing stored. */
  async function rejectedAtOnce(account: TestAccount, bytes: Buffer, options: { fileName?: string; contentType?: string | null }, reason: string) {
    const uploaded = ok(await uploadFile(account, bytes, options), 202);
    expect(uploaded).toMatchObject({ status: 'rejected', reason, detail: expect.any(String), sizeBytes: bytes.length, durationMs: null });
    expect(ok(await call('GET', `/file/get?id=${uploaded.fileId}`, { token: account.apiKey }))).toEqual(uploaded);
    expect(await storedFolders(account)).not.toContain(uploaded.fileId);
    return uploaded;
  }

  it('rejects an empty body: not_audio', async () => {
    const account = await newAccount();
    const file = await rejectedAtOnce(account, Buffer.alloc(0), {}, 'not_audio');
    expect(file.detail).toContain('an empty file');
  });

  it('rejects a text file named .mp3 and sent as audio/mpeg: not_audio, whatever its name and header say', async () => {
    const account = await newAccount();
    const text = Buffer.from('Dear artist,\nplease record the script below.\n'.repeat(50));
    const file = await rejectedAtOnce(account, text, { fileName: 'take.mp3', contentType: 'audio/mpeg' }, 'not_audio');
    expect(file).toMatchObject({ fileName: 'take.mp3', detail: expect.stringContaining('text') });
  });

  it('rejects random bytes: not_audio', async () => {
    const account = await newAccount();
    await rejectedAtOnce(account, randomBytes(200_000), { contentType: 'application/octet-stream' }, 'not_audio');
  });

  it('rejects a WAV declared as audio/mpeg: type_mismatch', async () => {
    const account = await newAccount();
    const file = await rejectedAtOnce(account, shortTake(), { contentType: 'audio/mpeg' }, 'type_mismatch');
    expect(file.detail).toBe('It was declared audio/mpeg, but the bytes are WAV.');
  });

  it('rejects a truncated MP3 on the worker: unreadable, it was cut off', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const whole = await encoded('cut.mp3', 8);
    const uploaded = ok(await uploadFile(account, whole.subarray(0, Math.floor(whole.length / 2)), { contentType: 'audio/mpeg' }), 202);
    expect(uploaded.status).toBe('processing');
    const file = await settledFile(account, uploaded.fileId);
    expect(file).toMatchObject({ status: 'rejected', reason: 'unreadable', detail: expect.stringContaining('cut off'), durationMs: null });
    expect(await storedFolders(account)).toContain(file.fileId);
    expect(await readdir(join(storageRoot(), 'recordings', account.accountId, file.fileId))).toEqual(['original']);
  });

  it('rejects a WAV whose header claims more data than it has: unreadable', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const whole = sineWav({ seconds: 4, sampleRate: 22_050 });
    const cut = Buffer.concat([wavHeader({ sampleRate: 22_050, channels: 1, dataBytes: whole.length - 44 }), whole.subarray(44, 44 + (whole.length - 44) / 2)]);
    const file = await settledFile(account, ok(await uploadFile(account, cut), 202).fileId);
    expect(file).toMatchObject({ status: 'rejected', reason: 'unreadable', detail: expect.stringMatching(/header announces .* bytes.*cut off/) });
  });

  it('rejects a 10-minute WAV: too_long', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    // 8 kHz mono keeps ten minutes (9.6 MB) under the suite's RECORDING_MAX_BYTES.
    const file = await settledFile(account, ok(await uploadFile(account, sineWav({ seconds: 600, sampleRate: 8000 })), 202).fileId);
    expect(file).toMatchObject({ status: 'rejected', reason: 'too_long', detail: expect.stringContaining('600') });
  });

  it('keeps a fileName with ../ as a name to show, and never as a path', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const fileName = '../../../../etc/passwd.wav';
    const file = await readyFile(account, shortTake(), { fileName });
    expect(file.fileName).toBe(fileName);
    expect(await storedFolders(account)).toEqual([file.fileId]);
    expect(existsSync(join(storageRoot(), '..', 'etc'))).toBe(false);
    expect(existsSync(join(storageRoot(), 'etc'))).toBe(false);
    const [row] = await query('select original_key, delivery_key from files where id = $1', [file.fileId]);
    expect(row).toEqual({ original_key: `recordings/${account.accountId}/${file.fileId}/original`, delivery_key: `recordings/${account.accountId}/${file.fileId}/delivery.m4a` });
  });

  it('refuses a Content-Type that is not audio: 415, nothing recorded', async () => {
    const account = await newAccount();
    for (const contentType of ['text/plain', 'application/json', 'video/mp4']) {
      expectError(await uploadFile(account, shortTake(), { contentType }), 415, 'unsupported_media_type');
    }
    expect(await fileRows(account)).toEqual([]);
  });

  it("answers 404 for another account's app, and 400 for a query that is not valid", async () => {
    const account = await newAccount();
    const other = await newAccount();
    expectError(await uploadFile(account, shortTake(), { appId: other.appId }), 404, 'not_found');
    expectError(await uploadFile(account, shortTake(), { appId: 'not-an-app' }), 400, 'validation_failed');
    expectError(await uploadFile(account, shortTake(), { fileName: 'x'.repeat(256) }), 400, 'validation_failed');
    expect(await fileRows(account)).toEqual([]);
  });

  it('answers 503 media_unavailable, storing nothing, where recordings cannot be processed', async () => {
    const api = await startApiInstance({ files: { ...suiteFileSettings(), media: { available: false, reason: 'No ffmpeg: FFMPEG_PATH is unset and there is no ffmpeg on PATH.' } } });
    try {
      const account = await newAccount();
      const refused = await uploadFile(account, shortTake(), { baseUrl: api.url });
      expectError(refused, 503, 'media_unavailable');
      expect(refused.body.error.message).toContain('No ffmpeg');
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(await fileRows(account)).toEqual([]);
    } finally {
      await api.stop();
    }
  });
});

describe('POST /file/upload: a body over RECORDING_MAX_BYTES', () => {
  const sixtyMegabytes = 60 * 1000 * 1000;

  it('answers a 60 MB body 413 too_large while it streams, without reading the rest, and stores nothing', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const cap = inject('recordingMaxBytes');
    const answer = await streamUpload(accountUpload(account), sixtyMegabytes);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: 'too_large', message: expect.stringContaining(String(cap)) });
    expect(answer.connection).toBe('close');
    // Answered soon after the cap, not after the whole body: what was sent by then is the cap and the socket buffers.
    expect(answer.sentBeforeAnswer).toBeLessThan(cap + 8 * 1024 * 1024);
    expect(answer.ms).toBeLessThan(15_000);
    expect(await fileRows(account)).toEqual([]);
    expect(await storedFolders(account)).toEqual([]);
    const temporary = await readdir(join(storageRoot(), '.tmp')).catch(() => [] as string[]);
    expect(temporary.filter((name) => name.includes(account.accountId))).toEqual([]);
  });

  it('answers 413 at once to a Content-Length over the cap, before reading the body', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const answer = await streamUpload(accountUpload(account), sixtyMegabytes, { 'content-length': String(sixtyMegabytes) });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('too_large');
    expect(answer.sentBeforeAnswer).toBeLessThan(8 * 1024 * 1024);
    expect(await fileRows(account)).toEqual([]);
  });

  it('closes the connection in stages: a client still sending after the 413 is read to its end, not reset', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const megabyte = 1024 * 1024;
    const { answer, error } = await uploadPastItsAnswer(accountUpload(account), { announced: sixtyMegabytes, before: megabyte, after: 4 * megabyte });
    expect(error).toBeUndefined();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"too_large"');
    expect(await fileRows(account)).toEqual([]);
  });
});

describe('GET /file/get', () => {
  it("answers 404 for another account's file and 400 for an id of another shape", async () => {
    const account = await newAccount();
    const other = await newAccount();
    const { fileId } = await fileRow(other);
    expectError(await call('GET', `/file/get?id=${fileId}`, { token: account.apiKey }), 404, 'not_found');
    expect(ok(await call('GET', `/file/get?id=${fileId}`, { token: other.apiKey })).fileId).toBe(fileId);
    expectError(await call('GET', '/file/get?id=../../etc/passwd', { token: account.apiKey }), 400, 'validation_failed');
  });
});

describe('the recording URL', () => {
  let account: TestAccount;
  let file: any;
  beforeAll(async () => {
    account = await newAccount();
    file = await readyFile(account, sineWav({ seconds: 2, sampleRate: 44_100 }));
  }, 60_000);

  const deliveryFile = () => readFile(join(storageRoot(), 'recordings', account.accountId, file.fileId, 'delivery.m4a'));

  it('plays the delivery file without a key: audio/mp4, its ETag, cacheable for good', async () => {
    const played = await fetch(file.url);
    expect(played.status).toBe(200);
    const body = Buffer.from(await played.arrayBuffer());
    expect(body.equals(await deliveryFile())).toBe(true);
    expect(body.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(Object.fromEntries(played.headers)).toMatchObject({
      'content-type': 'audio/mp4',
      'content-length': String(body.length),
      'accept-ranges': 'bytes',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: expect.stringMatching(/^"[0-9a-f]{64}"$/),
    });
    const again = await fetch(file.url, { headers: { 'if-none-match': played.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const head = await fetch(file.url, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('content-type')]).toEqual([200, String(body.length), 'audio/mp4']);
  });

  it('answers a Range with 206 and those bytes, and 416 past the end', async () => {
    const whole = await deliveryFile();
    const first = await fetch(file.url, { headers: { range: 'bytes=0-99' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${whole.length}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(whole.subarray(0, 100))).toBe(true);
    const tail = await fetch(file.url, { headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(-10))).toBe(true);
    const past = await fetch(file.url, { headers: { range: `bytes=${whole.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    expect(((await past.json()) as any).error.code).toBe('range_not_satisfiable');
    // A Range it does not understand is ignored: the whole file.
    expect((await fetch(file.url, { headers: { range: 'bytes=0-1,5-6' } })).status).toBe(200);
  });

  it('is 404 under a signature that is not the file’s, and for an unknown file', async () => {
    const wrong = file.url.replace(/\/[A-Za-z0-9_-]{32}\.m4a$/, `/${'A'.repeat(32)}.m4a`);
    const refused = await fetch(wrong);
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe('not_found');
    const other = file.url.replace(file.fileId, `fil_${'B'.repeat(22)}`);
    expect((await fetch(other)).status).toBe(404);
    expect((await fetch(file.url.replace(/\.m4a$/, '.mp3'))).status).toBe(400);
  });

  it('is 409 file_not_ready while the file processes, and 404 once it is rejected', async () => {
    const key = recordingUrlKey(inject('secretsKey'));
    const urlOf = (fileId: string) => `${inject('apiUrl')}/recordings/${fileId}/${recordingSignature(key, fileId)}.m4a`;
    const processing = await fetch(urlOf((await fileRow(account, { status: 'processing' })).fileId));
    expect(processing.status).toBe(409);
    expect(((await processing.json()) as any).error.code).toBe('file_not_ready');
    expect((await fetch(urlOf((await fileRow(account, { status: 'rejected' })).fileId))).status).toBe(404);
  });
});

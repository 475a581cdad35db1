import { describe, expect, it } from 'vitest';
import { declaredTypeAgrees, isUploadContentType } from '../../src/media/audio-types.ts';
import { bytesSource } from '../../src/media/byte-source.ts';
import { detectAudioType, type Detection } from '../../src/media/detect-audio-type.ts';
import { sineWav, wavHeader } from '../support/audio.ts';

// The sniffer on bytes built here, field by field, for the edge cases that real files seldom show on purpose. The
// formats as ffmpeg writes them are covered in process-recording.test.ts.

const detect = (bytes: Uint8Array | string): Promise<Detection> => detectAudioType(bytesSource(typeof bytes === 'string' ? Buffer.from(bytes) : bytes));

/** MPEG-1 Layer III, 128 kbps, 44.1 kHz, no padding: 417-byte frames. */
function mp3Frames(count: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat(Array.from({ length: count }, () => frame));
}

/** AAC-LC ADTS, 44.1 kHz, mono, no CRC, `length` bytes a frame. */
function adtsFrames(count: number, length = 200): Buffer {
  const frame = Buffer.alloc(length);
  frame.set([0xff, 0xf1, 0x50, 0x40 | (length >> 11), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc]);
  return Buffer.concat(Array.from({ length: count }, () => frame));
}

function id3Tag(bodyBytes: number): Buffer {
  const size = [21, 14, 7, 0].map((shift) => (bodyBytes >> shift) & 0x7f);
  return Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, ...size]), Buffer.alloc(bodyBytes)]);
}

/** An Ogg page that begins a stream (BOS) and holds one packet. */
function oggFirstPage(packet: string): Buffer {
  const body = Buffer.from(packet, 'latin1');
  const header = Buffer.alloc(28);
  header.write('OggS', 0, 'ascii');
  header[5] = 0x02;
  header[26] = 1;
  header[27] = body.length;
  return Buffer.concat([header, body, Buffer.alloc(64)]);
}

function ftyp(major: string, ...compatible: string[]): Buffer {
  const brands = [major, '\0\0\0\0', ...compatible].join('');
  const box = Buffer.alloc(8 + brands.length);
  box.writeUInt32BE(box.length, 0);
  box.write(`ftyp${brands}`, 4, 'latin1');
  return Buffer.concat([box, Buffer.from('\0\0\0\x08free')]);
}

/** A seeded generator (mulberry32), so that "random bytes" are the same bytes on every run. */
function randomBytesFrom(seed: number, length: number): Buffer {
  let state = seed;
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    bytes[index] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return bytes;
}

describe('the audio type, from the bytes', () => {
  it('reads a WAV the test wrote, and the length its header claims', async () => {
    const wav = sineWav({ seconds: 0.1 });
    expect(await detect(wav)).toEqual({ audio: true, type: 'wav', claimedSize: wav.length });
  });

  it('keeps the claim of a WAV header that promises more data than the file has', async () => {
    const header = wavHeader({ sampleRate: 8000, channels: 1, dataBytes: 160_000 });
    expect(await detect(Buffer.concat([header, Buffer.alloc(16_000)]))).toEqual({ audio: true, type: 'wav', claimedSize: 44 + 160_000 });
  });

  it('takes no claim from a WAV written to a pipe, whose sizes are left at 0xFFFFFFFF', async () => {
    const header = wavHeader({ sampleRate: 8000, channels: 1, dataBytes: 0 });
    header.writeUInt32LE(0xffff_ffff, 4);
    header.writeUInt32LE(0xffff_ffff, 40);
    expect(await detect(Buffer.concat([header, Buffer.alloc(1600)]))).toEqual({ audio: true, type: 'wav' });
  });

  it('reads AIFF and AIFF-C by their FORM header', async () => {
    const form = (kind: string) => Buffer.concat([Buffer.from(`FORM\0\0\0\x0c${kind}COMM`, 'latin1'), Buffer.alloc(8)]);
    expect(await detect(form('AIFF'))).toEqual({ audio: true, type: 'aiff', claimedSize: 20 });
    expect(await detect(form('AIFC'))).toMatchObject({ audio: true, type: 'aiff' });
  });

  it('reads an MP3 without an ID3 tag by two consecutive frame headers', async () => {
    expect(await detect(mp3Frames(3))).toEqual({ audio: true, type: 'mp3' });
  });

  it('reads an MP3 behind ID3 tags, however long', async () => {
    expect(await detect(Buffer.concat([id3Tag(200_000), mp3Frames(3)]))).toEqual({ audio: true, type: 'mp3' });
  });

  it('does not take one frame sync followed by anything else for an MP3', async () => {
    const lone = Buffer.concat([mp3Frames(1).subarray(0, 4), randomBytesFrom(7, 2000)]);
    expect(await detect(lone)).toEqual({ audio: false, found: 'unrecognised bytes' });
  });

  it('tells raw AAC (ADTS) from MP3 by the layer bits, with or without an ID3 tag', async () => {
    expect(await detect(adtsFrames(3))).toEqual({ audio: true, type: 'aac' });
    expect(await detect(Buffer.concat([id3Tag(100), adtsFrames(3)]))).toEqual({ audio: true, type: 'aac' });
  });

  it('reads FLAC, also behind an ID3 tag', async () => {
    expect(await detect('fLaC\0\0\0\x22')).toEqual({ audio: true, type: 'flac' });
    expect(await detect(Buffer.concat([id3Tag(50), Buffer.from('fLaC\0\0\0\x22')]))).toEqual({ audio: true, type: 'flac' });
  });

  it('tells Ogg Vorbis from Ogg Opus, and refuses Ogg of anything else', async () => {
    expect(await detect(oggFirstPage('\x01vorbis\0\0\0\0'))).toEqual({ audio: true, type: 'ogg-vorbis' });
    expect(await detect(oggFirstPage('OpusHead\x01\x01'))).toEqual({ audio: true, type: 'ogg-opus' });
    expect(await detect(oggFirstPage('\x80theora'))).toEqual({ audio: false, found: 'an Ogg file of Theora video (Ogg is accepted with Vorbis or Opus)' });
    expect(await detect(oggFirstPage('\x7fFLAC'))).toMatchObject({ audio: false, found: expect.stringContaining('FLAC') });
  });

  it('takes an MP4 with an audio brand, or a generic one (checked for video later), as M4A', async () => {
    expect(await detect(ftyp('M4A ', 'M4A ', 'isom'))).toEqual({ audio: true, type: 'm4a' });
    expect(await detect(ftyp('mp42', 'isom'))).toEqual({ audio: true, type: 'm4a' });
    expect(await detect(ftyp('qt  ', 'qt  '))).toEqual({ audio: false, found: 'a QuickTime movie' });
    expect(await detect(ftyp('3gp4', '3gp4'))).toMatchObject({ audio: false, found: expect.stringContaining('3GPP') });
    expect(await detect(ftyp('avc1', 'avc1'))).toMatchObject({ audio: false, found: expect.stringContaining('"avc1"') });
  });

  it('says a text file named .mp3 is text', async () => {
    expect(await detect('ID3 is how an MP3 starts, but this is a note named song.mp3\n')).toEqual({ audio: false, found: 'text' });
    // Cut in the middle of a character, as a 4 KB head may be.
    expect(await detect(Buffer.from('Olá, açúcar — ✓').subarray(0, 17))).toEqual({ audio: false, found: 'text' });
  });

  it('names other formats, and says when there is nothing at all', async () => {
    expect(await detect('%PDF-1.7\n')).toEqual({ audio: false, found: 'a PDF document' });
    expect(await detect(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toEqual({ audio: false, found: 'a JPEG image' });
    expect(await detect(Buffer.concat([Buffer.from('RIFF\0\0\0\0AVI LIST'), Buffer.alloc(20)]))).toEqual({ audio: false, found: 'a RIFF file that is not WAVE' });
    expect(await detect(Buffer.alloc(0))).toEqual({ audio: false, found: 'an empty file' });
    expect(await detect(id3Tag(10))).toMatchObject({ audio: false });
  });

  it('finds no audio in random bytes, over two thousand tries', async () => {
    const found: string[] = [];
    for (let seed = 1; seed <= 2000; seed++) {
      const detection = await detect(randomBytesFrom(seed, 4096));
      if (detection.audio) found.push(`seed ${seed}: ${detection.type}`);
    }
    expect(found).toEqual([]);
  });
});

describe('a declared Content-Type', () => {
  it('agrees when it names the type the bytes show, whatever its case and parameters', () => {
    expect(declaredTypeAgrees('audio/wav', 'wav')).toBe(true);
    expect(declaredTypeAgrees('Audio/X-WAV; codecs=1', 'wav')).toBe(true);
    expect(declaredTypeAgrees('audio/aac', 'm4a')).toBe(true);
    expect(declaredTypeAgrees('audio/aac', 'aac')).toBe(true);
    expect(declaredTypeAgrees('audio/ogg', 'ogg-opus')).toBe(true);
    expect(declaredTypeAgrees('audio/mpeg', 'mp3')).toBe(true);
  });

  it('disagrees when it names another audio type (or anything else)', () => {
    expect(declaredTypeAgrees('audio/mpeg', 'wav')).toBe(false);
    expect(declaredTypeAgrees('audio/opus', 'ogg-vorbis')).toBe(false);
    expect(declaredTypeAgrees('audio/webm', 'm4a')).toBe(false);
    expect(declaredTypeAgrees('text/plain', 'mp3')).toBe(false);
  });

  it('declares nothing when it is application/octet-stream, empty or absent', () => {
    for (const nothing of ['application/octet-stream', 'APPLICATION/OCTET-STREAM; x=1', '', undefined]) expect(declaredTypeAgrees(nothing, 'flac')).toBe(true);
  });

  it('may be any audio type or octet-stream on an upload, and nothing else', () => {
    expect(['audio/x-anything', 'audio/mpeg', 'application/octet-stream', undefined].map(isUploadContentType)).toEqual([true, true, true, true]);
    expect(['text/plain', 'video/mp4', 'application/json'].map(isUploadContentType)).toEqual([false, false, false]);
  });
});

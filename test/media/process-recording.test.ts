import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionFfmpeg } from '../../src/dev/ffmpeg-tool.ts';
import {
  detectAudioType,
  processRecording,
  withFileSource,
  type Ffmpeg,
  type ProcessedRecording,
  type ProcessingProgress,
  type ProcessOptions,
  type Rejection,
} from '../../src/media/index.ts';
import { describeFile, encodeWith, measureLoudness, sineWav, wavHeader } from '../support/audio.ts';

// Real audio, written by the test (a WAV of a sine at a known level and length) and encoded by ffmpeg into every
// accepted format; the results are measured again with ffmpeg's own meters (ebur128), not with the code under test.

let ffmpeg: Ffmpeg;
let scratch: string;
const path = (name: string) => join(scratch, 'in', name);
const limits = { maxBytes: 50 * 1024 * 1024, maxSeconds: 120 };

/** The take: 4 s of a 440 Hz sine peaking at −20 dBFS, 48 kHz stereo, so downmix and resampling both show. */
const takeSeconds = 4;

beforeAll(async () => {
  // As npm start and the tests do: ffmpeg from FFMPEG_PATH or PATH, else installed once into the per-user cache.
  ffmpeg = await provisionFfmpeg(() => {});
  scratch = await mkdtemp(join(tmpdir(), 'rp-media-'));
  await mkdir(join(scratch, 'in'));
  await writeFile(path('take.wav'), sineWav({ seconds: takeSeconds, sampleRate: 48_000, channels: 2, peakDbfs: -20 }));
  await Promise.all([
    encodeWith(ffmpeg, path('take.wav'), path('take.mp3')),
    encodeWith(ffmpeg, path('take.wav'), path('take.m4a')),
    encodeWith(ffmpeg, path('take.wav'), path('take.flac')),
    encodeWith(ffmpeg, path('take.wav'), path('take-vorbis.ogg'), ['-c:a', 'libvorbis']),
    encodeWith(ffmpeg, path('take.wav'), path('take-opus.ogg'), ['-c:a', 'libopus']),
    encodeWith(ffmpeg, path('take.wav'), path('take.aiff')),
    encodeWith(ffmpeg, path('take.wav'), path('take.aac'), ['-f', 'adts']),
    // No ID3 tag and no Xing header: found by its frames alone, its length only estimated from the bitrate.
    encodeWith(ffmpeg, path('take.wav'), path('bare.mp3'), ['-id3v2_version', '0', '-write_xing', '0']),
  ]);
}, 180_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function process(name: string, options: Partial<ProcessOptions> = {}) {
  const progress: ProcessingProgress[] = [];
  const outputPath = options.outputPath ?? join(scratch, `${name}.delivery.m4a`);
  const outcome = await processRecording(ffmpeg, path(name), { outputPath, limits, onProgress: (step) => progress.push(step), ...options });
  return { outcome, progress, outputPath };
}

function accepted(outcome: Rejection | ProcessedRecording): ProcessedRecording {
  if (!outcome.accepted) throw new Error(`rejected: ${outcome.reason}: ${outcome.detail}`);
  return outcome;
}

describe('the type, from the bytes of each format ffmpeg writes', () => {
  it.each([
    ['take.wav', 'wav'],
    ['take.aiff', 'aiff'],
    ['take.mp3', 'mp3'],
    ['bare.mp3', 'mp3'],
    ['take.aac', 'aac'],
    ['take.m4a', 'm4a'],
    ['take.flac', 'flac'],
    ['take-vorbis.ogg', 'ogg-vorbis'],
    ['take-opus.ogg', 'ogg-opus'],
  ])('%s is %s', async (name, type) => {
    expect(await withFileSource(path(name), detectAudioType)).toMatchObject({ audio: true, type });
  });
});

describe('the delivery file', () => {
  it('is AAC-LC in .m4a, mono, 44.1 kHz, about 64 kbps, at −16 LUFS with true peaks under −1.5 dBTP', async () => {
    const { outcome, outputPath } = await process('take.wav', { declaredType: 'audio/x-wav' });
    const { original, delivery } = accepted(outcome);
    expect(original).toMatchObject({ type: 'wav', contentType: 'audio/wav', codec: 'pcm_s16le', sampleRate: 48_000, channels: 2 });
    expect(delivery).toMatchObject({ path: outputPath, contentType: 'audio/mp4', codec: 'aac', profile: 'LC', sampleRate: 44_100, channels: 1, normalisation: 'linear' });

    // Read back by ffmpeg itself, with patterns of the test's own.
    const described = await describeFile(ffmpeg, outputPath);
    expect(described.container).toBe('mov,mp4,m4a,3gp,3g2,mj2');
    expect(described.streams).toHaveLength(1);
    expect(described.streams[0]).toMatch(/^Audio: aac \(LC\) .*, 44100 Hz, mono, fltp, (\d+) kb\/s/);
    const kbps = Number(/(\d+) kb\/s/.exec(described.streams[0] ?? '')?.[1]);
    expect(kbps).toBeGreaterThanOrEqual(56);
    expect(kbps).toBeLessThanOrEqual(72);
    expect((await readFile(outputPath)).subarray(4, 12).toString('latin1')).toBe('ftypM4A ');
    expect(Math.abs(described.seconds - takeSeconds) / takeSeconds).toBeLessThan(0.05);

    const measured = await measureLoudness(ffmpeg, outputPath);
    expect(Math.abs(measured.integratedLufs - -16)).toBeLessThanOrEqual(1);
    expect(measured.truePeakDbtp).toBeLessThanOrEqual(-1.5);
    // What the result reports agrees with the independent meter.
    expect(Math.abs(delivery.integratedLufs - measured.integratedLufs)).toBeLessThanOrEqual(0.3);
    expect(Math.abs(delivery.durationMs - takeSeconds * 1000)).toBeLessThan(takeSeconds * 1000 * 0.05);
  });

  it('comes with 200 waveform peaks from 0 to 1 that follow the audio', async () => {
    const { outcome } = await process('take.flac');
    const { waveform, delivery } = accepted(outcome);
    expect(waveform).toHaveLength(200);
    expect(waveform.every((peak) => peak >= 0 && peak <= 1)).toBe(true);
    // A steady sine: the middle is flat at the delivery file's peak; the fade makes the ends lower.
    const middle = waveform.slice(20, 180);
    const loudest = 10 ** (delivery.truePeakDbtp / 20);
    expect(Math.min(...middle)).toBeGreaterThan(loudest * 0.85);
    expect(Math.max(...waveform)).toBeLessThanOrEqual(loudest * 1.05);
    expect(waveform[0]).toBeLessThan(Math.min(...middle));
  });

  it('reports its progress from 0 to 1 through each stage, never going back', async () => {
    const { outcome, progress } = await process('take.m4a');
    accepted(outcome);
    const fractions = progress.map((step) => step.fraction);
    expect(fractions.at(-1)).toBe(1);
    expect(fractions.every((fraction, index) => index === 0 || fraction >= (fractions[index - 1] ?? 0))).toBe(true);
    expect(new Set(progress.map((step) => step.stage))).toEqual(new Set(['checking', 'encoding', 'verifying']));
  });

  it.each(['take.mp3', 'bare.mp3', 'take.aac', 'take.m4a', 'take-vorbis.ogg', 'take-opus.ogg', 'take.aiff'])('is made from %s too', async (name) => {
    const { delivery, original } = accepted((await process(name)).outcome);
    expect(original.channels).toBe(2);
    expect(delivery).toMatchObject({ codec: 'aac', profile: 'LC', sampleRate: 44_100, channels: 1 });
    expect(Math.abs(delivery.integratedLufs - -16)).toBeLessThanOrEqual(1);
    expect(delivery.truePeakDbtp).toBeLessThanOrEqual(-1.5);
    expect(Math.abs(delivery.durationMs - takeSeconds * 1000)).toBeLessThan(takeSeconds * 1000 * 0.05);
  });

  it('limits the peaks of a take that stand far above its loudness, and still meets both targets', async () => {
    // A quiet tone with a 1 ms click every half second: one gain to −16 LUFS would push the clicks 10 dB over full scale.
    const sampleRate = 44_100;
    const wav = sineWav({ seconds: 6, sampleRate, peakDbfs: -30 });
    for (let click = sampleRate / 4; click < 6 * sampleRate - 100; click += sampleRate / 2) {
      for (let index = 0; index < 44; index++) wav.writeInt16LE(Math.round(29_000 * Math.sin((2 * Math.PI * 2000 * index) / sampleRate)), 44 + (click + index) * 2);
    }
    await writeFile(path('clicks.wav'), wav);
    const { outcome, outputPath } = await process('clicks.wav');
    const { original, delivery } = accepted(outcome);
    expect(original.loudness.truePeakDbtp - original.loudness.integratedLufs).toBeGreaterThan(-1.5 - -16);
    expect(delivery.normalisation).toBe('dynamic');
    const measured = await measureLoudness(ffmpeg, outputPath);
    expect(measured.truePeakDbtp).toBeLessThanOrEqual(-1.5);
    expect(Math.abs(measured.integratedLufs - -16)).toBeLessThanOrEqual(1);
  });

  it('encodes again with less gain when the encoder pushed a true peak over the ceiling', async () => {
    // Bursts of white noise, three a second (a seeded generator: the same bytes every run). Limited to the ceiling
    // before encoding, their peaks come out of the AAC encoder above it.
    const sampleRate = 44_100;
    const samples = sampleRate * 6;
    const data = Buffer.alloc(samples * 2);
    let state = 1;
    for (let index = 0; index < samples; index++) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) | 0;
      const envelope = Math.max(0, Math.sin((2 * Math.PI * 3 * index) / sampleRate)) ** 4;
      data.writeInt16LE(Math.round(20_000 * envelope * ((state >>> 8) / 0x80_0000 - 1)), index * 2);
    }
    await writeFile(path('bursts.wav'), Buffer.concat([wavHeader({ sampleRate, channels: 1, dataBytes: data.length }), data]));
    const { outcome, outputPath } = await process('bursts.wav');
    const { delivery } = accepted(outcome);
    expect(delivery.peakCorrectionDb).toBeLessThan(0);
    const measured = await measureLoudness(ffmpeg, outputPath);
    expect(measured.truePeakDbtp).toBeLessThanOrEqual(-1.5);
    expect(Math.abs(delivery.integratedLufs - measured.integratedLufs)).toBeLessThanOrEqual(0.3);
  });

  it('is the same bytes and the same result when made again, and appears whole or not at all', async () => {
    // In a folder that does not exist yet: it is made.
    const outputPath = join(scratch, 'again', 'file-1.m4a');
    const first = await process('take.mp3', { outputPath });
    const firstBytes = createHash('sha256').update(await readFile(outputPath)).digest('hex');
    const second = await process('take.mp3', { outputPath });
    expect(createHash('sha256').update(await readFile(outputPath)).digest('hex')).toBe(firstBytes);
    expect(second.outcome).toEqual(first.outcome);
    expect(await readdir(join(scratch, 'again'))).toEqual(['file-1.m4a']);
  });
});

describe('a file that fails a check is rejected with its reason, and nothing is written', () => {
  beforeAll(async () => {
    await writeFile(path('note.mp3'), 'Dear artist, please record the take again, louder this time.\n');
    await writeFile(path('noise.mp3'), Buffer.from(Array.from({ length: 65_536 }, (_, index) => (index * 2_654_435_761) >>> 24)));
    await writeFile(path('empty.wav'), Buffer.alloc(0));
    await writeFile(path('short.wav'), sineWav({ seconds: 0.5 }));
    await writeFile(path('silent.wav'), sineWav({ seconds: 3, peakDbfs: -Infinity }));
    await writeFile(path('quiet.wav'), sineWav({ seconds: 3, peakDbfs: -66 }));
    // Ten minutes, at 8 kHz mono to stay small: 9.6 MB.
    await writeFile(path('long.wav'), sineWav({ seconds: 600, sampleRate: 8000, frequency: 300 }));
    // The header of 10 s of audio, followed by 2 s of it.
    const claimed = sineWav({ seconds: 10, sampleRate: 8000 });
    await writeFile(path('claims-more.wav'), Buffer.concat([wavHeader({ sampleRate: 8000, channels: 1, dataBytes: 160_000 }), claimed.subarray(44, 44 + 32_000)]));
    // An MP3 cut off at 40 %: its Xing header still announces the whole length.
    await writeFile(path('ten.wav'), sineWav({ seconds: 10, sampleRate: 22_050 }));
    await encodeWith(ffmpeg, path('ten.wav'), path('ten.mp3'));
    const mp3 = await readFile(path('ten.mp3'));
    await writeFile(path('truncated.mp3'), mp3.subarray(0, Math.floor(mp3.length * 0.4)));
    // An M4A cut off before its index, which a plain encode writes last.
    await encodeWith(ffmpeg, path('ten.wav'), path('ten.m4a'));
    const m4a = await readFile(path('ten.m4a'));
    await writeFile(path('cut-off.m4a'), m4a.subarray(0, Math.floor(m4a.length / 2)));
  });

  it.each<[string, string, Partial<ProcessOptions>, RegExp]>([
    ['note.mp3', 'not_audio', {}, /^The bytes are text; accepted are WAV, AIFF, MP3/],
    ['noise.mp3', 'not_audio', {}, /^The bytes are unrecognised bytes/],
    ['empty.wav', 'not_audio', {}, /an empty file/],
    ['truncated.mp3', 'unreadable', {}, /^The MP3 header announces 10\.0 s, and the audio ends after 4\.\d+ s: it was cut off\.$/],
    ['cut-off.m4a', 'unreadable', {}, /^ffmpeg finds no audio it can read in this M4A \(MPEG-4 audio\): moov atom not found$/],
    ['claims-more.wav', 'unreadable', {}, /^The WAV header announces 160044 bytes, and the file ends after 32044: it was cut off\.$/],
    ['take.wav', 'type_mismatch', { declaredType: 'audio/mpeg' }, /^It was declared audio\/mpeg, but the bytes are WAV\.$/],
    ['take.mp3', 'type_mismatch', { declaredType: 'audio/wav; codecs=1' }, /declared audio\/wav, but the bytes are MP3/],
    ['short.wav', 'too_short', {}, /^It plays 0\.50 s, under the minimum of 1 s\.$/],
    ['long.wav', 'too_long', {}, /^It plays 600\.0 s, over the limit of 120 s\.$/],
    ['bare.mp3', 'too_long', { limits: { ...limits, maxSeconds: 2 } }, /^It plays more than 3\.00 s, over the limit of 2 s\.$/],
    ['take.wav', 'too_large', { limits: { ...limits, maxBytes: 100_000 } }, /^The file has 768044 bytes, over the limit of 100000\.$/],
    ['silent.wav', 'silent', {}, /^Its peak is digital silence, under -60 dBFS\.$/],
    ['quiet.wav', 'silent', {}, /^Its peak is -6\d\.\d dBFS, under -60 dBFS\.$/],
  ])('%s: %s', async (name, reason, options, detail) => {
    const { outcome, outputPath } = await process(name, { outputPath: join(scratch, `rejected-${reason}.m4a`), ...options });
    expect(outcome).toEqual({ accepted: false, reason, detail: expect.stringMatching(detail) });
    await expect(readFile(outputPath)).rejects.toThrow(/ENOENT/);
  });

  it('takes application/octet-stream as no declaration at all', async () => {
    accepted((await process('take.aiff', { declaredType: 'application/octet-stream' })).outcome);
  });
});

describe('aborting', () => {
  /** The command lines of the processes running now that name `fragment` (Linux's /proc). */
  async function processesNaming(fragment: string): Promise<string[]> {
    const found: string[] = [];
    for (const pid of (await readdir('/proc').catch(() => [])).filter((entry) => /^\d+$/.test(entry))) {
      const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (commandLine.includes(fragment)) found.push(commandLine.replaceAll('\0', ' '));
    }
    return found;
  }

  it.each(['checking', 'encoding'])('while %s kills ffmpeg, removes the partial file and rejects with the reason', async (stage) => {
    await writeFile(path('thirty.wav'), sineWav({ seconds: 30 }));
    const dir = join(scratch, `abort-${stage}`);
    await mkdir(dir);
    const controller = new AbortController();
    const reason = new Error(`cancelled while ${stage}`);
    const processing = processRecording(ffmpeg, path('thirty.wav'), {
      outputPath: join(dir, 'file.m4a'),
      limits,
      signal: controller.signal,
      onProgress: (step) => {
        if (step.stage === stage) controller.abort(reason);
      },
    });
    await expect(processing).rejects.toBe(reason);
    expect(await readdir(dir)).toEqual([]);
    expect(await processesNaming(path('thirty.wav'))).toEqual([]);
  });

  it('does not start when the signal is already aborted', async () => {
    const reason = new Error('too late');
    await expect(processRecording(ffmpeg, path('take.wav'), { outputPath: join(scratch, 'never.m4a'), limits, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});

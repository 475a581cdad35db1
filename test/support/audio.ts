import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Ffmpeg } from '../../src/media/find-ffmpeg.ts';

/**
 * Audio the tests write themselves: 16-bit PCM WAV of a sine at a known peak level and length, so that every
 * measured figure has a known right answer; and ffmpeg, run the way a test would run it by hand, to encode other
 * formats from it and to measure results independently of the code under test.
 */
export interface SineOptions {
  seconds: number;
  sampleRate?: number;
  channels?: number;
  frequency?: number;
  /** The sine's peak, in dBFS; -Infinity writes digital silence. */
  peakDbfs?: number;
  /** A short fade in and out, as a real take starts and ends (an abrupt start is a click the encoder smears). */
  fadeSeconds?: number;
}

export function sineWav(options: SineOptions): Buffer {
  const { seconds, sampleRate = 44_100, channels = 1, frequency = 440, peakDbfs = -20, fadeSeconds = 0.02 } = options;
  const frames = Math.round(seconds * sampleRate);
  const amplitude = Number.isFinite(peakDbfs) ? 32767 * 10 ** (peakDbfs / 20) : 0;
  const data = Buffer.alloc(frames * channels * 2);
  const fadeFrames = Math.max(1, Math.round(fadeSeconds * sampleRate));
  for (let frame = 0; frame < frames; frame++) {
    const fade = Math.min(1, frame / fadeFrames, (frames - 1 - frame) / fadeFrames);
    const sample = Math.round(amplitude * fade * Math.sin((2 * Math.PI * frequency * frame) / sampleRate));
    for (let channel = 0; channel < channels; channel++) data.writeInt16LE(sample, (frame * channels + channel) * 2);
  }
  return Buffer.concat([wavHeader({ sampleRate, channels, dataBytes: data.length }), data]);
}

/** A canonical 44-byte header; `dataBytes` is what it claims, whatever follows it. */
export function wavHeader({ sampleRate, channels, dataBytes }: { sampleRate: number; channels: number; dataBytes: number }): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Runs ffmpeg as a person would (`ffmpeg -v error ...`), returning what it logged. */
export async function ffmpegRun(ffmpeg: Ffmpeg, args: string[]): Promise<string> {
  const { stderr } = await promisify(execFile)(ffmpeg.path, ['-nostdin', '-hide_banner', ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stderr;
}

/** Encodes `input` into `output` with ffmpeg (the format follows the extension unless `args` say otherwise). */
export async function encodeWith(ffmpeg: Ffmpeg, input: string, output: string, args: string[] = []): Promise<void> {
  await ffmpegRun(ffmpeg, ['-v', 'error', '-i', input, ...args, '-y', output]);
}

/** EBU R128 by ffmpeg's ebur128 filter (not loudnorm, which the code under test uses): integrated loudness and true peak. */
export async function measureLoudness(ffmpeg: Ffmpeg, path: string): Promise<{ integratedLufs: number; truePeakDbtp: number }> {
  const log = await ffmpegRun(ffmpeg, ['-nostats', '-i', path, '-af', 'ebur128=peak=true:framelog=quiet', '-f', 'null', '-']);
  const summary = log.slice(log.lastIndexOf('Summary:'));
  const integrated = /I:\s+(-?[\d.]+|-inf) LUFS/.exec(summary)?.[1];
  const truePeak = /True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS/.exec(summary)?.[1];
  if (!integrated || !truePeak) throw new Error(`no ebur128 summary in:\n${summary}`);
  return { integratedLufs: Number(integrated), truePeakDbtp: Number(truePeak) };
}

/** What `ffmpeg -i` says of a file's first stream and its duration, read with plain patterns. */
export async function describeFile(ffmpeg: Ffmpeg, path: string): Promise<{ streams: string[]; seconds: number; container: string }> {
  // With no output named, ffmpeg describes the input and exits with 1.
  const log = await ffmpegRun(ffmpeg, ['-i', path]).catch((error: { stderr?: string }) => error.stderr ?? '');
  const duration = /Duration: (\d+):(\d+):([\d.]+)/.exec(log);
  return {
    container: /Input #0, (.+?), from/.exec(log)?.[1] ?? '',
    streams: [...log.matchAll(/Stream #0:\d+.*?: (Audio|Video): (.*)/g)].map((match) => `${match[1]}: ${match[2]}`),
    seconds: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : NaN,
  };
}

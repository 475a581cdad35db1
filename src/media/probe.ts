import type { AudioType } from './audio-types.ts';
import { audioTypeFacts } from './audio-types.ts';
import type { Ffmpeg } from './find-ffmpeg.ts';
import { runFfmpeg } from './run-ffmpeg.ts';

/**
 * What ffmpeg reads from a file's headers, without decoding it. The wheel that provisions ffmpeg ships no ffprobe, so
 * this asks ffmpeg itself (`ffmpeg -i file` with no output) and reads the stream summary it logs.
 */
export interface Probe {
  /** ffmpeg's demuxer, as it names it (`wav`, `mp3`, `mov,mp4,m4a,3gp,3g2,mj2`). */
  container: string;
  /** The first audio stream. */
  audio: AudioStream;
  /** Whether a stream is video (a cover picture is not: ffmpeg marks it `attached pic`). */
  hasVideo: boolean;
  /** The duration the headers state, in seconds; undefined when ffmpeg only estimated it from the bitrate. */
  statedSeconds: number | undefined;
  /** The duration ffmpeg gives, stated or estimated (for progress only). */
  roughSeconds: number | undefined;
}

export interface AudioStream {
  /** ffmpeg's codec name: `pcm_s16le`, `mp3`, `aac`, `flac`, `vorbis`, `opus`. */
  codec: string;
  /** The AAC profile when the codec is AAC (`LC`, `HE-AAC`). */
  profile: string | undefined;
  sampleRate: number;
  channels: number;
  bitrateKbps: number | undefined;
}

/** Runs the probe; undefined when ffmpeg finds no audio stream it can read (its last error line explains). */
export async function probeFile(ffmpeg: Ffmpeg, path: string, demuxer: string, signal?: AbortSignal): Promise<{ probe?: Probe; log: string }> {
  const { log } = await runFfmpeg(ffmpeg, { args: [...inputArgs(demuxer, path)], signal });
  const probe = parseProbe(log);
  return probe ? { probe, log } : { log };
}

/**
 * The arguments that open an untrusted file: only the file protocol (a path is never taken as a URL or `concat:`),
 * and the demuxer the sniffer chose, so ffmpeg reads the bytes as that format and probes for no other (a playlist
 * format would follow the links inside).
 */
export function inputArgs(demuxer: string, path: string): string[] {
  return ['-protocol_whitelist', 'file', '-f', demuxer, '-i', `file:${path}`];
}

export function demuxerOf(type: AudioType): string {
  return audioTypeFacts[type].demuxer;
}

/** Reads the `Input #0` block of ffmpeg's log. Stream and duration lines are indented two spaces; metadata four. */
export function parseProbe(log: string): Probe | undefined {
  const container = /^Input #0, (.+?), from '/m.exec(log)?.[1];
  const audioLine = /^ {2}Stream #0:\d+\S*: Audio: (.+)$/m.exec(log)?.[1];
  if (!container || !audioLine) return undefined;
  const audio = parseAudioStream(audioLine);
  if (!audio) return undefined;
  const videoLines = [...log.matchAll(/^ {2}Stream #0:\d+\S*: Video: (.+)$/gm)].map((match) => match[1] ?? '');
  const duration = /^ {2}Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)/m.exec(log);
  const estimated = /Estimating duration from bitrate/.test(log);
  const seconds = duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : undefined;
  return {
    container,
    audio,
    hasVideo: videoLines.some((line) => !line.includes('(attached pic)')),
    statedSeconds: estimated ? undefined : seconds,
    roughSeconds: seconds,
  };
}

/** `aac (LC) (mp4a / 0x6134706D), 44100 Hz, mono, fltp, 70 kb/s (default)` */
function parseAudioStream(line: string): AudioStream | undefined {
  const codec = /^(\w+)/.exec(line)?.[1];
  const rate = /\b(\d+) Hz, ([^,]+)/.exec(line);
  const channels = rate ? channelCount(rate[2] ?? '') : undefined;
  if (!codec || !rate || channels === undefined) return undefined;
  const bitrate = /\b(\d+) kb\/s/.exec(line.slice(rate.index));
  return {
    codec,
    profile: codec === 'aac' ? /^aac \(([^)/]+)\)/.exec(line)?.[1] : undefined,
    sampleRate: Number(rate[1]),
    channels,
    bitrateKbps: bitrate ? Number(bitrate[1]) : undefined,
  };
}

/** The layouts ffmpeg names by a word; the numbered ones (`5.1(side)`, `7.1.4`) add up their parts. */
const namedLayouts: Record<string, number> = { mono: 1, stereo: 2, downmix: 2, quad: 4, hexagonal: 6, octagonal: 8, cube: 8, hexadecagonal: 16 };

/** ffmpeg names a layout it knows (`mono`, `5.1(side)`, `quad(side)`) and counts the others (`3 channels`). */
function channelCount(layout: string): number | undefined {
  const counted = /^(\d+) channels/.exec(layout.trim());
  if (counted) return Number(counted[1]);
  const name = layout.trim().replace(/\(.*\)$/, '');
  if (/^\d+(\.\d+)+$/.test(name)) return name.split('.').reduce((sum, part) => sum + Number(part), 0);
  return namedLayouts[name];
}

import type { AudioType } from './audio-types.ts';
import type { ByteSource } from './byte-source.ts';

/**
 * What the bytes are, read from their magic numbers and headers alone: one of the accepted audio types, or a short
 * description of what they are instead ("text", "a PDF document", "unrecognised bytes").
 *
 * Why a sniffer of our own rather than a library such as file-type: the edge cases that matter here are audio ones a
 * general library answers loosely. It takes one MPEG sync word at offset 0 for MP3 (random bytes pass one time in a few
 * thousand), calls every non-audio-branded MP4 video, and says nothing of a WAV header that claims more bytes than the
 * file holds. This reads each format's own structure, and checks two consecutive frames for the frame-based ones.
 */
export type Detection =
  | {
      audio: true;
      type: AudioType;
      /** The file's length as its container header states it (RIFF, AIFF), when the header states one. */
      claimedSize?: number;
    }
  | { audio: false; found: string };

/** How far past the ID3 tags the first MPEG or ADTS frame may start (encoders pad a little; nothing needs more). */
const frameSearchBytes = 4096;
/** Longer than any MP3 (1,441 bytes) or ADTS (8,191 bytes) frame, so a frame and the next one's header fit. */
const longestFrame = 8192;

export async function detectAudioType(source: ByteSource): Promise<Detection> {
  if (source.size === 0) return { audio: false, found: 'an empty file' };
  const head = await source.read(0, 64);
  const at = (offset: number, text: string) => ascii(head, offset, text.length) === text;

  if ((at(0, 'RIFF') || at(0, 'RF64') || at(0, 'BW64')) && at(8, 'WAVE')) return withClaim('wav', await riffClaimedSize(source, head));
  if (at(0, 'FORM') && (at(8, 'AIFF') || at(8, 'AIFC'))) return withClaim('aiff', sizeField(u32be(head, 4)));
  if (at(0, 'OggS')) return oggType(await source.read(0, 512));
  // The ftyp box lists the brands; 256 bytes hold more than any writer puts there.
  if (at(4, 'ftyp')) return mp4Type(await source.read(0, Math.min(Math.max(u32be(head, 0), 16), 256)));

  const afterTags = await skipId3v2Tags(source);
  const rest = await source.read(afterTags, 4);
  if (ascii(rest, 0, 4) === 'fLaC') return { audio: true, type: 'flac' };
  const framed = await firstFrameType(source, afterTags);
  if (framed) return { audio: true, type: framed };
  if (afterTags > 0) return { audio: false, found: 'an ID3 tag without MP3, AAC or FLAC audio after it' };
  return { audio: false, found: await describeOther(source) };
}

function withClaim(type: AudioType, claimedSize: number | undefined): Detection {
  return claimedSize === undefined ? { audio: true, type } : { audio: true, type, claimedSize };
}

/**
 * A 32-bit size field as a claim: writers that stream (to a pipe) leave it at 0 or 0xFFFFFFFF, and a few at a large
 * placeholder, because they cannot come back to fill it in. Those claim nothing.
 */
function sizeField(size: number, headerBytes = 8): number | undefined {
  return size === 0 || size >= 0x7fff_f000 ? undefined : size + headerBytes;
}

/**
 * The length a WAV says it has: the larger of the RIFF size and the end of its data chunk (RF64 and BW64 keep both in
 * a ds64 chunk). ffmpeg itself ignores a data size that runs past the end and plays what is there, so the header is
 * the only place a cut-off WAV shows.
 */
async function riffClaimedSize(source: ByteSource, head: Uint8Array): Promise<number | undefined> {
  const claimed = sizeField(u32le(head, 4));
  let offset = 12;
  for (let chunk = 0; chunk < 64 && offset + 8 <= source.size; chunk++) {
    const header = await source.read(offset, 28);
    const id = ascii(header, 0, 4);
    const size = u32le(header, 4);
    if (id === 'ds64' && header.length >= 24) {
      const riffSize = Number(u64le(header, 8)) + 8;
      const dataSize = Number(u64le(header, 16));
      return Math.max(riffSize, offset + 8 + size + (size % 2) + dataSize);
    }
    if (id === 'data') {
      const dataEnd = sizeField(size, offset + 8);
      return dataEnd === undefined ? claimed : Math.max(claimed ?? 0, dataEnd);
    }
    offset += 8 + size + (size % 2);
  }
  return claimed;
}

/** An Ogg file's first page opens its first logical stream; its first packet names the codec. */
function oggType(page: Uint8Array): Detection {
  const segments = page[26] ?? 0;
  const packet = page.subarray(27 + segments);
  const starts = (text: string) => ascii(packet, 0, text.length) === text;
  if (starts('\x01vorbis')) return { audio: true, type: 'ogg-vorbis' };
  if (starts('OpusHead')) return { audio: true, type: 'ogg-opus' };
  const other = [
    ['\x7fFLAC', 'FLAC'],
    ['Speex   ', 'Speex'],
    ['\x80theora', 'Theora video'],
    ['OVP80', 'VP8 video'],
    ['fishead', 'a skeleton track'],
  ].find(([magic]) => starts(magic ?? ''));
  return { audio: false, found: `an Ogg file of ${other?.[1] ?? 'an unknown codec'} (Ogg is accepted with Vorbis or Opus)` };
}

/** Brands that say "MPEG-4 audio" (iTunes, Adobe, audiobooks). */
const audioBrands = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ']);
/**
 * Brands any MP4 writer uses, audio or video: Android's recorder writes AAC under them. Such a file is taken as M4A
 * when it holds only audio, which the probe checks (a video stream rejects it as not_audio).
 */
const genericBrands = new Set(['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42']);

function mp4Type(ftyp: Uint8Array): Detection {
  const brands = [ascii(ftyp, 8, 4)];
  for (let offset = 16; offset + 4 <= ftyp.length; offset += 4) brands.push(ascii(ftyp, offset, 4));
  if (brands.some((brand) => audioBrands.has(brand) || genericBrands.has(brand))) return { audio: true, type: 'm4a' };
  const major = brands[0] ?? '';
  if (major === 'qt  ') return { audio: false, found: 'a QuickTime movie' };
  if (major.startsWith('3g')) return { audio: false, found: 'a 3GPP file (MPEG-4 audio is accepted as M4A)' };
  return { audio: false, found: `an MPEG-4 file of brand "${major.trim()}", which is not an audio brand` };
}

/** The offset after any ID3v2 tags at the start (MP3s carry them; some FLAC and AAC files too). */
async function skipId3v2Tags(source: ByteSource): Promise<number> {
  let offset = 0;
  for (let tag = 0; tag < 4; tag++) {
    const header = await source.read(offset, 10);
    // Versions 2.2 to 2.4 exist; a text that happens to start with "ID3" has a letter there, not 2, 3 or 4.
    if (ascii(header, 0, 3) !== 'ID3' || header.length < 10 || ![2, 3, 4].includes(header[3] ?? 0)) break;
    const size = syncsafe(header, 6);
    if (size === undefined) break;
    const hasFooter = ((header[5] ?? 0) & 0x10) !== 0;
    offset += 10 + size + (hasFooter ? 10 : 0);
  }
  return offset;
}

/** The first MP3 or ADTS frame within reach of `from` that the next frame confirms. */
async function firstFrameType(source: ByteSource, from: number): Promise<'mp3' | 'aac' | undefined> {
  const window = await source.read(from, frameSearchBytes + longestFrame);
  for (let offset = 0; offset < Math.min(frameSearchBytes, window.length - 4); offset++) {
    if (window[offset] !== 0xff) continue;
    for (const frameAt of [mp3Frame, adtsFrame]) {
      const frame = frameAt(window, offset);
      if (!frame) continue;
      // A frame sync turns up by chance every few thousand random bytes; two in a row, a frame apart, do not.
      const following = frameAt(window, offset + frame.length);
      if (following && following.family === frame.family) return frame.type;
    }
  }
  return undefined;
}

interface Frame {
  type: 'mp3' | 'aac';
  length: number;
  /** What consecutive frames of one stream share (version, layer or profile, sampling rate). */
  family: string;
}

const mp3Bitrates = {
  mpeg1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  mpeg2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const mp3SampleRates: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** An MPEG audio Layer III frame header: 11 sync bits, a real version, layer III, a listed bitrate and rate. */
function mp3Frame(bytes: Uint8Array, offset: number): Frame | undefined {
  const [b0, b1, b2] = [bytes[offset], bytes[offset + 1], bytes[offset + 2]];
  if (b0 !== 0xff || b1 === undefined || b2 === undefined || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 0x03;
  const layer = (b1 >> 1) & 0x03;
  if (version === 1 || layer !== 1) return undefined;
  const bitrate = (version === 3 ? mp3Bitrates.mpeg1 : mp3Bitrates.mpeg2)[b2 >> 4];
  const sampleRate = mp3SampleRates[version]?.[(b2 >> 2) & 0x03];
  // Index 0 is the free format, whose frame length no header states; index 15 is forbidden.
  if (!bitrate || !sampleRate) return undefined;
  const padding = (b2 >> 1) & 0x01;
  const length = Math.floor(((version === 3 ? 144_000 : 72_000) * bitrate) / sampleRate) + padding;
  return { type: 'mp3', length, family: `mp3/${version}/${sampleRate}` };
}

/** An ADTS (raw AAC) frame header: 12 sync bits, layer 0, a listed sampling rate, a length past the header. */
function adtsFrame(bytes: Uint8Array, offset: number): Frame | undefined {
  const header = bytes.subarray(offset, offset + 7);
  const [b0, b1, b2, b3, b4, b5] = header;
  if (header.length < 7 || b0 !== 0xff || b1 === undefined || (b1 & 0xf6) !== 0xf0) return undefined;
  const rateIndex = ((b2 ?? 0) >> 2) & 0x0f;
  const length = (((b3 ?? 0) & 0x03) << 11) | ((b4 ?? 0) << 3) | ((b5 ?? 0) >> 5);
  const headerLength = (b1 & 0x01) === 1 ? 7 : 9;
  if (rateIndex > 12 || length <= headerLength) return undefined;
  return { type: 'aac', length, family: `aac/${(b2 ?? 0) >> 6}/${rateIndex}` };
}

/** Formats that are not accepted audio, named so that a rejection can say what was sent. */
const otherSignatures: Array<[magic: number[] | string, offset: number, found: string]> = [
  ['%PDF', 0, 'a PDF document'],
  [[0x89, 0x50, 0x4e, 0x47], 0, 'a PNG image'],
  [[0xff, 0xd8, 0xff], 0, 'a JPEG image'],
  ['GIF8', 0, 'a GIF image'],
  ['PK\x03\x04', 0, 'a ZIP archive (or an office document)'],
  [[0x1a, 0x45, 0xdf, 0xa3], 0, 'a Matroska or WebM file'],
  [[0x30, 0x26, 0xb2, 0x75], 0, 'a Windows Media (ASF) file'],
  ['caff', 0, 'a Core Audio (CAF) file'],
  ['#!AMR', 0, 'an AMR file'],
  ['MThd', 0, 'a MIDI file'],
  ['RIFF', 0, 'a RIFF file that is not WAVE'],
];

async function describeOther(source: ByteSource): Promise<string> {
  const head = await source.read(0, 4096);
  for (const [magic, offset, found] of otherSignatures) {
    const bytes = typeof magic === 'string' ? [...magic].map((char) => char.charCodeAt(0)) : magic;
    if (bytes.every((byte, index) => head[offset + index] === byte)) return found;
  }
  return looksLikeText(head) ? 'text' : 'unrecognised bytes';
}

/** UTF-8 without control characters other than whitespace (a cut in the middle of the last character is fine). */
function looksLikeText(head: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, lastWholeCharacterEnd(head)));
  } catch {
    return false;
  }
  return text.length > 0 && [...text].every((char) => !isControl(char.charCodeAt(0)));
}

/** C0 controls other than tab, line feed, form feed and carriage return; and DEL. */
function isControl(code: number): boolean {
  return (code < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d].includes(code)) || code === 0x7f;
}

/** Where the last complete UTF-8 sequence of `bytes` ends. */
function lastWholeCharacterEnd(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

function u32le(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getUint32(offset, true);
}

function u32be(bytes: Uint8Array, offset: number): number {
  return bytes.length < offset + 4 ? 0 : new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getUint32(offset, false);
}

function u64le(bytes: Uint8Array, offset: number): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getBigUint64(offset, true);
}

/** An ID3v2 size: four bytes of seven bits each (the top bit of each is zero, or it is not a tag). */
function syncsafe(bytes: Uint8Array, offset: number): number | undefined {
  const parts = [...bytes.subarray(offset, offset + 4)];
  if (parts.length < 4 || parts.some((part) => part & 0x80)) return undefined;
  return parts.reduce((size, part) => (size << 7) | part, 0);
}

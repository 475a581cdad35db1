/**
 * The audio formats a recording may arrive in, each as the bytes show it (never its name or header), with the
 * Content-Types that declare it and the ffmpeg demuxer that reads it.
 */
export const audioTypes = ['wav', 'aiff', 'mp3', 'aac', 'm4a', 'flac', 'ogg-vorbis', 'ogg-opus'] as const;
export type AudioType = (typeof audioTypes)[number];

interface AudioTypeFacts {
  /** The canonical Content-Type, which the file record keeps. */
  contentType: string;
  /** Every Content-Type a client may send for it; the first is the canonical one. */
  declaredAs: readonly string[];
  /** The ffmpeg demuxer forced on it, so ffmpeg reads the bytes as what the sniffer found and guesses nothing. */
  demuxer: string;
  /** How a person names it, in a rejection's detail. */
  label: string;
}

export const audioTypeFacts: Record<AudioType, AudioTypeFacts> = {
  wav: { contentType: 'audio/wav', declaredAs: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave', 'audio/x-pn-wav'], demuxer: 'wav', label: 'WAV' },
  aiff: { contentType: 'audio/aiff', declaredAs: ['audio/aiff', 'audio/x-aiff', 'audio/aifc', 'audio/x-aifc'], demuxer: 'aiff', label: 'AIFF' },
  mp3: {
    contentType: 'audio/mpeg',
    declaredAs: ['audio/mpeg', 'audio/mp3', 'audio/mpeg3', 'audio/x-mpeg', 'audio/x-mp3', 'audio/x-mpeg-3', 'audio/mpg'],
    demuxer: 'mp3',
    label: 'MP3',
  },
  // audio/aac names AAC in any wrapper, so it declares both the raw ADTS stream and the MP4 one.
  aac: { contentType: 'audio/aac', declaredAs: ['audio/aac', 'audio/aacp', 'audio/x-aac', 'audio/x-hx-aac-adts'], demuxer: 'aac', label: 'AAC (ADTS)' },
  m4a: { contentType: 'audio/mp4', declaredAs: ['audio/mp4', 'audio/x-m4a', 'audio/m4a', 'audio/aac', 'audio/aacp', 'audio/mp4a-latm'], demuxer: 'mp4', label: 'M4A (MPEG-4 audio)' },
  flac: { contentType: 'audio/flac', declaredAs: ['audio/flac', 'audio/x-flac'], demuxer: 'flac', label: 'FLAC' },
  'ogg-vorbis': { contentType: 'audio/ogg', declaredAs: ['audio/ogg', 'audio/vorbis', 'audio/x-vorbis+ogg', 'application/ogg'], demuxer: 'ogg', label: 'Ogg Vorbis' },
  'ogg-opus': { contentType: 'audio/ogg', declaredAs: ['audio/ogg', 'audio/opus', 'audio/x-opus+ogg', 'application/ogg'], demuxer: 'ogg', label: 'Ogg Opus' },
};

/** `Audio/MPEG; charset=x` → `audio/mpeg`. */
export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Whether a Content-Type says anything about the bytes: none, an empty one and `application/octet-stream` declare
 * nothing, so they cannot disagree with them.
 */
export function declaresAType(contentType: string | undefined): contentType is string {
  if (contentType === undefined) return false;
  const type = mediaTypeOf(contentType);
  return type !== '' && type !== 'application/octet-stream';
}

/** Whether an upload may carry this Content-Type at all: any audio type, or octet-stream (or none). */
export function isUploadContentType(contentType: string | undefined): boolean {
  return !declaresAType(contentType) || mediaTypeOf(contentType).startsWith('audio/') || mediaTypeOf(contentType) === 'application/ogg';
}

/** Whether a declared Content-Type agrees with the type the bytes show (a declaration of nothing always agrees). */
export function declaredTypeAgrees(contentType: string | undefined, detected: AudioType): boolean {
  return !declaresAType(contentType) || audioTypeFacts[detected].declaredAs.includes(mediaTypeOf(contentType));
}

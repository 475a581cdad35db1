/**
 * The delivery file every accepted recording becomes (docs/adr/0074-recordings-are-delivered-as-loudness-normalised-aac.md):
 * AAC-LC in an .m4a, mono, 44.1 kHz, about 64 kbps, at −16 LUFS integrated with true peaks at or under −1.5 dBTP.
 */
export const deliveryProfile = {
  contentType: 'audio/mp4',
  extension: '.m4a',
  codec: 'aac',
  profile: 'LC',
  bitrateKbps: 64,
  sampleRate: 44_100,
  channels: 1,
  integratedLufs: -16,
  truePeakCeilingDbtp: -1.5,
  /** loudnorm aims this far under the ceiling: resampling and the AAC encoder add a little to the peaks. */
  loudnormTruePeakDbtp: -2,
  /** A take whose loudness varies less than this is normalised by one gain (loudnorm's linear mode). */
  loudnessRangeLu: 11,
  /** How many points the console's waveform has. */
  waveformPoints: 200,
} as const;

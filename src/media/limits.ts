/** The limits a recording is checked against; the two a deployment sets come from its settings. */
export interface RecordingLimits {
  /** RECORDING_MAX_BYTES: larger files are `too_large` (storage already cuts an upload off there while streaming). */
  maxBytes: number;
  /** RECORDING_MAX_SECONDS: longer takes are `too_long`. */
  maxSeconds: number;
}

/** The fixed rules: a take under a second is `too_short`; one whose peak stays under −60 dBFS is `silent`. */
export const recordingRules = {
  minSeconds: 1,
  silentBelowDbfs: -60,
} as const;

export function recordingLimitsOf(settings: { RECORDING_MAX_BYTES: number; RECORDING_MAX_SECONDS: number }): RecordingLimits {
  return { maxBytes: settings.RECORDING_MAX_BYTES, maxSeconds: settings.RECORDING_MAX_SECONDS };
}

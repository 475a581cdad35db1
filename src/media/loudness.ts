import { deliveryProfile } from './delivery-profile.ts';

/** What loudnorm measures of the audio that enters it (EBU R128; the true peak at 192 kHz). */
export interface LoudnessMeasurement {
  integratedLufs: number;
  truePeakDbtp: number;
  rangeLu: number;
  thresholdLufs: number;
  /** How far loudnorm's own output missed the target; the second pass takes it as `offset`. */
  targetOffsetLu: number;
}

export interface LoudnormReport {
  input: LoudnessMeasurement;
  normalisation: 'linear' | 'dynamic';
}

/** Every channel to one, as the delivery file is mono: measured and normalised the way it will sound. */
const downmix = 'aformat=channel_layouts=mono';
const { integratedLufs, loudnormTruePeakDbtp, loudnessRangeLu } = deliveryProfile;
const targets = `I=${integratedLufs}:TP=${loudnormTruePeakDbtp}:LRA=${loudnessRangeLu}`;

/** The first pass: measure the mono downmix; the output is discarded. */
export const measureFilter = `${downmix},loudnorm=${targets}:print_format=json`;

/** A filter that only measures, ahead of another output (the verify pass of the delivery file). */
export const meterFilter = `loudnorm=${targets}:print_format=json`;

/**
 * The second pass: loudnorm with the first pass's measurements and `linear=true`, which applies one gain whenever
 * the peaks allow it (else loudnorm limits them: its dynamic mode); then 44.1 kHz, as loudnorm works at 192 kHz;
 * then any correction the peaks of an earlier encode called for.
 */
export function normaliseFilter(measured: LoudnessMeasurement, correctionDb: number): string {
  const given = [
    `measured_I=${clamp(measured.integratedLufs, -99, 0)}`,
    `measured_TP=${clamp(measured.truePeakDbtp, -99, 99)}`,
    // loudnorm reads a range of 0 as "not measured" and refuses linear mode; a steady tone measures 0 all the same.
    `measured_LRA=${clamp(Math.max(measured.rangeLu, 0.01), 0, 99)}`,
    `measured_thresh=${clamp(measured.thresholdLufs, -99, 0)}`,
    `offset=${clamp(measured.targetOffsetLu, -99, 99)}`,
  ].join(':');
  const correction = correctionDb === 0 ? '' : `,volume=${correctionDb.toFixed(2)}dB`;
  return `${downmix},loudnorm=${targets}:${given}:linear=true:print_format=json,aresample=${deliveryProfile.sampleRate}${correction}`;
}

/** loudnorm's JSON report, the last one in the log; undefined when there is none. */
export function parseLoudnormReport(log: string): LoudnormReport | undefined {
  const start = log.lastIndexOf('[Parsed_loudnorm');
  const open = log.indexOf('{', start);
  const close = log.indexOf('}', open);
  if (start < 0 || open < 0 || close < 0) return undefined;
  let fields: Record<string, string>;
  try {
    fields = JSON.parse(log.slice(open, close + 1)) as Record<string, string>;
  } catch {
    return undefined;
  }
  return {
    input: {
      integratedLufs: decibels(fields.input_i),
      truePeakDbtp: decibels(fields.input_tp),
      rangeLu: decibels(fields.input_lra),
      thresholdLufs: decibels(fields.input_thresh),
      targetOffsetLu: decibels(fields.target_offset),
    },
    normalisation: fields.normalization_type === 'linear' ? 'linear' : 'dynamic',
  };
}

/** loudnorm writes silence as `-inf` (and its offset then as `inf`). */
function decibels(text: string | undefined): number {
  if (text === '-inf') return -Infinity;
  if (text === 'inf') return Infinity;
  return text === undefined ? NaN : Number(text);
}

function clamp(value: number, low: number, high: number): string {
  return Math.min(high, Math.max(low, value)).toFixed(2);
}

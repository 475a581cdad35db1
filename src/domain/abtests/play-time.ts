/**
 * The A/B test `playTime` format of the interface spec: ISO-8601 with milliseconds and a numeric UTC offset without a
 * colon, `2026-11-20T10:00:00.000+0100`. `Z` and `+01:00` are accepted too; answers keep the offset the client used.
 */
const playTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:?\d{2})$/;

export const playTimeFormatDescription = 'yyyy-MM-ddTHH:mm:ss.SSS±HHMM, e.g. 2026-11-20T10:00:00.000+0100 (Z and ±HH:MM are accepted)';

/** The last instant a playTime can name: answers write four-digit years, as the spec's form does. */
export const maxPlayTimeEpochMs = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** What a refusal of a playTime says: both forms, with an example, never a pattern. */
export const playTimeExpected =
  `must be a date and time as ${playTimeFormatDescription}, or epoch milliseconds as on messages ` +
  `(a whole number from 0 to ${maxPlayTimeEpochMs})`;

export interface PlayTime {
  at: Date;
  offsetMinutes: number;
}

/** The instant and the offset it was written in, or undefined when the text is not a valid playTime. */
export function parsePlayTime(text: string): PlayTime | undefined {
  const match = playTimePattern.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, millis = '0', zone] = match;
  const offsetMinutes = zone === 'Z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(-2)));
  if (Math.abs(offsetMinutes) > 18 * 60 || Number(zone!.slice(-2)) > 59) return undefined;
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), Number(millis.padEnd(3, '0')));
  const check = new Date(local);
  // Date.UTC rolls 2026-02-30 over into March: refuse what is not a real date and time.
  if (check.getUTCFullYear() !== Number(year) || check.getUTCMonth() !== Number(month) - 1 || check.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    return undefined;
  }
  return { at: new Date(local - offsetMinutes * 60_000), offsetMinutes };
}

/** A playTime sent as epoch milliseconds (as messages take it): that instant, answered in UTC; undefined when out of range. */
export function playTimeFromEpochMs(ms: number): PlayTime | undefined {
  if (!Number.isInteger(ms) || ms < 0 || ms > maxPlayTimeEpochMs) return undefined;
  return { at: new Date(ms), offsetMinutes: 0 };
}

/** `2026-11-20T10:00:00.000+0100`: the instant shown in the given offset. */
export function formatPlayTime(at: Date, offsetMinutes: number): string {
  const local = new Date(at.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}${String(absolute % 60).padStart(2, '0')}`;
}

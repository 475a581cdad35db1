import { TZDate } from '@date-fns/tz';
import type { QuietHours } from '../../persistence/entities/app.ts';

const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * When the quiet hours a device is in at `now` end, in its zone; null when it is not in them. The hours are local
 * wall-clock times; a window whose start is after its end (21:00 to 08:00) runs over midnight. An end that a
 * daylight-saving change skips resolves forward. A zone Node does not know is read as UTC.
 */
export function quietUntil(now: number, zone: string, quiet: Pick<QuietHours, 'start' | 'end'>): number | null {
  const known = Number.isNaN(new TZDate(now, zone).getTime()) ? 'UTC' : zone;
  const local = new TZDate(now, known);
  const minute = local.getHours() * 60 + local.getMinutes();
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  if (start === end) return null;
  const inside = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!inside) return null;
  // The end is today's when it is still ahead on the clock, else tomorrow's.
  const daysAhead = minute < end ? 0 : 1;
  return new TZDate(local.getFullYear(), local.getMonth(), local.getDate() + daysAhead, Math.floor(end / 60), end % 60, 0, 0, known).getTime();
}

/** What quiet hours do to one push: nothing (null), or hold it. */
export type QuietHold =
  | { kind: 'skip'; reason: string }
  | { kind: 'delay'; until: number; reason: string }
  | { kind: 'expired'; reason: string };

/**
 * An app's quiet hours as a send checks each device against them: a device in them is skipped (`skip`), or held until
 * they end (`delay`) when that is before the push's `deadline` (its send time plus the message's expiry), else the
 * push has expired by then.
 */
export function quietHoursGate(quiet: QuietHours, defaultZone: string, deadline: number) {
  const window = `quiet hours ${quiet.start}–${quiet.end}`;
  return {
    check(zone: string | null, now: number): QuietHold | null {
      const until = quietUntil(now, zone ?? defaultZone, quiet);
      if (until === null) return null;
      if (quiet.action === 'skip') return { kind: 'skip', reason: `${window}: not sent` };
      if (until > deadline) return { kind: 'expired', reason: `${window}: they end after the message expires` };
      return { kind: 'delay', until, reason: `${window}: delayed until ${new Date(until).toISOString()}` };
    },
  };
}

export type QuietGate = ReturnType<typeof quietHoursGate>;

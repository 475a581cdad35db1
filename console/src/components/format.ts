const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const count = new Intl.NumberFormat();

/** A timestamp (ISO text or epoch ms) in the reader's own time zone; an em dash when there is none. */
export const formatTime = (value: string | number | null | undefined) => (value == null ? '—' : dateTime.format(new Date(value)));

export const formatCount = (value: number | null | undefined) => (value == null ? '—' : count.format(value));

export const formatRate = (value: number | null | undefined) => (value == null ? '—' : percent.format(value));

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** A time of day to the second, for an "as of" beside live figures. */
export const formatClock = (value: number) => clock.format(new Date(value));

/** A length in milliseconds as minutes and seconds to a tenth, `0:07.5`; a dash when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null) return '—';
  const seconds = ms / 1000;
  return `${Math.floor(seconds / 60)}:${(seconds % 60).toFixed(1).padStart(4, '0')}`;
}

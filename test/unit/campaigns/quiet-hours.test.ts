import { describe, expect, it } from 'vitest';
import { quietUntil } from '../../../src/domain/sends/quiet-hours.ts';

const at = (iso: string) => Date.parse(iso);
const overnight = { start: '21:00', end: '08:00' };

describe('quietUntil', () => {
  it('finds a device in overnight quiet hours on either side of midnight, in its own zone', () => {
    // 22:30 in Berlin (UTC+1 in January): quiet until 08:00 Berlin the next morning.
    expect(quietUntil(at('2026-01-15T21:30:00Z'), 'Europe/Berlin', overnight)).toBe(at('2026-01-16T07:00:00Z'));
    // 06:00 in Berlin: quiet until 08:00 the same morning.
    expect(quietUntil(at('2026-01-15T05:00:00Z'), 'Europe/Berlin', overnight)).toBe(at('2026-01-15T07:00:00Z'));
    // 12:00 in Berlin is not quiet; the same instant is 21:00 in Tokyo, which is.
    expect(quietUntil(at('2026-01-15T11:00:00Z'), 'Europe/Berlin', overnight)).toBeNull();
    expect(quietUntil(at('2026-01-15T12:00:00Z'), 'Asia/Tokyo', overnight)).toBe(at('2026-01-15T23:00:00Z'));
  });

  it('takes the start as quiet and the end as not', () => {
    expect(quietUntil(at('2026-01-15T21:00:00Z'), 'UTC', overnight)).toBe(at('2026-01-16T08:00:00Z'));
    expect(quietUntil(at('2026-01-16T08:00:00Z'), 'UTC', overnight)).toBeNull();
  });

  it('handles a window within one day, and an empty one', () => {
    const lunch = { start: '12:00', end: '13:30' };
    expect(quietUntil(at('2026-01-15T12:45:00Z'), 'UTC', lunch)).toBe(at('2026-01-15T13:30:00Z'));
    expect(quietUntil(at('2026-01-15T14:00:00Z'), 'UTC', lunch)).toBeNull();
    expect(quietUntil(at('2026-01-15T12:00:00Z'), 'UTC', { start: '12:00', end: '12:00' })).toBeNull();
  });

  it('ends at the local end across a daylight-saving change (New York, 8 March 2026)', () => {
    // 23:00 EST on 7 March; the clocks go forward at 02:00, so 08:00 the next morning is EDT (UTC−4).
    expect(quietUntil(at('2026-03-08T04:00:00Z'), 'America/New_York', overnight)).toBe(at('2026-03-08T12:00:00Z'));
  });

  it('reads a zone Node does not know as UTC', () => {
    expect(quietUntil(at('2026-01-15T22:00:00Z'), 'Mars/Olympus_Mons', overnight)).toBe(at('2026-01-16T08:00:00Z'));
  });
});

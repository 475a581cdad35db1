import { describe, expect, it } from 'vitest';
import { formatPlayTime, parsePlayTime } from '../../../src/domain/abtests/play-time.ts';

describe('playTime', () => {
  it.each([
    ['2026-11-20T10:00:00.000+0100', '2026-11-20T09:00:00.000Z', 60],
    ['2026-11-20T10:00:00.000+01:00', '2026-11-20T09:00:00.000Z', 60],
    ['2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z', 0],
    ['2026-11-20T10:00:00Z', '2026-11-20T10:00:00.000Z', 0],
    ['2026-11-20T01:30:00.5-0530', '2026-11-20T07:00:00.500Z', -330],
    ['2026-12-31T23:59:59.999-1200', '2027-01-01T11:59:59.999Z', -720],
  ])('reads %s as %s (offset %i minutes)', (text, instant, offset) => {
    expect(parsePlayTime(text)).toEqual({ at: new Date(instant), offsetMinutes: offset });
  });

  it.each(['2026-11-20 10:00:00.000+0100', '2026-11-20T10:00:00.000', '2026-02-30T10:00:00.000Z', '2026-11-20T24:00:00.000Z', '2026-11-20T10:00:00.000+0175', '2026-11-20T10:00:00.000+1900', 'soon', ''])(
    'refuses %j',
    (text) => {
      expect(parsePlayTime(text)).toBeUndefined();
    },
  );

  it('answers in the spec’s form, in the offset the client used', () => {
    expect(formatPlayTime(new Date('2026-11-20T09:00:00.000Z'), 60)).toBe('2026-11-20T10:00:00.000+0100');
    expect(formatPlayTime(new Date('2026-11-20T07:00:00.500Z'), -330)).toBe('2026-11-20T01:30:00.500-0530');
    expect(formatPlayTime(new Date('2026-11-20T09:00:00.000Z'), 0)).toBe('2026-11-20T09:00:00.000+0000');
    const written = '2026-03-29T02:30:00.000+0200';
    const { at, offsetMinutes } = parsePlayTime(written)!;
    expect(formatPlayTime(at, offsetMinutes)).toBe(written);
  });
});

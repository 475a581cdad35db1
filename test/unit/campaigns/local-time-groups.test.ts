import { describe, expect, it } from 'vitest';
import { groupByLocalTime, localInstant } from '../../../src/domain/campaigns/local-time-groups.ts';
import { formatUtcOffset } from '../../../src/sandbox-safe/utc-offset.ts';

const hour = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('localInstant', () => {
  it('is the instant the zone’s clock shows playTime’s wall-clock time in UTC, with the zone’s offset on that day', () => {
    // 09:00: Berlin is UTC+1 in winter and UTC+2 in summer; Kolkata +5:30 all year; Honolulu −10.
    expect(localInstant(at('2026-01-15T09:00:00Z'), 'Europe/Berlin')).toBe(at('2026-01-15T08:00:00Z'));
    expect(localInstant(at('2026-07-15T09:00:00Z'), 'Europe/Berlin')).toBe(at('2026-07-15T07:00:00Z'));
    expect(localInstant(at('2026-07-15T09:00:00Z'), 'Asia/Kolkata')).toBe(at('2026-07-15T03:30:00Z'));
    expect(localInstant(at('2026-07-15T09:00:00Z'), 'Pacific/Honolulu')).toBe(at('2026-07-15T19:00:00Z'));
    expect(localInstant(at('2026-07-15T09:00:00Z'), 'UTC')).toBe(at('2026-07-15T09:00:00Z'));
  });

  it('knows nothing of a zone Node does not know', () => {
    expect(localInstant(at('2026-07-15T09:00:00Z'), 'Mars/Olympus_Mons')).toBeNull();
  });
});

describe('groupByLocalTime', () => {
  const playTime = at('2026-03-20T09:00:00Z');

  it('puts zones that share an offset on the day in one group, earliest first, and marks a group past its expiry expired', () => {
    const groups = groupByLocalTime(
      [
        { zone: 'Europe/Berlin', devices: 3 },
        { zone: 'America/New_York', devices: 5 },
        { zone: 'Europe/Paris', devices: 2 },
        { zone: 'Asia/Tokyo', devices: 7 },
      ],
      // 07:30 UTC: Tokyo's 09:00 (00:00 UTC) is 7.5 hours gone, Berlin's (08:00 UTC) not yet.
      { playTime, now: at('2026-03-20T07:30:00Z'), expiryMinutes: 120 },
    );
    expect(groups).toEqual([
      { sendAt: at('2026-03-20T00:00:00Z'), utcOffsetMinutes: 540, zones: ['Asia/Tokyo'], devices: 7, expired: true },
      { sendAt: at('2026-03-20T08:00:00Z'), utcOffsetMinutes: 60, zones: ['Europe/Berlin', 'Europe/Paris'], devices: 5, expired: false },
      // New York has moved to daylight time by 20 March: UTC−4.
      { sendAt: at('2026-03-20T13:00:00Z'), utcOffsetMinutes: -240, zones: ['America/New_York'], devices: 5, expired: false },
    ]);
  });

  it('sends a group whose time has passed only while its expiry has not', () => {
    const zones = [{ zone: 'UTC', devices: 1 }];
    expect(groupByLocalTime(zones, { playTime, now: playTime + 59 * 60_000, expiryMinutes: 60 })[0]!.expired).toBe(false);
    expect(groupByLocalTime(zones, { playTime, now: playTime + hour, expiryMinutes: 60 })[0]!.expired).toBe(true);
  });

  it('sends the devices of a zone Node no longer knows with UTC', () => {
    expect(groupByLocalTime([{ zone: 'Mars/Olympus_Mons', devices: 2 }, { zone: 'UTC', devices: 1 }], { playTime, now: playTime, expiryMinutes: 60 })).toEqual([
      { sendAt: playTime, utcOffsetMinutes: 0, zones: ['Mars/Olympus_Mons', 'UTC'], devices: 3, expired: false },
    ]);
  });
});

describe('formatUtcOffset', () => {
  it('writes an offset as people do', () => {
    expect([330, -600, 0, -210, 840].map(formatUtcOffset)).toEqual(['+05:30', '-10:00', '+00:00', '-03:30', '+14:00']);
  });
});

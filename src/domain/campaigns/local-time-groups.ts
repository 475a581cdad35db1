import { TZDate } from '@date-fns/tz';

/** Devices of a send's audience in one time zone (a device's own, else its app's `defaultTimezone`). */
export interface ZoneCount {
  zone: string;
  devices: number;
}

/** The devices whose local time reaches playTime's wall-clock time at the same instant: one UTC offset on the day. */
export interface LocalTimeGroup {
  /** Epoch ms. */
  sendAt: number;
  utcOffsetMinutes: number;
  zones: string[];
  devices: number;
  /** sendAt plus the message's expiry had passed when the send started: counted `expired`, never sent. */
  expired: boolean;
}

/**
 * The instant at which `zone`'s clock shows the wall-clock time that `playTime` shows in UTC (09:00 UTC → 09:00 in
 * Europe/Berlin, an hour earlier). A wall-clock time that a daylight-saving change skips resolves as @date-fns/tz
 * resolves it (forward). Null for a zone this Node does not know.
 */
export function localInstant(playTime: number, zone: string): number | null {
  const wall = new Date(playTime);
  const instant = new TZDate(
    wall.getUTCFullYear(),
    wall.getUTCMonth(),
    wall.getUTCDate(),
    wall.getUTCHours(),
    wall.getUTCMinutes(),
    wall.getUTCSeconds(),
    wall.getUTCMilliseconds(),
    zone,
  ).getTime();
  return Number.isNaN(instant) ? null : instant;
}

/**
 * Groups an audience's zones by the instant each reaches playTime's wall-clock time, earliest first. A zone unknown to
 * this Node goes with UTC (it was valid when stored; Node's zone data is what judges it now).
 */
export function groupByLocalTime(zones: ZoneCount[], input: { playTime: number; now: number; expiryMinutes: number }): LocalTimeGroup[] {
  const groups = new Map<number, LocalTimeGroup>();
  for (const { zone, devices } of zones) {
    const sendAt = localInstant(input.playTime, zone) ?? input.playTime;
    const group = groups.get(sendAt);
    if (group) {
      group.zones.push(zone);
      group.devices += devices;
      continue;
    }
    // The zone's clock reads playTime's wall-clock time at sendAt, so its offset then is the difference.
    const utcOffsetMinutes = Math.round((input.playTime - sendAt) / 60_000);
    groups.set(sendAt, { sendAt, utcOffsetMinutes, zones: [zone], devices, expired: input.now >= sendAt + input.expiryMinutes * 60_000 });
  }
  return [...groups.values()].sort((a, b) => a.sendAt - b.sendAt);
}

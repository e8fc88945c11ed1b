/**
 * A wall-clock time in an IANA zone as an instant, for the feeds that name a TZID without
 * carrying its VTIMEZONE (ical.js converts the zones a feed defines; Intl knows the rest).
 */
const formats = new Map<string, Intl.DateTimeFormat | null>();

function formatOf(zone: string): Intl.DateTimeFormat | null {
  let format = formats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      format = null;
    }
    formats.set(zone, format);
  }
  return format;
}

/** The zone's offset from UTC at `at`, in ms (the zone's wall clock minus UTC). */
function offsetAt(format: Intl.DateTimeFormat, at: number): number {
  const part: Record<string, number> = {};
  for (const { type, value } of format.formatToParts(new Date(at))) part[type] = Number(value);
  const wall = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
  return wall - (at - (at % 1000));
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function isKnownZone(zone: string): boolean {
  return formatOf(zone) !== null;
}

/** The instant a wall time in `zone` names; UTC when the zone is unknown. */
export function wallTimeToInstant(time: WallTime, zone: string | null): number {
  const asUtc = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const format = zone ? formatOf(zone) : null;
  if (!format) return asUtc;
  const first = offsetAt(format, asUtc - offsetAt(format, asUtc));
  const instant = asUtc - first;
  // Across a change of offset the first guess can be an hour off: take the offset at the result.
  const second = offsetAt(format, instant);
  return second === first ? instant : asUtc - second;
}

/** Date texts of the interface, written in the gateway's time zone (GATEWAY_TIMEZONE). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(ms: number, timeZone: string): Record<string, string> {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) out[p.type] = p.value;
  return out;
}

/** `YYYYMMDDhhmmss` */
export function compactDate(ms: number, timeZone: string): string {
  const p = partsIn(ms, timeZone);
  return `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}`;
}

/** `YYYY-MM-DD hh:mm:ss` */
export function spacedDate(ms: number, timeZone: string): string {
  const p = partsIn(ms, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** Offset of the zone at that instant in minutes east of UTC. */
export function zoneOffsetMinutes(ms: number, timeZone: string): number {
  const p = partsIn(ms, timeZone);
  const asUtc = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** ISO 8601 with an offset written without a colon: 2026-11-21T10:00:00+0000 */
export function isoWithOffset(ms: number, timeZone: string): string {
  const p = partsIn(ms, timeZone);
  const off = zoneOffsetMinutes(ms, timeZone);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${sign}${hh}${mm}`;
}

/** Parses `YYYYMMDDhhmmss` in the zone to epoch ms; undefined when it is not a real date. */
export function parseCompactDate(text: string, timeZone: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(guess);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return wallTimeToEpoch(guess, timeZone);
}

/**
 * The instant a wall-clock time (`wall`: its fields read as UTC) names in the zone. The zone's offset is the one
 * in force at that instant, not at `wall` read as UTC (hours apart around a daylight-saving change): each offset
 * the zone has a day either side is tried, and kept when the instant it gives shows that wall time. A time that
 * occurs twice (clocks set back) is its earlier instant; one that never occurs (clocks set forward) is moved on
 * by the gap, so 02:30 on a day that skips from 02:00 to 03:00 is 03:30.
 */
function wallTimeToEpoch(wall: number, timeZone: string): number {
  const before = zoneOffsetMinutes(wall - 86_400_000, timeZone);
  const after = zoneOffsetMinutes(wall + 86_400_000, timeZone);
  const fits = [before, after]
    .map((offset) => wall - offset * 60_000)
    .filter((at) => at - wall === -zoneOffsetMinutes(at, timeZone) * 60_000)
    .sort((a, b) => a - b);
  return fits[0] ?? wall - before * 60_000;
}

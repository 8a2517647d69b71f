import { describe, expect, it } from 'vitest';
import { compactDate, parseCompactDate } from '../../../src/core/kernel/dates.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('parseCompactDate around daylight-saving changes', () => {
  it('when a wall time is read in a zone whose offset changed that day, then it is the instant that shows that wall time', () => {
    // New York sets its clocks forward at 02:00 on 8 March 2026: 05:00 is EDT (UTC-4)
    expect(iso(parseCompactDate('20260308050000', 'America/New_York'))).toBe('2026-03-08T09:00:00.000Z');
    expect(iso(parseCompactDate('20260308010000', 'America/New_York'))).toBe('2026-03-08T06:00:00.000Z');
    // Berlin: forward on 29 March (01:30 is still CET, UTC+1), back on 25 October (01:30 is still CEST, UTC+2)
    expect(iso(parseCompactDate('20260329013000', 'Europe/Berlin'))).toBe('2026-03-29T00:30:00.000Z');
    expect(iso(parseCompactDate('20261025013000', 'Europe/Berlin'))).toBe('2026-10-24T23:30:00.000Z');
  });

  it('when a wall time occurs twice (clocks set back), then it is the earlier instant', () => {
    expect(iso(parseCompactDate('20261025023000', 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(parseCompactDate('20261101013000', 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('when a wall time never occurs (clocks set forward), then it is moved on by the gap', () => {
    expect(iso(parseCompactDate('20260308023000', 'America/New_York'))).toBe('2026-03-08T07:30:00.000Z');
    expect(compactDate(parseCompactDate('20260308023000', 'America/New_York')!, 'America/New_York')).toBe('20260308033000');
  });

  it('when every hour of a year is written and read again, then it reads back as the same instant in each zone', () => {
    for (const zone of ['America/New_York', 'Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Tokyo', 'UTC']) {
      const wrong: string[] = [];
      for (let at = Date.UTC(2026, 0, 1); at < Date.UTC(2027, 0, 1); at += 60 * 60_000) {
        const text = compactDate(at, zone);
        const back = parseCompactDate(text, zone)!;
        // a wall time shown twice reads as its earlier instant: the same text either way
        if (compactDate(back, zone) !== text || (back !== at && back > at)) wrong.push(`${zone} ${text}: ${iso(at)} -> ${iso(back)}`);
      }
      expect(wrong).toEqual([]);
    }
  });

  it('when a text is not a real date, then it is undefined', () => {
    expect(parseCompactDate('20260230000000', 'UTC')).toBeUndefined();
    expect(parseCompactDate('20260101240000', 'UTC')).toBeUndefined();
    expect(parseCompactDate('2026010100000', 'UTC')).toBeUndefined();
  });
});

import type { CoreDeps } from '../ports/deps.js';
import { DAY_FIGURES, dayOf, readDayCounters, type DayFigures } from '../records/day-figures-record.js';

/** The ranges the home offers, in days ending today; 30 unless asked. */
export const HOME_RANGES = [7, 30, 90] as const;
export type HomeRange = (typeof HOME_RANGES)[number];

export interface HomeDay {
  /** YYYYMMDD in GATEWAY_TIMEZONE */
  day: string;
  figures: DayFigures;
}

/** One currency's days, oldest first (a day with nothing holds zeros), and their sums. */
export interface CurrencySeries {
  currency: string;
  days: HomeDay[];
  totals: DayFigures;
}

const zero = (): DayFigures => Object.fromEntries(DAY_FIGURES.map((f) => [f, 0])) as DayFigures;

/** The `count` calendar days ending with `last` (YYYYMMDD), oldest first. */
export function daysEnding(last: string, count: number): string[] {
  const end = Date.UTC(+last.slice(0, 4), +last.slice(4, 6) - 1, +last.slice(6, 8));
  return Array.from({ length: count }, (_, i) => new Date(end - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10).replace(/-/g, ''));
}

/**
 * The merchant's figures per currency over the `range` days ending today (the days of GATEWAY_TIMEZONE),
 * summed over `accountIds`: read from the day counters the store keeps as payments change (one hash a day),
 * never from the payments themselves. Currencies with nothing in the range are left out.
 */
export async function homeFigures(
  deps: Pick<CoreDeps, 'store' | 'clock' | 'timezone'>,
  merchantId: string,
  accountIds: readonly string[],
  range: HomeRange,
): Promise<{ days: string[]; series: CurrencySeries[] }> {
  const days = daysEnding(dayOf(deps.clock.now(), deps.timezone), range);
  const raw = await deps.store.dayCounters(merchantId, days);
  const own = new Set(accountIds);
  const byCurrency = new Map<string, DayFigures[]>();
  raw.forEach((counters, i) => {
    for (const [at, figures] of readDayCounters(counters)) {
      const cut = at.indexOf('|');
      if (!own.has(at.slice(0, cut))) continue;
      const currency = at.slice(cut + 1);
      let row = byCurrency.get(currency);
      if (!row) byCurrency.set(currency, (row = days.map(zero)));
      for (const f of DAY_FIGURES) row[i]![f] += figures[f];
    }
  });
  const series = [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, row]) => {
      const totals = zero();
      for (const d of row) for (const f of DAY_FIGURES) totals[f] += d[f];
      return { currency, days: row.map((figures, i) => ({ day: days[i]!, figures })), totals };
    })
    .filter((s) => DAY_FIGURES.some((f) => s.totals[f] !== 0));
  return { days, series };
}

/** Final answers: approved or refused. */
export const answered = (f: DayFigures): number => f.approved + f.refused;

/** Approved answers over all final answers, 0 to 1; undefined when nothing was answered. */
export function approvalRate(f: DayFigures): number | undefined {
  const all = answered(f);
  return all > 0 ? f.approved / all : undefined;
}

import type { CurrencySeries } from '../../core/home/home.js';
import { answered, approvalRate } from '../../core/home/home.js';
import type { DayFigures } from '../../core/records/day-figures-record.js';
import type { PortalMessageKey } from '../../i18n/portal.js';
import { barChartSvg, type ChartPoint } from './home-charts.js';

/** What the home's views need of the page's helpers (portalHelpers). */
interface Words {
  t: (key: PortalMessageKey, params?: Record<string, string | number>) => string;
  lang: string;
  dir: string;
  money: (minor: number, currency: string) => string;
}

/** A date or amount inside a sentence of a right-to-left page, kept whole and left to right (U+2066 ... U+2069). */
export const isolate = (dir: string, text: string): string => (dir === 'rtl' ? `\u2066${text}\u2069` : text);

/** One chart of the home: its caption, its summary in words, its SVG and the table behind it. */
export interface HomeChart {
  id: string;
  title: string;
  summary: string;
  svg: string;
  /** the table's column headings after the day's, and each day's cells */
  columns: string[];
  rows: { day: string; cells: string[] }[];
}

export interface HomeCurrency {
  currency: string;
  /** the range's totals in words: volume, payments, approval rate, refunds, disputes */
  totals: { label: string; value: string }[];
  charts: HomeChart[];
}

/** YYYYMMDD as YYYY-MM-DD. */
export const dayLabel = (day: string): string => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;

/** A day inside a sentence: its hyphens do not break (U+2011), so a narrow column never wraps it in two. */
export const sentenceDay = (label: string): string => label.replace(/-/g, '\u2011');

/** The home's currencies as the view shows them: totals, and five charts each with its table. */
export function homeView(series: readonly CurrencySeries[], w: Words): HomeCurrency[] {
  const count = new Intl.NumberFormat(w.lang);
  const percent = new Intl.NumberFormat(w.lang, { style: 'percent', maximumFractionDigits: 1 });
  const rate = (f: DayFigures): string => {
    const r = approvalRate(f);
    return r === undefined ? w.t('home.no_answers') : percent.format(r);
  };
  const iso = (text: string) => isolate(w.dir, text);
  return series.map((s, n) => {
    const money = (minor: number) => w.money(minor, s.currency);
    const chart = (
      key: string,
      title: string,
      value: (f: DayFigures) => number | undefined,
      text: (f: DayFigures) => string,
      columns: { title: string; cell: (f: DayFigures) => string }[],
      max?: number,
    ): HomeChart => {
      const id = `c${n}-${key}`;
      const points: ChartPoint[] = s.days.map((d) => ({ label: dayLabel(d.day), value: value(d.figures), text: text(d.figures) }));
      const drawn = s.days.filter((d) => value(d.figures) !== undefined);
      const peak = drawn.reduce<(typeof drawn)[number] | undefined>(
        (a, d) => (!a || value(d.figures)! > value(a.figures)! ? d : a),
        undefined,
      );
      const summary =
        peak && value(peak.figures)! > 0
          ? w.t('home.summary', { total: iso(text(s.totals)), peak: iso(text(peak.figures)), day: iso(sentenceDay(dayLabel(peak.day))) })
          : w.t('home.summary_none', { total: iso(text(s.totals)) });
      return {
        id,
        title,
        summary,
        svg: barChartSvg(points, `${id}-title`, `${id}-desc`, max),
        columns: columns.map((c) => c.title),
        rows: s.days.map((d) => ({ day: dayLabel(d.day), cells: columns.map((c) => c.cell(d.figures)) })),
      };
    };
    const t = w.t;
    return {
      currency: s.currency,
      totals: [
        { label: t('home.volume'), value: money(s.totals.volume) },
        { label: t('home.payments'), value: count.format(s.totals.payments) },
        { label: t('home.approval_rate'), value: rate(s.totals) },
        {
          label: t('home.refunds'),
          value: t('home.count_amount', { count: iso(count.format(s.totals.refunds)), amount: iso(money(s.totals.refunded)) }),
        },
        {
          label: t('home.disputes'),
          value: t('home.count_amount', { count: iso(count.format(s.totals.disputes)), amount: iso(money(s.totals.disputed)) }),
        },
      ],
      charts: [
        chart(
          'volume',
          t('home.volume'),
          (f) => f.volume,
          (f) => money(f.volume),
          [{ title: t('home.volume'), cell: (f) => money(f.volume) }],
        ),
        chart(
          'payments',
          t('home.payments'),
          (f) => f.payments,
          (f) => count.format(f.payments),
          [
            { title: t('home.payments'), cell: (f) => count.format(f.payments) },
            { title: t('home.answered'), cell: (f) => count.format(answered(f)) },
          ],
        ),
        chart(
          'rate',
          t('home.approval_rate'),
          approvalRate,
          rate,
          [
            { title: t('home.approval_rate'), cell: rate },
            { title: t('home.approved'), cell: (f) => count.format(f.approved) },
            { title: t('home.answered'), cell: (f) => count.format(answered(f)) },
          ],
          1,
        ),
        chart(
          'refunds',
          t('home.refunds_amount'),
          (f) => f.refunded,
          (f) => money(f.refunded),
          [
            { title: t('home.refunds_count'), cell: (f) => count.format(f.refunds) },
            { title: t('home.refunds_amount'), cell: (f) => money(f.refunded) },
          ],
        ),
        chart(
          'disputes',
          t('home.disputes_amount'),
          (f) => f.disputed,
          (f) => money(f.disputed),
          [
            { title: t('home.disputes_count'), cell: (f) => count.format(f.disputes) },
            { title: t('home.disputes_amount'), cell: (f) => money(f.disputed) },
          ],
        ),
      ],
    };
  });
}

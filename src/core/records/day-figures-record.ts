// The portal home's daily figures (docs/portal.md#home): what each payment and dispute adds to its days. A
// leaf file (kernel/ and record files only), so the store can count them in the commit that moves them.
import { compactDate } from '../kernel/dates.js';
import { PaymentStatus as S, type Payment } from './payment.js';
import type { DisputeRecord } from './dispute-record.js';

/**
 * The figures kept per merchant, day, account and currency; amounts in the gateway's minor units (hundredths).
 * Final answers are approved + refused: an approval moves two counters (approved, volume), a refusal one.
 */
export const DAY_FIGURES = ['payments', 'refused', 'approved', 'volume', 'refunds', 'refunded', 'disputes', 'disputed'] as const;
export type DayFigure = (typeof DAY_FIGURES)[number];

/** The figures a payment adds to its days, in this order (a payment's own part: no disputes). */
const PAYMENT_FIGURES = ['payments', 'refused', 'approved', 'volume', 'refunds', 'refunded'] as const;

/** payment_status of an approved payment that stands: authorised, captured, partly or wholly refunded. */
export const APPROVED_STATUSES: ReadonlySet<string> = new Set([S.AUTHORISED, S.CAPTURED, S.PARTLY_REFUNDED, S.REFUNDED]);
/** payment_status of a final refusal: declined, rejected by risk, 3-D Secure failed. */
export const REFUSED_STATUSES: ReadonlySet<string> = new Set([S.DECLINED, S.REJECTED, S.THREEDS_FAILED]);

/** How long the counters of a day are kept after the day's first count: the home shows 90 days at most. */
export const DAY_FIGURES_TTL_MS = 100 * 86_400_000;

/**
 * What a payment's record says its figures were when it was last written (`at`: the version that write gave
 * it), by day `YYYYMMDD`, in PAYMENT_FIGURES order. The store counts the difference at each write, so every
 * transition is counted in the commit that makes it, once: the commit is conditional on the version read.
 */
export type CountedFigures = NonNullable<Payment['counted']>;

/** Days in the gateway's zone, cached per quarter hour: no zone's offset splits one, so neither does a midnight. */
const dayCache = new Map<string, string>();
export function dayOf(ms: number, timezone: string): string {
  const slot = `${timezone} ${Math.floor(ms / 900_000)}`;
  let day = dayCache.get(slot);
  if (day === undefined) {
    if (dayCache.size > 4096) dayCache.clear();
    day = compactDate(ms, timezone).slice(0, 8);
    dayCache.set(slot, day);
  }
  return day;
}

/**
 * A payment's figures as it stands: on the day it was created, one payment; one final answer when approved
 * (APPROVED_STATUSES, with its amount as volume) or refused (REFUSED_STATUSES); and on each accepted refund's
 * own day (refund_status 1), one refund and its amount. Pending, held, cancelled and expired payments are
 * counted as payments only.
 */
export function paymentFigures(p: Payment, timezone: string): Record<string, number[]> {
  const approved = APPROVED_STATUSES.has(p.status);
  const refused = REFUSED_STATUSES.has(p.status);
  const days: Record<string, number[]> = {
    [dayOf(p.created_at, timezone)]: [1, refused ? 1 : 0, approved ? 1 : 0, approved ? p.amount : 0, 0, 0],
  };
  for (const r of p.refunds) {
    if (r.refund_status !== '1') continue;
    const day = dayOf(r.refund_date, timezone);
    const row = (days[day] ??= [0, 0, 0, 0, 0, 0]);
    row[4]! += 1;
    row[5]! += r.refund_amount;
  }
  return days;
}

/** One counter to move: its day, its field in the day's hash (`<account>|<currency>|<figure>`) and by how much. */
export interface FigureAdd {
  day: string;
  field: string;
  by: number;
}

const fieldOf = (account: string, currency: string, figure: DayFigure) => `${account}|${currency}|${figure}`;

/** What moving a payment's figures from `before` to `after` adds, non-zero changes only. */
export function figureChanges(p: Payment, before: Record<string, number[]>, after: Record<string, number[]>): FigureAdd[] {
  const adds: FigureAdd[] = [];
  for (const day of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[day];
    const now = after[day];
    PAYMENT_FIGURES.forEach((figure, i) => {
      const by = (now?.[i] ?? 0) - (was?.[i] ?? 0);
      if (by !== 0) adds.push({ day, field: fieldOf(p.account_id, p.currency, figure), by });
    });
  }
  return adds;
}

/** A dispute opened: one dispute and its amount on the day it was opened. */
export function disputeOpened(d: DisputeRecord, timezone: string): FigureAdd[] {
  const day = dayOf(d.opened_at, timezone);
  return [
    { day, field: fieldOf(d.account_id, d.currency, 'disputes'), by: 1 },
    { day, field: fieldOf(d.account_id, d.currency, 'disputed'), by: d.amount },
  ];
}

/** One day's figures of one account and currency. */
export type DayFigures = Record<DayFigure, number>;

/** A day's stored counters, by account and currency (`<account>|<currency>`). */
export function readDayCounters(raw: Record<string, number>): Map<string, DayFigures> {
  const out = new Map<string, DayFigures>();
  for (const [field, n] of Object.entries(raw)) {
    const cut = field.lastIndexOf('|');
    const figure = field.slice(cut + 1) as DayFigure;
    if (!DAY_FIGURES.includes(figure)) continue;
    const at = field.slice(0, cut);
    const row = out.get(at) ?? (Object.fromEntries(DAY_FIGURES.map((f) => [f, 0])) as DayFigures);
    row[figure] += n;
    out.set(at, row);
  }
  return out;
}

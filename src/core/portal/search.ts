import type { CoreDeps } from '../ports/deps.js';
import type { PaymentIndexEntry } from '../ports/store.js';
import type { Payment, PaymentStatus } from '../records/payment.js';
import { paymentOfOrder, sameOrder } from '../queries/order-lookup.js';

/** What a portal user can search payments by; every field optional, all given ones must match. */
export interface PaymentFilter {
  /** the merchant's account ids to look in (already checked to be the merchant's own) */
  accounts: string[];
  transaction_id?: string;
  order_no?: string;
  statuses?: PaymentStatus[];
  /** creation time bounds, ms, inclusive */
  from?: number;
  to?: number;
  /** minor units, inclusive */
  min_amount?: number;
  max_amount?: number;
  last4?: string;
  currency?: string;
}

/** Where a page ended: the last payment looked at (newest first, ties by id). */
export interface SearchCursor {
  at: number;
  txn: string;
}

export interface SearchPage {
  payments: Payment[];
  /** set when more payments may match */
  next?: SearchCursor;
  /** how many payments were looked at for this page */
  scanned: number;
}

const CHUNK = 100;
/** a page looks at most this many payments; then it offers "next" to go on */
export const MAX_SCAN_PER_PAGE = 5_000;

/** Newest first; among equal times the higher id first (the order both store adapters keep). */
const before = (a: PaymentIndexEntry, b: PaymentIndexEntry): number =>
  b.at - a.at || (a.transactionId < b.transactionId ? 1 : a.transactionId > b.transactionId ? -1 : 0);

const after = (e: PaymentIndexEntry, c: SearchCursor | undefined): boolean =>
  !c || e.at < c.at || (e.at === c.at && e.transactionId < c.txn);

/**
 * The next `n` index entries after the cursor across several accounts, merged newest first. An account whose
 * list came back full may hold more entries before others' ones, so only entries down to the highest of the
 * full lists' last entries are certain; when that leaves too few, the lists are read again, longer.
 */
async function nextEntries(
  deps: CoreDeps,
  merchantId: string,
  f: PaymentFilter,
  cursor: SearchCursor | undefined,
  n: number,
): Promise<PaymentIndexEntry[]> {
  const from = f.from ?? -Infinity;
  const upTo = Math.min(cursor?.at ?? Infinity, f.to ?? Infinity);
  for (let size = n; ; size *= 2) {
    const lists = await Promise.all(f.accounts.map((a) => deps.store.paymentsByTime(merchantId, a, from, upTo, size)));
    const cutoffs = lists.filter((l) => l.length === size).map((l) => l[l.length - 1]!);
    const cutoff = cutoffs.sort(before)[0];
    const merged = lists
      .flat()
      .filter((e) => after(e, cursor) && (!cutoff || before(e, cutoff) <= 0))
      .sort(before);
    if (merged.length >= n || !cutoff || size >= 100_000) return merged.slice(0, n);
  }
}

export function matches(p: Payment, f: PaymentFilter): boolean {
  if (!f.accounts.includes(p.account_id)) return false;
  if (f.transaction_id && p.transaction_id !== f.transaction_id) return false;
  if (f.order_no && !sameOrder(p.order_no, f.order_no)) return false;
  if (f.statuses?.length && !f.statuses.includes(p.status)) return false;
  if (f.from !== undefined && p.created_at < f.from) return false;
  if (f.to !== undefined && p.created_at > f.to) return false;
  if (f.min_amount !== undefined && p.amount < f.min_amount) return false;
  if (f.max_amount !== undefined && p.amount > f.max_amount) return false;
  if (f.last4 && p.card?.last4 !== f.last4) return false;
  if (f.currency && p.currency !== f.currency) return false;
  return true;
}

/**
 * Payments named exactly (transaction_id or order_no): read directly, no scan. An order numbered like a card
 * number was stored masked; the number the merchant keeps finds it too (queries/order-lookup.ts).
 */
async function exactLookups(deps: CoreDeps, merchantId: string, f: PaymentFilter): Promise<Payment[]> {
  const found = f.transaction_id
    ? [await deps.store.getPayment(merchantId, f.transaction_id)]
    : await Promise.all(f.accounts.map((a) => paymentOfOrder(deps, merchantId, a, f.order_no!)));
  return found.filter((p): p is Payment => p !== undefined && matches(p, f)).sort((a, b) => b.created_at - a.created_at);
}

/**
 * Every matching payment, newest first, read from the accounts' time indexes in chunks and filtered here
 * (server-side); `onScan` hears each entry looked at, so a caller can stop and remember where.
 */
export async function* scanPayments(
  deps: CoreDeps,
  merchantId: string,
  f: PaymentFilter,
  cursor?: SearchCursor,
): AsyncGenerator<{ payment: Payment | undefined; entry: PaymentIndexEntry }> {
  if (f.transaction_id || f.order_no) {
    if (cursor) return;
    for (const p of await exactLookups(deps, merchantId, f))
      yield { payment: p, entry: { transactionId: p.transaction_id, at: p.created_at } };
    return;
  }
  let at = cursor;
  for (;;) {
    const entries = await nextEntries(deps, merchantId, f, at, CHUNK);
    if (entries.length === 0) return;
    const payments = await deps.store.getPayments(
      merchantId,
      entries.map((e) => e.transactionId),
    );
    for (let i = 0; i < entries.length; i++) {
      const p = payments[i];
      yield { payment: p && matches(p, f) ? p : undefined, entry: entries[i]! };
    }
    const last = entries[entries.length - 1]!;
    at = { at: last.at, txn: last.transactionId };
    if (entries.length < CHUNK) return;
  }
}

/** One page of matching payments, newest first, after the cursor. */
export async function searchPayments(
  deps: CoreDeps,
  merchantId: string,
  f: PaymentFilter,
  pageSize: number,
  cursor?: SearchCursor,
): Promise<SearchPage> {
  const payments: Payment[] = [];
  let scanned = 0;
  let last: PaymentIndexEntry | undefined;
  let exhausted = true;
  for await (const { payment, entry } of scanPayments(deps, merchantId, f, cursor)) {
    if (payments.length === pageSize || scanned === MAX_SCAN_PER_PAGE) {
      exhausted = false;
      break;
    }
    scanned++;
    last = entry;
    if (payment) payments.push(payment);
  }
  return { payments, scanned, ...(exhausted || !last ? {} : { next: { at: last.at, txn: last.transactionId } }) };
}

import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment, RefundRecord } from '../records/payment.js';
import { formatAmount } from '../kernel/money.js';
import { compactDate } from '../kernel/dates.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { paymentOfOrder } from './order-lookup.js';

export const REFUND_SEARCH_LIMIT = 100;

/** Search criteria: any of the lists, and/or a refund-date range (epoch ms, inclusive). */
export interface RefundSearch {
  transactionIds: string[];
  orderNos: string[];
  refundReferenceIds: string[];
  from?: number;
  to?: number;
}

interface Hit {
  payment: Payment;
  refund: RefundRecord;
}

function row(h: Hit, timezone: string): Record<string, string> {
  const { payment: p, refund: r } = h;
  return {
    transaction_id: p.transaction_id,
    order_no: p.order_no,
    amount: formatAmount(p.amount),
    currency: p.currency,
    refund_status: r.refund_status,
    payment_status: p.status,
    refund_amount: formatAmount(r.refund_amount),
    refund_reference: r.refund_reference,
    refund_reason: r.refund_reason,
    refund_reference_id: r.refund_reference_id,
    refund_date: compactDate(r.refund_date, timezone),
    refund_processing_date: r.refund_processing_date === null ? '' : compactDate(r.refund_processing_date, timezone),
  };
}

/** The refunds of named transactions (by transaction_id, order_no or refund_reference_id). */
async function namedHits(deps: CoreDeps, account: Account, s: RefundSearch): Promise<Hit[]> {
  const m = account.merchant_id;
  const byRef = await Promise.all(s.refundReferenceIds.map((r) => deps.store.findRefund(m, account.account_id, r)));
  const byOrder = await Promise.all(s.orderNos.map((o) => paymentOfOrder(deps, m, account.account_id, o)));
  const wholeIds = new Set([...s.transactionIds, ...byOrder.flatMap((p) => (p ? [p.transaction_id] : []))]);
  const refIds = new Set(s.refundReferenceIds);
  const ids = [...new Set([...wholeIds, ...byRef.filter((t): t is string => t !== undefined)])];
  const payments = await deps.store.getPayments(m, ids);
  const hits: Hit[] = [];
  for (const p of payments) {
    if (!p || p.account_id !== account.account_id) continue;
    for (const refund of p.refunds) {
      if (wholeIds.has(p.transaction_id) || refIds.has(refund.refund_reference_id)) hits.push({ payment: p, refund });
    }
  }
  return hits;
}

/** The refunds of the account in a date range, from the per-account index (newest first). */
async function datedHits(deps: CoreDeps, account: Account, from: number, to: number, limit: number): Promise<Hit[]> {
  const m = account.merchant_id;
  const entries = await deps.store.refundsByDate(m, account.account_id, from, to, limit);
  const payments = await deps.store.getPayments(m, [...new Set(entries.map((e) => e.transactionId))]);
  const byId = new Map(payments.flatMap((p) => (p ? [[p.transaction_id, p] as const] : [])));
  return entries.flatMap((e) => {
    const payment = byId.get(e.transactionId);
    const refund = payment?.refunds.find((r) => r.refund_reference_id === e.refundReferenceId);
    return payment && refund ? [{ payment, refund }] : [];
  });
}

/** Refund search: at most 100 records, newest first, has_more `1` when more matched. */
export async function searchRefunds(deps: CoreDeps, account: Account, s: RefundSearch): Promise<Record<string, unknown>> {
  const from = s.from ?? -Infinity;
  const to = s.to ?? Infinity;
  const named = s.transactionIds.length + s.orderNos.length + s.refundReferenceIds.length > 0;
  const hits = named
    ? (await namedHits(deps, account, s)).filter((h) => h.refund.refund_date >= from && h.refund.refund_date <= to)
    : await datedHits(deps, account, from, to, REFUND_SEARCH_LIMIT + 1);
  hits.sort(
    (a, b) => b.refund.refund_date - a.refund.refund_date || (a.refund.refund_reference_id < b.refund.refund_reference_id ? 1 : -1),
  );
  const head = { merchant_id: account.merchant_id, account_id: account.account_id, return_status: '1', return_message: 'OK' };
  return {
    ...head,
    encryption_data: signFields(head, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key),
    has_more: hits.length > REFUND_SEARCH_LIMIT ? '1' : '0',
    refund_orders: hits.slice(0, REFUND_SEARCH_LIMIT).map((h) => row(h, deps.timezone)),
  };
}

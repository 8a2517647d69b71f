import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import { formatAmount } from '../kernel/money.js';
import { compactDate } from '../kernel/dates.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { paymentOfOrder } from './order-lookup.js';

export const QUERY_LIMIT = 100;
export const ANTIFRAUD_PROVIDER = 'gateway-risk';

/** Orders named by the caller: by order_no and/or transaction_id, at most 100 in all. */
export interface TransactionQuery {
  orderNos: string[];
  transactionIds: string[];
}

/** A query that names no order: the account's newest payments, optionally created within from..to. */
export interface RecentQuery {
  from?: number;
  to?: number;
}

interface OrderLine {
  amount: string;
  currency: string;
  order_no: string;
  payment_status: string;
  query_result: '0' | '1';
  reference_no: string;
  transaction_date: string;
  transaction_id: string;
  website: string;
  /** the status of the payment's latest dispute (docs/disputes.md), '' when it has none */
  dispute_status: string;
}

function line(p: Payment, timezone: string): OrderLine {
  return {
    amount: formatAmount(p.amount),
    currency: p.currency,
    order_no: p.order_no,
    payment_status: p.status,
    query_result: '1',
    reference_no: p.transaction_id,
    transaction_date: compactDate(p.created_at, timezone),
    transaction_id: p.transaction_id,
    website: p.website,
    dispute_status: p.disputes?.[p.disputes.length - 1]?.status ?? '',
  };
}

const unknown = (orderNo: string, transactionId: string): OrderLine => ({
  amount: '',
  currency: '',
  order_no: orderNo,
  payment_status: '',
  query_result: '0',
  reference_no: '',
  transaction_date: '',
  transaction_id: transactionId,
  website: '',
  dispute_status: '',
});

/**
 * The query for synchronising order status: the union of both lists, each order once, in request order
 * (order_no list first). Unknown orders, and orders of other accounts, come back with query_result 0.
 * fraud_check_result and is3ds describe the first order of the list.
 */
export async function queryTransactions(deps: CoreDeps, account: Account, q: TransactionQuery): Promise<Record<string, unknown>> {
  const m = account.merchant_id;
  const mine = (p: Payment | undefined) => (p && p.account_id === account.account_id ? p : undefined);
  const byOrder = await Promise.all(q.orderNos.map((o) => paymentOfOrder(deps, m, account.account_id, o)));
  const byId = await deps.store.getPayments(m, q.transactionIds);
  const seen = new Set<string>();
  const lines: OrderLine[] = [];
  const found: Payment[] = [];
  const add = (p: Payment | undefined, orderNo: string, transactionId: string) => {
    if (!p) {
      lines.push(unknown(orderNo, transactionId));
      return;
    }
    if (seen.has(p.transaction_id)) return;
    seen.add(p.transaction_id);
    lines.push(line(p, deps.timezone));
    found.push(p);
  };
  q.orderNos.forEach((o, i) => add(mine(byOrder[i]), o, ''));
  q.transactionIds.forEach((t, i) => add(mine(byId[i]), '', t));
  return queryAnswer(account, lines, lines[0]?.query_result === '1' ? found[0] : undefined, false);
}

/**
 * docs/api.md: a query that names no order (docs/api.md allows it) answers the account's newest
 * payments, newest first, at most 100, from the per-account index the store keeps as payments are created
 * (never a scan of keys); has_more is 1 when more matched.
 */
export async function queryRecentTransactions(deps: CoreDeps, account: Account, q: RecentQuery): Promise<Record<string, unknown>> {
  const m = account.merchant_id;
  const ids = await deps.store.recentPayments(m, account.account_id, q.from ?? -Infinity, q.to ?? Infinity, QUERY_LIMIT + 1);
  const payments = (await deps.store.getPayments(m, ids.slice(0, QUERY_LIMIT))).filter(
    (p): p is Payment => p !== undefined && p.account_id === account.account_id,
  );
  const lines = payments.map((p) => line(p, deps.timezone));
  return queryAnswer(account, lines, payments[0], ids.length > QUERY_LIMIT);
}

/** The answer around the order lines; fraud_check_result and is3ds describe `first`. */
function queryAnswer(account: Account, lines: OrderLine[], first: Payment | undefined, hasMore: boolean): Record<string, unknown> {
  const head = { merchant_id: account.merchant_id, account_id: account.account_id, return_status: '1', return_message: 'OK' };
  return {
    ...head,
    orders_list: lines,
    has_more: hasMore ? '1' : '0',
    antifraud_provider: ANTIFRAUD_PROVIDER,
    fraud_check_result: first ? first.risk.checks.map((c) => ({ check_items: c.name, status: c.status })) : [],
    is3ds: first && is3ds(first) ? '1' : '0',
    encryption_data: signFields(head, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key),
  };
}

/** True when 3-D Secure authenticated the payment (here or, through mpi_info, elsewhere). */
function is3ds(p: Payment): boolean {
  return /^authenticated/.test(p.threeds.result);
}

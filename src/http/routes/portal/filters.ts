import type { Request } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import type { PaymentFilter, SearchCursor } from '../../../core/portal/search.js';
import type { PaymentStatus } from '../../../core/records/payment.js';
import type { PortalSession } from '../../../core/portal/sessions.js';
import { dayBound, fieldErrors, paymentSearchQuery } from '../../schemas/portal.js';

export type ReadFilter =
  | { ok: true; filter: PaymentFilter; cursor: SearchCursor | undefined; values: Record<string, string> }
  | { ok: false; errors: Record<string, string>; values: Record<string, string> };

/** The query's filters, as given (to refill the form and build links); the page's language is no filter. */
function queryValues(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string' && k !== 'after' && k !== 'lang') out[k] = v;
  return out;
}

/** Reads the payments list's filters; an account outside the user's merchant is a field error, never a peek. */
export function readPaymentFilter(deps: CoreDeps, session: PortalSession, req: Request): ReadFilter {
  const values = queryValues(req);
  const parsed = paymentSearchQuery.safeParse(req.query);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error), values };
  const q = parsed.data;
  const own = deps.merchants.accountsOf(session.merchant_id).map((a) => a.account_id);
  if (q.account && !own.includes(q.account)) return { ok: false, errors: { account: 'is not one of your accounts' }, values };
  const filter: PaymentFilter = {
    accounts: q.account ? [q.account] : own,
    ...(q.transaction_id ? { transaction_id: q.transaction_id } : {}),
    ...(q.order_no ? { order_no: q.order_no } : {}),
    ...(q.status ? { statuses: [q.status as PaymentStatus] } : {}),
    ...(q.min_amount !== undefined ? { min_amount: q.min_amount } : {}),
    ...(q.max_amount !== undefined ? { max_amount: q.max_amount } : {}),
    ...(q.last4 ? { last4: q.last4 } : {}),
    ...(q.currency ? { currency: q.currency } : {}),
  };
  const from = dayBound(q.from, false, deps.timezone);
  const to = dayBound(q.to, true, deps.timezone);
  if (q.from && from === undefined) return { ok: false, errors: { from: 'is not a real date' }, values };
  if (q.to && to === undefined) return { ok: false, errors: { to: 'is not a real date' }, values };
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  return { ok: true, filter, cursor: q.after, values };
}

/** A search box's value from the query: trimmed text of at most 64 characters, else ''. */
export const queryText = (v: unknown): string => (typeof v === 'string' ? v.trim().slice(0, 64) : '');

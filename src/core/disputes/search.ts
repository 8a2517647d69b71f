import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { paymentOfOrder } from '../queries/order-lookup.js';
import type { DisputeRecord } from '../records/dispute-record.js';
import { disputeFields } from './answer.js';

export const DISPUTE_SEARCH_LIMIT = 100;

/** Search criteria of /v1/retrievalDispute: any of the lists, and/or an opening-date range (epoch ms, inclusive). */
export interface DisputeSearch {
  transactionIds: string[];
  orderNos: string[];
  disputeIds: string[];
  from?: number;
  to?: number;
}

/** The disputes the lists name: every dispute of a named payment, and each named dispute. */
async function named(deps: CoreDeps, account: Account, s: DisputeSearch): Promise<DisputeRecord[]> {
  const m = account.merchant_id;
  const byOrder = await Promise.all(s.orderNos.map((o) => paymentOfOrder(deps, m, account.account_id, o)));
  const byId = await deps.store.getPayments(m, s.transactionIds);
  const ids = new Set(s.disputeIds);
  for (const p of [...byOrder, ...byId]) {
    if (p && p.account_id === account.account_id) for (const d of p.disputes ?? []) ids.add(d.dispute_id);
  }
  return (await deps.store.getDisputes(m, [...ids])).filter(
    (d): d is DisputeRecord => d !== undefined && d.account_id === account.account_id,
  );
}

/**
 * /v1/retrievalDispute (docs/disputes.md): the account's disputes named by the lists and/or opened within the dates,
 * newest first, at most 100, `has_more` `1` when more matched; no criterion: the newest disputes. Answered in
 * JSON like the refund search, signed over merchant_id, account_id, return_status.
 */
export async function searchDisputes(deps: CoreDeps, account: Account, s: DisputeSearch): Promise<Record<string, unknown>> {
  const from = s.from ?? -Infinity;
  const to = s.to ?? Infinity;
  const anyNamed = s.transactionIds.length + s.orderNos.length + s.disputeIds.length > 0;
  let hits: DisputeRecord[];
  if (anyNamed) {
    hits = (await named(deps, account, s)).filter((d) => d.opened_at >= from && d.opened_at <= to);
  } else {
    const ids = await deps.store.disputesByTime(account.merchant_id, account.account_id, from, to, DISPUTE_SEARCH_LIMIT + 1);
    hits = (await deps.store.getDisputes(account.merchant_id, ids)).filter((d): d is DisputeRecord => d !== undefined);
  }
  hits.sort((a, b) => b.opened_at - a.opened_at || (a.dispute_id < b.dispute_id ? 1 : -1));
  const head = { merchant_id: account.merchant_id, account_id: account.account_id, return_status: '1', return_message: 'OK' };
  return {
    ...head,
    encryption_data: signFields(head, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key),
    has_more: hits.length > DISPUTE_SEARCH_LIMIT ? '1' : '0',
    dispute_orders: hits.slice(0, DISPUTE_SEARCH_LIMIT).map((d) => disputeFields(d, deps.timezone)),
  };
}

/** The JSON answer of /v1/disputeEvidence and /v1/disputeAccept: return_status, a message, the dispute's fields. */
export function disputeCallAnswer(
  deps: Pick<CoreDeps, 'timezone'>,
  account: Account,
  dispute_id: string,
  answer: { ok: boolean; message?: string; dispute?: DisputeRecord },
): Record<string, unknown> {
  const head = {
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    return_status: answer.ok ? '1' : '0',
    return_message: answer.ok ? 'OK' : (answer.message ?? ''),
  };
  return {
    ...head,
    dispute_id,
    ...(answer.dispute ? disputeFields(answer.dispute, deps.timezone) : {}),
    encryption_data: signFields(head, RESPONSE_SIGNATURE_FIELDS.batch, account.sign_key),
  };
}

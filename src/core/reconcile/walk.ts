import type { CoreDeps } from '../ports/deps.js';
import type { Payment } from '../records/payment.js';
import type { PassPhase, ReconcilePass } from '../records/reconcile-records.js';

/**
 * One entry of an index a pass walks (newest first): its score (the time it indexes) and member, for the
 * cursor, and the payment it names.
 */
export interface IndexEntry {
  at: number;
  member: string;
  transactionId: string;
  /** refunds phase: the refund the entry indexes */
  refundReferenceId?: string;
}

/** An entry comes after the cursor in the index's order: an earlier time, or the same time and a lower member. */
const after = (e: IndexEntry, cursor: ReconcilePass['cursor']): boolean =>
  !cursor || e.at < cursor.at || (e.at === cursor.at && e.member < cursor.member);

/** A page larger than this at one instant is not read further (entries at one millisecond beyond it are skipped). */
const MAX_PAGE = 5_000;

/**
 * The next entries of the phase's index after the cursor, at most `want`, newest first, within the pass's
 * window: the account's payments by creation, refunds by date, disputes by opening. The stores' sorted sets
 * have no offset, so a page is read from the cursor's time and the entries up to the cursor are dropped.
 */
export async function entriesAfter(deps: CoreDeps, pass: ReconcilePass, want: number): Promise<IndexEntry[]> {
  const to = pass.cursor?.at ?? pass.started_at;
  for (let limit = want + 50; ; limit *= 4) {
    const page = await readIndex(deps, pass, pass.phase, pass.window_from, to, Math.min(limit, MAX_PAGE));
    const next = page.filter((e) => after(e, pass.cursor)).slice(0, want);
    if (next.length > 0 || page.length < limit || limit >= MAX_PAGE) return next;
  }
}

async function readIndex(
  deps: CoreDeps,
  pass: ReconcilePass,
  phase: PassPhase,
  from: number,
  to: number,
  limit: number,
): Promise<IndexEntry[]> {
  const { merchant_id: m, account_id: account } = pass;
  if (phase === 'payments')
    return (await deps.store.paymentsByTime(m, account, from, to, limit)).map((e) => ({
      at: e.at,
      member: e.transactionId,
      transactionId: e.transactionId,
    }));
  if (phase === 'refunds')
    return (await deps.store.refundsByDate(m, account, from, to, limit)).map((e) => ({
      at: e.at,
      member: `${e.refundReferenceId}\u0000${e.transactionId}`,
      transactionId: e.transactionId,
      refundReferenceId: e.refundReferenceId,
    }));
  if (phase === 'disputes') {
    const ids = await deps.store.disputesByTime(m, account, from, to, limit);
    const found = await deps.store.getDisputes(m, ids);
    return found.flatMap((d) => (d ? [{ at: d.opened_at, member: d.dispute_id, transactionId: d.transaction_id }] : []));
  }
  return [];
}

/**
 * Whether a payment found at an entry is compared there: each payment once a pass, where the pass meets it
 * first (the walk goes payments, refunds, disputes, each newest first). A payment made in the window was
 * compared in the payments phase; one with refunds in the window at its newest refund; the disputes phase takes
 * the rest (a payment with several disputes opened in the window may be compared once for each).
 */
export function comparedHere(pass: ReconcilePass, e: IndexEntry, p: Payment): boolean {
  if (pass.phase === 'payments') return true;
  if (p.created_at >= pass.window_from && p.created_at <= pass.started_at) return false;
  const inWindow = p.refunds.filter((r) => r.refund_date >= pass.window_from && r.refund_date <= pass.started_at);
  if (pass.phase === 'refunds') {
    const newest = inWindow.reduce<(typeof inWindow)[number] | undefined>(
      (n, r) => (!n || r.refund_date >= n.refund_date ? r : n),
      undefined,
    );
    return newest?.refund_reference_id === e.refundReferenceId;
  }
  return inWindow.length === 0;
}

export const nextPhase = (phase: PassPhase): PassPhase => (phase === 'payments' ? 'refunds' : phase === 'refunds' ? 'disputes' : 'done');

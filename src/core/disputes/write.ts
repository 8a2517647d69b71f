import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { ChangeSet } from '../ports/store.js';
import type { Payment } from '../records/payment.js';
import { outboxRecord } from '../notifications/outbox.js';
import { readBalance } from '../payouts/balance.js';
import type { DisputeRecord } from '../records/dispute-record.js';
import { disputeFields } from './answer.js';

/** One change of a dispute: the record as read (undefined to open it) and the states it goes through. */
export interface DisputeChange {
  before: DisputeRecord | undefined;
  /** each a status change (notified), the last the record stored; only the last when no status moved (a draft) */
  steps: readonly DisputeRecord[];
  /** the due-queue members the same commit adds or removes */
  due?: ChangeSet['due'];
}

export type DisputeCommit = 'applied' | 'conflict' | 'busy';

/** The amount a dispute holds back from the deposit balance in this status: all of it unless won. */
const heldBack = (d: Pick<DisputeRecord, 'status' | 'amount'>): number => (d.status === 'won' ? 0 : d.amount);

/**
 * What a change debits from the deposit balance (negative: credits). Opening debits the amount held back and
 * the fee (once, ever); after that only the amount moves, by the difference between what the dispute holds
 * back before and after: won credits it back, a win reversed (lost again) debits it again, and so on, each
 * decision once however many steps the change has.
 */
export function balanceDebit(before: DisputeRecord | undefined, after: DisputeRecord): number {
  return before === undefined ? heldBack(after) + after.fee : heldBack(after) - heldBack(before);
}

/**
 * Writes a dispute change in one all-or-nothing commit with everything it moves (docs/disputes.md): the record, its
 * payment's summary (what refunds and the query read), the deposit balance (debited with the amount and the
 * fee when the dispute opens, the amount credited when it is won and debited again when a win is reversed:
 * balanceDebit), a `dispute` notification per status change and the
 * due steps. Every record is written at the version read, so of two processes acting on one dispute one
 * commits and the other sees `conflict` and reads again. A payment held by another flow's claim is `busy`:
 * that flow will write the payment at the version it claimed, so the dispute waits for it.
 */
export async function commitDisputeChange(
  deps: CoreDeps,
  account: Account,
  payment: Payment,
  change: DisputeChange,
  now: number,
): Promise<DisputeCommit> {
  if (payment.claim) return 'busy';
  const last = change.steps[change.steps.length - 1]!;
  const summary = { dispute_id: last.dispute_id, status: last.status, amount: last.amount };
  const known = payment.disputes ?? [];
  const disputes = known.some((s) => s.dispute_id === last.dispute_id)
    ? known.map((s) => (s.dispute_id === last.dispute_id ? summary : s))
    : [...known, summary];
  const moved = change.steps.filter((s, i) => (i === 0 ? s.status !== change.before?.status : true));
  const set: ChangeSet = {
    merchantId: account.merchant_id,
    disputes: [{ next: last, expected: change.before?.version ?? 0 }],
    payments: [{ next: { ...payment, disputes }, expected: payment.version }],
    ...(change.due?.length ? { due: change.due } : {}),
  };
  const debit = balanceDebit(change.before, last);
  if (debit !== 0) {
    const balance = await readBalance(deps, account, last.currency, now);
    set.balances = [{ next: { ...balance, available: balance.available - debit, updated_at: now }, expected: balance.version }];
  }
  if (payment.notify_url && moved.length > 0)
    set.outbox = moved.map((s) => ({
      next: outboxRecord(deps, account, 'dispute', payment.notify_url, disputeFields(s, deps.timezone)),
      expected: 0,
    }));
  if (!(await deps.store.commit(set))) return 'conflict';
  for (const s of moved) deps.metrics.disputeMoved(s.reason, s.status);
  deps.log.info(
    { merchant_id: account.merchant_id, dispute_id: last.dispute_id, transaction_id: last.transaction_id, status: last.status },
    'dispute recorded',
  );
  return 'applied';
}

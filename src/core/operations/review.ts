import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { RESULT } from '../kernel/result-codes.js';
import type { ChangeSet } from '../ports/store.js';
import { acquirerAmount } from '../kernel/money.js';
import { acquirerReference } from '../payments/claim.js';
import { contractOnApproval } from '../records/contract.js';
import type { OrderRef, PaymentOperation, Planned } from './operation.js';
import { dropOwnCard } from './cancel.js';
import { closedStatusFailure } from './status-failures.js';
import { disputeWatchOnCapture } from '../disputes/watch.js';

export interface ReviewOrder extends OrderRef {
  /** `1` approves the held payment, `0` rejects it */
  review_flag: '0' | '1';
}

type ReviewPlan = { approve: true; capture: boolean } | { approve: false };

/**
 * Review decides a payment held by risk (2000): approval makes it an authorisation (or a capture with
 * capture_mode auto, and its subscription's contract); rejection voids it (4200).
 */
export const reviewOperation: PaymentOperation<ReviewOrder, ReviewPlan> = {
  notifyType: 'review',
  claimOp: 'review',
  amountMustMatch: true,
  plan(p: Payment, order: ReviewOrder, account, now): Planned<ReviewPlan> {
    if (p.status !== S.HELD) return { ok: false, failure: closedStatusFailure(p.status) ?? 'NOT_HELD' };
    // a held authorisation lapses like any other: approving it after its window would trust a dead authorisation
    if (order.review_flag === '1' && p.auth_expires_at !== undefined && p.auth_expires_at <= now) return { ok: false, failure: 'EXPIRED' };
    return { ok: true, plan: order.review_flag === '1' ? { approve: true, capture: account.capture_mode === 'auto' } : { approve: false } };
  },
  intent(p, plan) {
    if (!plan.approve) return { reference: acquirerReference.void(p.transaction_id) };
    if (plan.capture) return { reference: acquirerReference.capture(p.transaction_id), amount: p.amount };
    return { reference: `${p.transaction_id}-review` };
  },
  execute(connector, p, plan, reference) {
    if (!p.connector_ref) return undefined;
    if (!plan.approve) return connector.void(p.connector_ref, reference);
    return plan.capture ? connector.capture(p.connector_ref, acquirerAmount(p.amount, p.currency), p.currency, reference) : undefined;
  },
  apply({ deps, account, now }, p, plan) {
    const change: Omit<ChangeSet, 'merchantId'> = {};
    if (!plan.approve) {
      const move = moveTo(p, S.REJECTED, now, { result_code: RESULT.REVIEW_REJECTED[0] });
      if (!move.ok) throw new Error('review planned on a payment not held');
      const { next, dropCards } = dropOwnCard(move.payment);
      if (dropCards) change.dropCards = dropCards;
      return { next, change };
    }
    const changes: Partial<Payment> = { result_code: RESULT.SUCCESS[0] };
    if (plan.capture) changes.captured = p.amount;
    // the window runs from the authorisation, not from the review (the acquirer's clock started then)
    else changes.auth_expires_at = p.auth_expires_at ?? now + account.auth_window_days * 86_400_000;
    const move = moveTo(p, plan.capture ? S.CAPTURED : S.AUTHORISED, now, changes);
    if (!move.ok) throw new Error('review planned on a payment not held');
    let next = move.payment;
    if (!plan.capture) change.due = [{ queue: 'auth_expiry', member: next.transaction_id, at: next.auth_expires_at! }];
    else change.due = disputeWatchOnCapture(deps, account, next, now);
    const made = contractOnApproval(next, deps.ids.recurringId, now);
    if (made) {
      next = made.payment;
      change.contracts = [{ next: made.contract, expected: 0 }];
      change.due = [...(change.due ?? []), ...made.due];
    }
    return { next, change };
  },
};

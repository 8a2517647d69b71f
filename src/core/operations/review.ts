import { PaymentStatus as S, type Payment } from '../payments/payment.js';
import { moveTo } from '../payments/transitions.js';
import { RESULT } from '../kernel/result-codes.js';
import type { ChangeSet } from '../ports/store.js';
import { contractOnApproval } from '../subscriptions/contract.js';
import type { OrderRef, PaymentOperation, Planned } from './apply.js';
import { dropOwnCard } from './cancel.js';
import { closedStatusFailure } from './status-failures.js';

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
  amountMustMatch: true,
  plan(p: Payment, order: ReviewOrder, account): Planned<ReviewPlan> {
    if (p.status !== S.HELD) return { ok: false, failure: closedStatusFailure(p.status) ?? 'NOT_HELD' };
    return { ok: true, plan: order.review_flag === '1' ? { approve: true, capture: account.capture_mode === 'auto' } : { approve: false } };
  },
  execute(connector, p, plan) {
    if (!p.connector_ref) return undefined;
    if (!plan.approve) return connector.void(p.connector_ref);
    return plan.capture ? connector.capture(p.connector_ref, p.amount, p.currency) : undefined;
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
    else changes.auth_expires_at = now + account.auth_window_days * 86_400_000;
    const move = moveTo(p, plan.capture ? S.CAPTURED : S.AUTHORISED, now, changes);
    if (!move.ok) throw new Error('review planned on a payment not held');
    let next = move.payment;
    if (!plan.capture) change.due = [{ queue: 'auth_expiry', member: next.transaction_id, at: next.auth_expires_at! }];
    const made = contractOnApproval(next, deps.ids.recurringId, now);
    if (made) {
      next = made.payment;
      change.contracts = [{ next: made.contract, expected: 0 }];
      change.due = [...(change.due ?? []), ...made.due];
    }
    return { next, change };
  },
};

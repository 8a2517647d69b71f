import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { acquirerAmount, formatAmount } from '../kernel/money.js';
import { acquirerReference } from '../payments/claim.js';
import { RESULT } from '../kernel/result-codes.js';
import type { OrderRef, PaymentOperation, Planned } from './operation.js';
import { closedStatusFailure } from './status-failures.js';
import { disputeWatchOnCapture } from '../disputes/watch.js';

/** Capture once, any amount up to the authorised one; the rest of the authorisation is released. */
export const captureOperation: PaymentOperation<OrderRef, { amount: number }> = {
  notifyType: 'capture',
  claimOp: 'capture',
  amountMustMatch: false,
  plan(p: Payment, order: OrderRef, _account, now): Planned<{ amount: number }> {
    if (p.status !== S.AUTHORISED) {
      const closed = closedStatusFailure(p.status);
      if (closed) return { ok: false, failure: closed };
      if (p.status === S.HELD) return { ok: false, failure: 'HELD_FOR_REVIEW' };
      if (p.status === S.PENDING) return { ok: false, failure: 'IN_PROCESS' };
      return { ok: false, failure: 'ALREADY_CAPTURED' };
    }
    // the window has run out and the sweep has not reached it yet: the authorisation has lapsed all the same
    if (p.auth_expires_at !== undefined && p.auth_expires_at <= now) return { ok: false, failure: 'EXPIRED' };
    if (order.amount <= 0) return { ok: false, failure: 'ZERO_AMOUNT' };
    if (order.amount > p.amount) return { ok: false, failure: 'CAPTURE_EXCEEDS_AUTHORISED' };
    return { ok: true, plan: { amount: order.amount } };
  },
  intent: (p, plan) => ({ reference: acquirerReference.capture(p.transaction_id), amount: plan.amount }),
  execute: (connector, p, plan, reference) =>
    connector.capture(p.connector_ref ?? '', acquirerAmount(plan.amount, p.currency), p.currency, reference),
  executeInCommit: (connector, p, plan, reference) =>
    connector.captureInCommit?.(p.connector_ref ?? '', acquirerAmount(plan.amount, p.currency), p.currency, reference),
  apply({ deps, account, now }, p, plan) {
    const move = moveTo(p, S.CAPTURED, now, { captured: plan.amount, result_code: RESULT.SUCCESS[0] });
    if (!move.ok) throw new Error('capture planned on a payment that cannot be captured');
    return {
      next: move.payment,
      change: {
        due: [{ queue: 'auth_expiry', member: p.transaction_id, at: null }, ...disputeWatchOnCapture(deps, account, move.payment, now)],
      },
      notification: { capture_amount: formatAmount(plan.amount) },
    };
  },
};

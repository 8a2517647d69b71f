import { PaymentStatus as S, type Payment, type RefundRecord } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { acquirerAmount, formatAmount } from '../kernel/money.js';
import { acquirerReference } from '../payments/claim.js';
import type { Account } from '../records/directory.js';
import type { OrderRef, PaymentOperation, Planned } from './operation.js';
import { outcomeText } from './failures.js';
import { closedStatusFailure } from './status-failures.js';
import { isOpenDispute } from '../records/dispute-record.js';

export interface RefundOrder extends OrderRef {
  refund_amount: number;
  refund_reason: string;
  /** the call carries an Idempotency-Key: the key's rules apply instead of the duplicate window (docs/api.md#errors-and-idempotency) */
  underIdempotencyKey?: boolean;
}

interface RefundPlan {
  amount: number;
  reason: string;
  refundReferenceId: string;
}

const MAX_REFUNDS = 99;

/** The number of a refund_reference_id `<transaction_id>-NN`. */
const refundNumber = (refundReferenceId: string): number => Number(refundReferenceId.slice(refundReferenceId.lastIndexOf('-') + 1));

/** The next refund's number: after every refund applied and every number sent to the acquirer. */
function nextRefundNumber(p: Payment): number {
  const applied = p.refunds.reduce((n, r) => Math.max(n, refundNumber(r.refund_reference_id)), 0);
  return Math.max(applied, p.refunds_sent ?? 0) + 1;
}

/** `<transaction_id>-NN`, NN counting from 01 per transaction. */
export function refundReferenceId(transactionId: string, n: number): string {
  return `${transactionId}-${String(n).padStart(2, '0')}`;
}

/**
 * The applied refund an order repeats (same transaction and amount, which the order matched, same refund
 * amount and reason) within the account's `refund_duplicate_seconds` (0: never). Only applied refunds are
 * records of the payment, so a refused refund may always be sent again.
 */
export function repeatedRefund(p: Payment, order: RefundOrder, account: Account, now: number): RefundRecord | undefined {
  const windowMs = account.refund_duplicate_seconds * 1000;
  if (windowMs <= 0 || order.underIdempotencyKey) return undefined;
  for (let i = p.refunds.length - 1; i >= 0; i--) {
    const r = p.refunds[i]!;
    if (now - r.refund_date >= windowMs) continue;
    if (r.refund_status === '1' && r.refund_amount === order.refund_amount && r.refund_reason === order.refund_reason) return r;
  }
  return undefined;
}

/**
 * What the payment's lost disputes took back (docs/disputes.md, "Refunds and disputes"): the amount of each of
 * its disputes now lost (a reversed one, won, takes nothing), with the latest of them. A summary written before
 * summaries kept the amount counts the whole captured amount, the most a dispute takes.
 */
export function takenByDisputes(p: Payment): { amount: number; disputeId?: string } {
  let amount = 0;
  let disputeId: string | undefined;
  for (const d of p.disputes ?? [])
    if (d.status === 'lost') {
      amount += d.amount ?? p.captured;
      disputeId = d.dispute_id;
    }
  return { amount, ...(disputeId ? { disputeId } : {}) };
}

/** The amount left to refund: captured, less refunded, less what lost disputes took back (never below 0). */
export const refundableAmount = (p: Payment): number => Math.max(0, p.captured - p.refunded - takenByDisputes(p).amount);

/**
 * Refunds of a captured payment: several, partial, their sum at most the captured amount less what lost
 * disputes took back.
 */
export const refundOperation: PaymentOperation<RefundOrder, RefundPlan> = {
  notifyType: 'refund',
  claimOp: 'refund',
  amountMustMatch: true,
  plan(p: Payment, order: RefundOrder, account: Account, now: number): Planned<RefundPlan> {
    // first: a repeat answers which refund it repeats, even when that refund left nothing to refund
    const repeated = repeatedRefund(p, order, account, now);
    if (repeated) return { ok: false, failure: 'DUPLICATE_REFUND', detail: repeated.refund_reference_id };
    // docs/disputes.md: no refund while a dispute is open (the card holder's bank is taking the money back already)
    const disputed = p.disputes?.find((d) => isOpenDispute(d.status));
    if (disputed) return { ok: false, failure: 'DISPUTED', detail: disputed.dispute_id };
    if (p.status === S.REFUNDED) return { ok: false, failure: 'FULLY_REFUNDED' };
    if (p.status !== S.CAPTURED && p.status !== S.PARTLY_REFUNDED) {
      return { ok: false, failure: closedStatusFailure(p.status) ?? 'NOT_CAPTURED' };
    }
    if (order.refund_amount <= 0) return { ok: false, failure: 'ZERO_AMOUNT' };
    if (order.refund_amount > p.captured - p.refunded) return { ok: false, failure: 'REFUND_EXCEEDS_CAPTURED' };
    // what a lost dispute took back was paid back to the card holder already: it cannot be refunded too
    const taken = takenByDisputes(p);
    if (order.refund_amount > p.captured - p.refunded - taken.amount)
      return { ok: false, failure: 'LOST_TO_DISPUTE', detail: taken.disputeId };
    const number = nextRefundNumber(p);
    if (number > MAX_REFUNDS) return { ok: false, failure: 'TOO_MANY_REFUNDS' };
    return {
      ok: true,
      plan: {
        amount: order.refund_amount,
        reason: order.refund_reason,
        refundReferenceId: refundReferenceId(p.transaction_id, number),
      },
    };
  },
  // the number was sent to the acquirer: the next refund takes the one after it
  released: (p, plan) => ({ ...p, refunds_sent: Math.max(p.refunds_sent ?? 0, refundNumber(plan.refundReferenceId)) }),
  intent: (_p, plan) => ({ reference: acquirerReference.refund(plan.refundReferenceId), amount: plan.amount }),
  execute: (connector, p, plan, reference) =>
    connector.refund(p.connector_ref ?? '', acquirerAmount(plan.amount, p.currency), p.currency, reference),
  apply({ account, now }, p, plan, connectorRef) {
    const refunded = p.refunded + plan.amount;
    const record: RefundRecord = {
      refund_reference_id: plan.refundReferenceId,
      refund_amount: plan.amount,
      refund_reason: plan.reason,
      refund_status: '1',
      refund_message: outcomeText('SUCCESS'),
      refund_reference: connectorRef ?? '',
      refund_date: now,
      refund_processing_date: now,
    };
    const move = moveTo(p, refunded === p.captured ? S.REFUNDED : S.PARTLY_REFUNDED, now, { refunded, refunds: [...p.refunds, record] });
    if (!move.ok) throw new Error('refund planned on a payment that cannot be refunded');
    return {
      next: move.payment,
      change: {
        refunds: [{ accountId: account.account_id, refundReferenceId: plan.refundReferenceId, transactionId: p.transaction_id, at: now }],
      },
      notification: {
        refund_reference_id: plan.refundReferenceId,
        refund_amount: formatAmount(plan.amount),
        refund_status: '1',
        refund_message: record.refund_message,
      },
    };
  },
};

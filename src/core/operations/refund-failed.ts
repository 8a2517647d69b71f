import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { PaymentStatus as S, type RefundRecord } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { formatAmount } from '../kernel/money.js';
import { outboxRecord, paymentNotificationFields } from '../notifications/outbox.js';
import { recordLaterFailure } from './later-failure.js';

/** What recording a later refund failure did. */
export type RefundFailedResult = 'recorded' | 'unchanged' | 'not-recorded' | 'busy';

/**
 * A refund the acquirer accepted and failed later (Stripe's refund.failed, Adyen's REFUND_FAILED or a REFUND
 * notification with success false): the refund record says so (refund_status 0 and why), the amount is no
 * longer refunded (the payment back to partly refunded, or captured when nothing else is refunded, so the
 * merchant may refund again), and the merchant is notified as for a refund, with refund_status 0. A refund
 * the gateway has not recorded as accepted is left to its own claim (the acquirer's answer decides it there);
 * one already recorded as failed changes nothing, so a webhook delivered twice acts once. An operation in
 * flight on the payment is waited for; a payment that stays busy answers 'busy' (the acquirer sends again).
 */
export async function recordRefundFailedLater(
  deps: CoreDeps,
  account: Account,
  transactionId: string,
  refundReferenceId: string,
  reason: string,
): Promise<RefundFailedResult> {
  return recordLaterFailure<'unchanged' | 'not-recorded'>(deps, account, transactionId, (p, now) => {
    if (!p) return 'not-recorded';
    const i = p.refunds.findIndex((r) => r.refund_reference_id === refundReferenceId);
    if (i < 0) return 'not-recorded';
    const accepted = p.refunds[i]!;
    if (accepted.refund_status === '0') return 'unchanged';
    if (p.claim) return 'wait';
    const failed: RefundRecord = {
      ...accepted,
      refund_status: '0',
      refund_message: `Refund failed at the acquirer after it was accepted${reason ? ` (${reason.slice(0, 200)})` : ''}`,
      refund_processing_date: now,
    };
    const refunded = p.refunded - accepted.refund_amount;
    const refunds = p.refunds.map((r, k) => (k === i ? failed : r));
    const move = moveTo(p, refunded === 0 ? S.CAPTURED : S.PARTLY_REFUNDED, now, { refunded, refunds });
    if (!move.ok) return 'unchanged';
    const next = move.payment;
    const fields = {
      ...paymentNotificationFields(next, deps.timezone),
      refund_reference_id: refundReferenceId,
      refund_amount: formatAmount(accepted.refund_amount),
      refund_status: '0',
      refund_message: failed.refund_message,
    };
    return { next, outbox: next.notify_url ? [outboxRecord(deps, account, 'refund', next.notify_url, fields)] : [] };
  });
}

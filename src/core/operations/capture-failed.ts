import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import { PaymentStatus as S } from '../records/payment.js';
import { moveTo } from '../payments/transitions.js';
import { acquirerReference } from '../payments/claim.js';
import { formatAmount } from '../kernel/money.js';
import { RESULT } from '../kernel/result-codes.js';
import { outboxRecord, paymentNotificationFields } from '../notifications/outbox.js';
import { recordLaterFailure } from './later-failure.js';

/**
 * What recording a later capture failure did. `operator`: the payment has moved on from the capture (refunded
 * in part or whole, or disputed): the failure is the operator's to settle with the acquirer, and is logged.
 */
export type CaptureFailedResult = 'recorded' | 'unchanged' | 'not-recorded' | 'operator' | 'busy';

/**
 * A capture the acquirer accepted and failed later (Adyen's CAPTURE_FAILED: the scheme refused it, often
 * because the authorisation had lapsed): no money moved. The payment, recorded captured, becomes expired
 * (4400) with result 3011 and nothing captured, and the merchant gets a `capture` notification saying so; it
 * cannot be captured again under its one capture reference, so the merchant takes a new payment. A capture the
 * gateway has not recorded yet is left to its own claim (the acquirer's answer decides it there); one already
 * recorded as failed changes nothing, so a webhook delivered twice acts once. An operation in flight on the
 * payment is waited for; a payment that stays busy answers 'busy' (the acquirer sends again).
 */
export async function recordCaptureFailedLater(
  deps: CoreDeps,
  account: Account,
  transactionId: string,
  reason: string,
): Promise<CaptureFailedResult> {
  const result = await recordLaterFailure<'unchanged' | 'not-recorded' | 'operator'>(deps, account, transactionId, (p, now) => {
    if (!p) return 'not-recorded';
    if (p.result_code === RESULT.CAPTURE_FAILED[0]) return 'unchanged';
    if (p.claim) return 'wait';
    if (p.status === S.PARTLY_REFUNDED || p.status === S.REFUNDED || (p.disputes ?? []).length > 0) return 'operator';
    if (p.status !== S.CAPTURED) return 'not-recorded';
    const move = moveTo(p, S.EXPIRED, now, { captured: 0, result_code: RESULT.CAPTURE_FAILED[0] });
    if (!move.ok) return 'unchanged';
    const next = move.payment;
    const fields = { ...paymentNotificationFields(next, deps.timezone), capture_amount: formatAmount(p.captured) };
    return { next, outbox: next.notify_url ? [outboxRecord(deps, account, 'capture', next.notify_url, fields)] : [] };
  });
  if (result === 'recorded')
    deps.log.warn(
      { merchant_id: account.merchant_id, transaction_id: transactionId, reference: acquirerReference.capture(transactionId), reason },
      'capture failed at the acquirer after it was accepted: the payment is expired, nothing captured',
    );
  return result;
}

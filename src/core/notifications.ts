import type { Account } from './merchants.js';
import type { CoreDeps } from './context.js';
import type { NotifyType, OutboxRecord } from './records.js';
import type { Payment } from './payment.js';
import { orderStatusOf } from './payment.js';
import { formatAmount } from './money.js';
import { resultInfoOf } from './result-codes.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from './signing.js';
import { compactDate } from './dates.js';

/**
 * Builds the notification for an outcome, to be written in the same atomic step as the outcome itself
 * (the outbox); a delivery worker sends it. Card fields are never part of it beyond the masked number.
 */
export function outboxRecord(
  deps: Pick<CoreDeps, 'ids' | 'clock'>,
  account: Account,
  notifyType: NotifyType,
  notifyUrl: string,
  fields: Record<string, string>,
  /** the signed fields; payouts sign request_id where payments sign order_no */
  signatureFields: readonly string[] = RESPONSE_SIGNATURE_FIELDS.notification,
): OutboxRecord {
  const now = deps.clock.now();
  const notifyId = deps.ids.notifyId();
  const body: Record<string, string> = {
    notify_type: notifyType,
    notify_id: notifyId,
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    ...fields,
  };
  body.encryption_data = signFields(body, signatureFields, account.sign_key);
  return {
    version: 0,
    notify_id: notifyId,
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    notify_type: notifyType,
    notify_url: notifyUrl,
    fields: body,
    status: 'pending',
    attempts: 0,
    created_at: now,
    next_attempt_at: now,
  };
}

/** The fields that describe a payment in a notification. */
export function paymentNotificationFields(p: Payment, timezone: string): Record<string, string> {
  return {
    order_no: p.order_no,
    transaction_id: p.transaction_id,
    amount: formatAmount(p.amount),
    currency: p.currency,
    order_status: orderStatusOf(p.status),
    payment_status: p.status,
    result_info: resultInfoOf(p.result_code),
    card: p.card?.masked ?? '',
    threeds_result: p.threeds.result,
    risk_action: p.risk.action,
    captured_amount: formatAmount(p.captured),
    refunded_amount: formatAmount(p.refunded),
    recurring_id: p.recurring_id ?? '',
    note: p.note,
    transaction_date: compactDate(p.updated_at, timezone),
  };
}

/** The outbox record of a payment outcome, or nothing when the payment has no notify_url. */
export function paymentNotification(
  deps: Pick<CoreDeps, 'ids' | 'clock' | 'timezone'>,
  account: Account,
  type: NotifyType,
  p: Payment,
): OutboxRecord[] {
  if (!p.notify_url) return [];
  return [outboxRecord(deps, account, type, p.notify_url, paymentNotificationFields(p, deps.timezone))];
}

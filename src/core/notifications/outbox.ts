import type { Account } from '../records/directory.js';
import type { CoreDeps } from '../ports/deps.js';
import type { Contract } from '../records/contract-record.js';
import type { Payment } from '../records/payment.js';
import { orderStatusOf } from '../records/payment.js';
import { formatAmount } from '../kernel/money.js';
import { resultInfoOf } from '../kernel/result-codes.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { compactDate, spacedDate } from '../kernel/dates.js';
import type { NotifyType, OutboxRecord } from '../records/outbox-record.js';

export type { NotifyType, OutboxRecord };

/**
 * encryption_data of a notification (docs/api.md#signatures): merchant_id, account_id, notify_type, notify_id and
 * the order_no, or where there is no order a payout's request_id, a subscription's recurring_id or a test clock's
 * test_clock_id.
 */
export function signNotification(fields: Readonly<Record<string, string>>, signKey: string): string {
  const identifier = fields.order_no ?? fields.request_id ?? fields.recurring_id ?? fields.test_clock_id ?? '';
  return signFields({ ...fields, order_no: identifier }, RESPONSE_SIGNATURE_FIELDS.notification, signKey);
}

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
  body.encryption_data = signNotification(body, account.sign_key);
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

/** The fields that describe a payment in a notification: no card field, not even the masked number (docs/security.md#card-data). */
export function paymentNotificationFields(p: Payment, timezone: string): Record<string, string> {
  return {
    order_no: p.order_no,
    transaction_id: p.transaction_id,
    amount: formatAmount(p.amount),
    currency: p.currency,
    order_status: orderStatusOf(p.status),
    payment_status: p.status,
    result_info: resultInfoOf(p.result_code),
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

/** The fields that describe a subscription (contract) in its notifications. */
export function contractNotificationFields(c: Contract, timezone: string): Record<string, string> {
  return {
    recurring_id: c.recurring_id,
    contract_name: c.contract_name,
    contract_status: c.status,
    charges_made: String(c.charges_made),
    billing_cycle: String(c.billing_cycle),
    next_charge_time: c.next_charge_at === null ? '' : spacedDate(c.next_charge_at, timezone),
  };
}

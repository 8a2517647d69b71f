import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { OutboxRecord } from '../notifications/outbox.js';
import { formatAmount, type Minor } from '../kernel/money.js';
import { isoWithOffset } from '../kernel/dates.js';
import { outboxRecord } from '../notifications/outbox.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import type { Payout, PayoutEcho } from '../records/payout.js';

/** The payout answer: the request echoed as docs/payouts.md shows it, then the gateway's fields. */
export type PayoutAnswer = PayoutEcho & {
  amount_beneficiary_receives: number;
  amount_payer_pays: number;
  fee_amount: number;
  fee_currency: string;
  created_at: string;
  last_updated_at: string;
  failure_reason: string;
  failure_type: string;
  payer_id: string;
  transaction_id: string;
  short_reference_id: string;
  status: string;
  encryption_data: string;
};

/**
 * docs/payouts.md writes these three amounts as JSON numbers. Money stays in integer hundredths up to here; only
 * this edge turns the exact two-decimal text into a number (e.g. 1234.5 for "1234.50").
 */
export function jsonAmount(minor: Minor): number {
  return Number(formatAmount(minor));
}

export function payoutAnswer(account: Account, p: Payout, timezone: string): PayoutAnswer {
  const answer: Omit<PayoutAnswer, 'encryption_data'> = {
    ...p.request,
    amount_beneficiary_receives: jsonAmount(p.amount_beneficiary_receives),
    amount_payer_pays: jsonAmount(p.amount_payer_pays),
    fee_amount: jsonAmount(p.fee_amount),
    fee_currency: p.fee_currency,
    created_at: isoWithOffset(p.created_at, timezone),
    last_updated_at: isoWithOffset(p.updated_at, timezone),
    failure_reason: p.failure_reason,
    failure_type: p.failure_type,
    payer_id: p.payer_id,
    transaction_id: p.transaction_id,
    short_reference_id: p.short_reference_id,
    status: p.status,
  };
  return { ...answer, encryption_data: signFields(answer, RESPONSE_SIGNATURE_FIELDS.payout, account.sign_key) };
}

/** The outbox record of a payout's status (form fields: amounts as two-decimal text), or none without notify_url. */
export function payoutNotification(
  deps: Pick<CoreDeps, 'ids' | 'clock' | 'timezone'>,
  account: Account,
  p: Payout,
): { next: OutboxRecord; expected: number }[] {
  if (!p.request.notify_url) return [];
  const fields: Record<string, string> = {
    request_id: p.request_id,
    transaction_id: p.transaction_id,
    short_reference_id: p.short_reference_id,
    status: p.status,
    failure_reason: p.failure_reason,
    failure_type: p.failure_type,
    payment_amount: p.request.payment_amount,
    payment_currency: p.request.payment_currency,
    source_amount: p.request.source_amount,
    source_currency: p.request.source_currency,
    amount_beneficiary_receives: formatAmount(p.amount_beneficiary_receives),
    amount_payer_pays: formatAmount(p.amount_payer_pays),
    fee_amount: formatAmount(p.fee_amount),
    fee_currency: p.fee_currency,
    created_at: isoWithOffset(p.created_at, deps.timezone),
    last_updated_at: isoWithOffset(p.updated_at, deps.timezone),
  };
  const record = outboxRecord(deps, account, 'payout', p.request.notify_url, fields);
  return [{ next: record, expected: 0 }];
}

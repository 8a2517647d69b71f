import type { Minor } from '../kernel/money.js';
import type { FeePaidBy, PaymentMethod, SwiftChargeOption } from './fees.js';

export const PayoutStatus = {
  PENDING: 'PENDING',
  PROCESSING: 'PROCESSING',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
} as const;
export type PayoutStatus = (typeof PayoutStatus)[keyof typeof PayoutStatus];

/** failure_type values (docs/payouts.md). */
export type PayoutFailureType = '' | 'INVALID_BENEFICIARY_ACCOUNT' | 'BENEFICIARY_BANK_REJECTED' | 'COMPLIANCE_REJECTED' | 'UNKNOWN';

/**
 * The payout request as echoed in every answer: every field of the request (docs/payouts.md), absent text as ''. The beneficiary's
 * bank_details already carry local_clearing_system and no bank_code, as the answer in docs/payouts.md shows.
 */
export interface PayoutEcho {
  merchant_id: string;
  account_id: string;
  beneficiary: Record<string, unknown>;
  beneficiary_id: string;
  client_data: string;
  fee_paid_by: FeePaidBy;
  payer: Record<string, unknown>;
  payment_amount: string;
  payment_currency: string;
  payment_date: string;
  payment_method: PaymentMethod;
  reason: string;
  reference: string;
  request_id: string;
  source_amount: string;
  source_currency: string;
  swift_charge_option: SwiftChargeOption | '';
  fund_source: 'DepositAccount';
  notify_url: string;
}

/** A payout as stored. `version` is the store's optimistic-lock counter. */
export interface Payout {
  version: number;
  transaction_id: string;
  merchant_id: string;
  account_id: string;
  request_id: string;
  short_reference_id: string;
  payer_id: string;
  /** keyed hash of the request: the same request_id with other content is refused */
  fingerprint: string;
  request: PayoutEcho;
  /** beneficiary.bank_details.bank_code as sent (accepted, not echoed: the answer has none, docs/payouts.md) */
  bank_code: string;
  status: PayoutStatus;
  failure_reason: string;
  failure_type: PayoutFailureType;
  /** currency debited from the deposit account (source_currency) and of every fee */
  fee_currency: string;
  fee_amount: Minor;
  amount_payer_pays: Minor;
  amount_beneficiary_receives: Minor;
  /** set once the connector accepted the transfer */
  connector_ref?: string;
  /** when the next lifecycle step is due */
  next_step_at: number;
  created_at: number;
  updated_at: number;
}

/** The live balance of an account's deposit account in one currency (hundredths). */
export interface DepositBalance {
  version: number;
  merchant_id: string;
  account_id: string;
  currency: string;
  available: Minor;
  updated_at: number;
}

import type { PayoutFailureType } from '../records/payout.js';

/** What the gateway asks of a bank-transfer provider to send a payout. */
export interface PayoutSubmission {
  /** the payout's transaction_id: a provider treats a repeat with the same reference as the same transfer */
  reference: string;
  payment_method: 'SWIFT' | 'LOCAL';
  /**
   * what the beneficiary receives, in payment_currency's own minor units (ISO 4217 exponent) like every
   * connector's amount (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery): JPY 1000 is 1000, USD 10.00 is 1000, KWD 1.500 is 1500
   */
  amount: number;
  currency: string;
  account_number: string;
  iban: string;
  swift_code: string;
  bank_country_code: string;
}

export type PayoutFailure = { failureType: Exclude<PayoutFailureType, ''>; failureReason: string };

export type PayoutSubmitOutcome = { accepted: true; connectorRef: string } | ({ accepted: false } & PayoutFailure);

export type PayoutTransferStatus = { state: 'processing' } | { state: 'completed' } | ({ state: 'failed' } & PayoutFailure);

export interface PayoutConnector {
  readonly code: string;
  /** Hands the transfer to the provider (PENDING -> PROCESSING, or FAILED when refused at once). */
  submit(req: PayoutSubmission): Promise<PayoutSubmitOutcome>;
  /** Asks how an accepted transfer ended (PROCESSING -> COMPLETED or FAILED). */
  status(connectorRef: string): Promise<PayoutTransferStatus>;
}

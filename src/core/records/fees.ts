import { formatAmount as fmt, type Minor } from '../kernel/money.js';
import { convert, minorStep, roundHalfUp, type RateTable } from './fx.js';

export type PaymentMethod = 'SWIFT' | 'LOCAL';
export type FeePaidBy = 'PAYER' | 'BENEFICIARY';
export type SwiftChargeOption = 'SHARED' | 'OUR' | 'BEN';

/**
 * The fee schedule (docs/payouts.md). The gateway's transfer fee is a percentage of the principal plus a
 * fixed part; SWIFT transfers add a correspondent (intermediary banks') fee. Fixed parts are written in USD
 * cents and converted into the source currency with the rate table.
 */
export const FEE_SCHEDULE: Readonly<Record<PaymentMethod, { basisPoints: number; fixedUsd: Minor; correspondentUsd: Minor }>> = {
  SWIFT: { basisPoints: 50, fixedUsd: 1500, correspondentUsd: 1000 },
  LOCAL: { basisPoints: 20, fixedUsd: 100, correspondentUsd: 0 },
};

export interface PayoutTerms {
  payment_method: PaymentMethod;
  fee_paid_by: FeePaidBy;
  /** only read for SWIFT */
  swift_charge_option: SwiftChargeOption | '';
  source_currency: string;
  payment_currency: string;
  /** the amount sent, in hundredths of each currency; exactly one side may be absent */
  source_amount?: Minor | undefined;
  payment_amount?: Minor | undefined;
}

export interface PayoutQuote {
  /** principal in the source currency (debited from the deposit account with the payer's fees) */
  source_principal: Minor;
  /** principal in the payment currency (before the beneficiary's fees) */
  payment_principal: Minor;
  /** every fee, in the source currency (fee_currency) */
  fee_amount: Minor;
  payer_fees: Minor;
  beneficiary_fees: Minor;
  amount_payer_pays: Minor;
  amount_beneficiary_receives: Minor;
}

export type QuoteResult = { ok: true; quote: PayoutQuote } | { ok: false; field: 'source_amount' | 'payment_amount'; message: string };

/** Who bears the transfer fee and who the correspondent fee: swift_charge_option decides for SWIFT. */
export function feeBearers(t: Pick<PayoutTerms, 'payment_method' | 'fee_paid_by' | 'swift_charge_option'>): {
  transfer: FeePaidBy;
  correspondent: FeePaidBy;
} {
  if (t.payment_method === 'SWIFT') {
    if (t.swift_charge_option === 'OUR') return { transfer: 'PAYER', correspondent: 'PAYER' };
    if (t.swift_charge_option === 'BEN') return { transfer: 'BENEFICIARY', correspondent: 'BENEFICIARY' };
  }
  // SHARED (and every LOCAL transfer): the transfer fee as fee_paid_by says, intermediary fees on the beneficiary
  return { transfer: t.fee_paid_by, correspondent: 'BENEFICIARY' };
}

/** Principals, fees and the two amounts of a payout, in integer hundredths (rounding: half up, per step). */
export function quotePayout(table: RateTable, t: PayoutTerms): QuoteResult {
  const src = t.source_currency;
  const pay = t.payment_currency;
  let payment_principal: Minor;
  let source_principal: Minor;
  if (t.payment_amount !== undefined) {
    payment_principal = t.payment_amount;
    source_principal = convert(table, payment_principal, pay, src);
    if (t.source_amount !== undefined && t.source_amount !== source_principal) {
      return {
        ok: false,
        field: 'source_amount',
        message: `does not match payment_amount at the gateway's rate (expected ${fmt(source_principal)} ${src}, or leave it empty)`,
      };
    }
  } else if (t.source_amount !== undefined) {
    source_principal = t.source_amount;
    payment_principal = convert(table, source_principal, src, pay);
  } else {
    return { ok: false, field: 'payment_amount', message: 'is required (or source_amount)' };
  }
  if (payment_principal <= 0 || source_principal <= 0) {
    return { ok: false, field: t.payment_amount !== undefined ? 'payment_amount' : 'source_amount', message: 'is too small to convert' };
  }
  const schedule = FEE_SCHEDULE[t.payment_method];
  const step = minorStep(src);
  const percentage = Number(roundHalfUp(BigInt(source_principal) * BigInt(schedule.basisPoints), 10_000n, step));
  const transferFee = percentage + convert(table, schedule.fixedUsd, 'USD', src);
  const correspondentFee = schedule.correspondentUsd > 0 ? convert(table, schedule.correspondentUsd, 'USD', src) : 0;
  const bearers = feeBearers(t);
  const payer_fees = (bearers.transfer === 'PAYER' ? transferFee : 0) + (bearers.correspondent === 'PAYER' ? correspondentFee : 0);
  const beneficiary_fees = transferFee + correspondentFee - payer_fees;
  const deducted = beneficiary_fees > 0 ? convert(table, beneficiary_fees, src, pay) : 0;
  const amount_beneficiary_receives = payment_principal - deducted;
  if (amount_beneficiary_receives <= 0) {
    return {
      ok: false,
      field: t.payment_amount !== undefined ? 'payment_amount' : 'source_amount',
      message: `does not cover the fees the beneficiary bears (${fmt(deducted)} ${pay})`,
    };
  }
  return {
    ok: true,
    quote: {
      source_principal,
      payment_principal,
      fee_amount: transferFee + correspondentFee,
      payer_fees,
      beneficiary_fees,
      amount_payer_pays: source_principal + payer_fees,
      amount_beneficiary_receives,
    },
  };
}

import type { CoreDeps } from '../ports/deps.js';
import { PaymentStatus as S, type Payment } from './payment.js';

/** The payment method a payment used; cards are the only method the connectors take today. */
export const CARD_METHOD = 'card';

/** Statuses where the connector answered the authorisation: approved (also held for review) or declined. */
const APPROVED = new Set<string>([S.AUTHORISED, S.CAPTURED, S.HELD]);
const DECLINED = new Set<string>([S.DECLINED, S.THREEDS_FAILED]);

/** A two-letter country code, or '' for anything else (the counters' keys stay few and bounded). */
export function countryKey(country: string | undefined): string {
  const c = (country ?? '').trim().toUpperCase();
  return /^[A-Z]{2}$/.test(c) ? c : '';
}

/**
 * The counter keys one authorisation is counted under: by method, by method and brand, by method and
 * country, and by all three, so /v1/optimise can use the most specific rate with enough data behind it.
 */
export function approvalDimensions(method: string, brand: string, country: string): string[] {
  return [method, `${method}|${brand}`, `${method}||${country}`, `${method}|${brand}|${country}`];
}

/**
 * Reports a settled payment: to the metrics, and to the account's approval counters that /v1/optimise
 * reads. Called once, after the commit that settled it. The counters are statistics: a store failure here
 * is logged, never turned into a failure of the payment that is already recorded.
 */
export async function recordSettled(deps: Pick<CoreDeps, 'metrics' | 'store' | 'log'>, p: Payment): Promise<void> {
  deps.metrics.paymentSettled(p.source, p.status);
  const approved = APPROVED.has(p.status);
  if (!approved && !DECLINED.has(p.status)) return;
  const dims = approvalDimensions(CARD_METHOD, p.card?.brand ?? '', countryKey(p.billing_country));
  await deps.store.countAuthorisation(p.merchant_id, p.account_id, dims, approved).catch((err: unknown) => {
    deps.log.warn({ transaction_id: p.transaction_id, err: { message: (err as Error).message } }, 'approval counters not updated');
  });
}

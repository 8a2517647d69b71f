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

/** The counter fields of one authorisation: `<dimension>:tried` for each, and `:approved` too when approved. */
function approvalFields(dimensions: readonly string[], approved: boolean): string[] {
  return dimensions.flatMap((d) => (approved ? [`${d}:tried`, `${d}:approved`] : [`${d}:tried`]));
}

/**
 * The approval counters a settled payment adds to, for the commit that settles it (ChangeSet.counters):
 * counted in the same atomic step as the outcome, so a retried or recovered commit counts exactly once.
 * Undefined when the connector gave no answer to count (an error, a challenge still open).
 */
export function approvalCounters(p: Payment): { accountId: string; fields: string[] } | undefined {
  const approved = APPROVED.has(p.status);
  if (!approved && !DECLINED.has(p.status)) return undefined;
  const dims = approvalDimensions(CARD_METHOD, p.card?.brand ?? '', countryKey(p.billing_country));
  return { accountId: p.account_id, fields: approvalFields(dims, approved) };
}

/**
 * Reports a settled payment to the metrics, once, after the commit that settled it. Its approval counters
 * were counted by that commit (approvalCounters).
 */
export function recordSettled(deps: Pick<CoreDeps, 'metrics'>, p: Payment): void {
  deps.metrics.paymentSettled(p.source, p.status);
}

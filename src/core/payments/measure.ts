import type { CoreDeps } from '../ports/deps.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';

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
 * The approval counters a settled payment adds to, for the commit that settles it (ChangeSet.counters):
 * counted in the same atomic step as the outcome, so a retried or recovered commit counts exactly once.
 * Only the most specific dimension (method, brand and country) is counted: `<dimension>:tried`, and
 * `<dimension>:approved` too when approved. The other three are its sums (rollUpApprovals), so a payment
 * costs the store two counter updates, not eight. Undefined when the connector gave no answer to count (an
 * error, a challenge still open).
 */
export function approvalCounters(p: Payment): { accountId: string; fields: string[] } | undefined {
  const approved = APPROVED.has(p.status);
  if (!approved && !DECLINED.has(p.status)) return undefined;
  // a brand is always named (cardBrand answers UNKNOWN), so the finest field never reads as a coarser one
  const finest = approvalDimensions(CARD_METHOD, p.card?.brand || 'UNKNOWN', countryKey(p.billing_country))[3]!;
  return { accountId: p.account_id, fields: approved ? [`${finest}:tried`, `${finest}:approved`] : [`${finest}:tried`] };
}

/**
 * The counts of every dimension from the stored counters: each `method|brand|country` field adds to its four
 * dimensions (approvalDimensions). Fields of a coarser dimension (no brand, or fewer parts), which gateways
 * before this one also counted alongside the finest, are left out: the finest fields already hold every
 * payment they counted.
 */
export function rollUpApprovals(raw: Record<string, number>): Map<string, { tried: number; approved: number }> {
  const out = new Map<string, { tried: number; approved: number }>();
  for (const [field, n] of Object.entries(raw)) {
    const cut = field.lastIndexOf(':');
    const parts = field.slice(0, cut).split('|');
    // `card||GB` is the country dimension (no brand), `card|VISA` the brand one: sums, not counted here
    if (parts.length !== 3 || parts[1] === '') continue;
    const approved = field.slice(cut + 1) === 'approved';
    for (const dim of approvalDimensions(parts[0]!, parts[1]!, parts[2]!)) {
      const entry = out.get(dim) ?? { tried: 0, approved: 0 };
      if (approved) entry.approved += n;
      else entry.tried += n;
      out.set(dim, entry);
    }
  }
  return out;
}

/**
 * Reports a settled payment to the metrics, once, after the commit that settled it. Its approval counters
 * were counted by that commit (approvalCounters).
 */
export function recordSettled(deps: Pick<CoreDeps, 'metrics'>, p: Payment): void {
  deps.metrics.paymentSettled(p.source, p.status);
}

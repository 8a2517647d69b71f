import type { PaymentMethodSettings } from '../records/directory.js';
import { approvalDimensions } from '../payments/measure.js';

/** An approval rate is believed from this many measured payments under one dimension. */
export const MIN_SAMPLES = 10;
/** The rate assumed before any payment is measured, and the weight (in payments) of that assumption. */
export const PRIOR_RATE = 0.85;
export const PRIOR_WEIGHT = 20;
/** Share of the score that comes from the measured approval rate; the rest is the account's weight. */
export const RATE_SHARE = 0.7;

export type Counts = Map<string, { tried: number; approved: number }>;

export interface ScoredMethod {
  method: PaymentMethodSettings;
  score: number;
  reasons: string[];
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

/**
 * The approval rate of a method for this order: the most specific measured dimension with enough payments
 * (method, brand and country; then method and brand; method and country; method), smoothed towards
 * PRIOR_RATE so a handful of payments cannot swing the order. `brand` is '' when the order names no card_bin.
 */
export function approvalRate(counts: Counts, measureKey: string, brand: string, country: string): { rate: number; reason: string } {
  const [all, byBrand, byCountry, byBoth] = approvalDimensions(measureKey, brand, country) as [string, string, string, string];
  const candidates: [string, string][] = [];
  if (brand && country) candidates.push([byBoth, `${brand} cards from ${country}`]);
  if (brand) candidates.push([byBrand, `${brand} cards`]);
  if (country) candidates.push([byCountry, `${measureKey} payments from ${country}`]);
  candidates.push([all, `all ${measureKey} payments`]);
  for (const [key, what] of candidates) {
    const c = counts.get(key);
    if (!c || c.tried < MIN_SAMPLES) continue;
    const rate = (c.approved + PRIOR_RATE * PRIOR_WEIGHT) / (c.tried + PRIOR_WEIGHT);
    return { rate, reason: `approval rate ${percent(c.approved / c.tried)} measured over ${c.tried} ${what}` };
  }
  return { rate: PRIOR_RATE, reason: `fewer than ${MIN_SAMPLES} measured payments: approval rate assumed ${percent(PRIOR_RATE)}` };
}

/** Score 0 to 100: RATE_SHARE of the approval rate plus the rest of the account's weight. */
export function scoreMethod(method: PaymentMethodSettings, measured: { rate: number; reason: string }): ScoredMethod {
  const score = Math.round(100 * (RATE_SHARE * measured.rate + (1 - RATE_SHARE) * (method.weight / 100)));
  return { method, score, reasons: [measured.reason, `account preference ${method.weight} of 100`] };
}

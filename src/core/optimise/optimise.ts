import type { CoreDeps } from '../ports/deps.js';
import type { Account, PaymentMethodSettings } from '../records/directory.js';
import type { Minor } from '../kernel/money.js';
import { formatAmount } from '../kernel/money.js';
import { cardBrand } from '../kernel/cards.js';
import { CARD_BRANDS } from '../records/branding.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import { CARD_METHOD, countryKey } from '../payments/measure.js';
import { approvalRate, scoreMethod, type ScoredMethod } from './score.js';

export interface OptimiseOrder {
  request_id: string;
  currency: string;
  amount: Minor;
  billing_country: string;
  /** '' when not sent */
  card_bin: string;
}

export interface OptimiseAnswer {
  merchant_id: string;
  account_id: string;
  request_id: string;
  return_status: '1';
  return_message: string;
  payment_methods: { pm_id: string; apm_type: string; name: string; brands: string[]; score: number; reasons: string[] }[];
  encryption_data: string;
}

/** The account's methods: its payment_methods setting, or the card method of its routing (with its card_brands). */
export function accountMethods(account: Account): PaymentMethodSettings[] {
  if (account.payment_methods.length > 0) return account.payment_methods;
  return [
    {
      pm_id: account.routing.pm_id,
      apm_type: account.routing.apm_type,
      name: 'Card',
      brands: account.card_brands.length > 0 ? [...account.card_brands] : [...CARD_BRANDS],
      currencies: [],
      countries: [],
      min_amount_minor: 0,
      max_amount_minor: 0,
      weight: 50,
    },
  ];
}

const isCard = (m: PaymentMethodSettings) => m.apm_type.toUpperCase() === 'CARD';

/** Why a method is not offered for this order, or undefined when it is. */
function unavailable(account: Account, m: PaymentMethodSettings, order: OptimiseOrder, brand: string): string | undefined {
  const currencies = m.currencies.length > 0 ? m.currencies : account.currencies;
  if (currencies.length > 0 && !currencies.includes(order.currency)) return 'currency';
  if (m.countries.length > 0 && !m.countries.includes(countryKey(order.billing_country))) return 'country';
  if (order.amount < m.min_amount_minor || (m.max_amount_minor > 0 && order.amount > m.max_amount_minor)) return 'amount';
  if (brand && isCard(m) && m.brands.length > 0 && !m.brands.includes(brand)) return 'brand';
  return undefined;
}

/**
 * /v1/optimise (docs/api.md): the account's methods that fit the order, best first. A card method is scored
 * with the approval rates the gateway measured for cards (by brand when card_bin names one, and by the
 * billing country); a method the gateway does not process itself has no measurements and keeps the prior.
 */
export async function optimisePaymentMethods(
  deps: Pick<CoreDeps, 'store'>,
  account: Account,
  order: OptimiseOrder,
): Promise<OptimiseAnswer> {
  const brand = order.card_bin ? cardBrand(order.card_bin) : '';
  const country = countryKey(order.billing_country);
  const methods = accountMethods(account).filter((m) => unavailable(account, m, order, brand) === undefined);
  const counts = methods.length > 0 ? await deps.store.authorisationCounts(account.merchant_id, account.account_id) : new Map();
  const scored: ScoredMethod[] = methods.map((m) => {
    const measureKey = isCard(m) ? CARD_METHOD : m.pm_id;
    const s = scoreMethod(m, approvalRate(counts, measureKey, isCard(m) ? brand : '', country));
    if (brand && isCard(m)) s.reasons.unshift(`card_bin ${order.card_bin.slice(0, 6)} is a ${brand} card`);
    if (m.max_amount_minor > 0) s.reasons.push(`amount ${formatAmount(order.amount)} ${order.currency} within the method's limit`);
    return s;
  });
  // best first; equal scores keep the account's own order
  scored.sort((a, b) => b.score - a.score);
  const answer = {
    merchant_id: account.merchant_id,
    account_id: account.account_id,
    request_id: order.request_id,
    return_status: '1' as const,
    return_message: scored.length > 0 ? 'OK' : 'no payment method of this account fits the order',
    payment_methods: scored.map((s) => ({
      pm_id: s.method.pm_id,
      apm_type: s.method.apm_type,
      name: s.method.name,
      brands: s.method.brands,
      score: s.score,
      reasons: s.reasons,
    })),
  };
  return { ...answer, encryption_data: signFields(answer, RESPONSE_SIGNATURE_FIELDS.optimise, account.sign_key) };
}

import { maskCardNumbers, maskIdentifier } from '../../core/kernel/cards.js';

/**
 * Request fields that hold free text a person typed (or a device sent), at any level of a body. A card number
 * found in one is masked before anything stores, logs or notifies it (docs/security.md); the card field itself
 * is not free text, and identifiers such as bank account numbers are left as sent.
 */
export const FREE_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'first_name',
  'last_name',
  'order_no',
  'note',
  'custom',
  'document',
  'items',
  'remark',
  'refund_reason',
  'shopper_id',
  'billing_address',
  'billing_city',
  'billing_state',
  'delivery_firstname',
  'delivery_lastname',
  'delivery_address',
  'delivery_city',
  'delivery_state',
  'contract',
  'contract_name',
  'reason',
  'reference',
  'client_data',
  'company_name',
  'name',
  'street',
  'street_address',
  'complement',
  'productId',
  'category',
  'coupon_code_used',
  'cardholder',
  // text a payment request carries that is kept (the checkout session keeps every field): masked too
  // (website and storefront_domains are addresses: a card number there is refused, schemas/common.ts)
  'shopper_phone',
  'shopper_level',
  'billing_postal_code',
  'delivery_postal_code',
  'os',
  'browser',
  'browser_lang',
  'default_lang',
  'time_zone',
  'resolution',
  'user_agent',
  'platform_source',
  'device_type',
  'order_type',
  'quote_price',
  'session_id',
  'device_fingerprint',
  'cookie_new',
  'cookie_old',
  'antifraud_token_cookie',
  'installments_id',
  'price_id',
  'quote_id',
]);

/** Free-text fields that hold a merchant's identifier, masked by the identifier rule (kernel/cards.ts). */
export const IDENTIFIER_FIELDS: ReadonlySet<string> = new Set([
  'order_no',
  'shopper_id',
  'productId',
  'session_id',
  'device_fingerprint',
  'cookie_new',
  'cookie_old',
  'antifraud_token_cookie',
  'installments_id',
  'price_id',
  'quote_id',
]);

/** Card numbers masked in one free-text field's value, by the rule of that field. */
export function maskField(name: string, value: string): string {
  return IDENTIFIER_FIELDS.has(name) ? maskIdentifier(value) : maskCardNumbers(value);
}

/** The items each passed through `f`: the same array when no item changed, else a copy with the changes. */
export function mapItems(list: readonly unknown[], f: (item: unknown) => unknown): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = f(list[i]);
    if (item !== list[i]) (out ??= list.slice())[i] = item;
  }
  return out ?? list;
}

/**
 * The request with card numbers masked in its fields outside the call's schema (`known`): the checkout keeps
 * them to echo in its loading form, and their names say nothing of what they hold. They are text, numbers and
 * booleans only (schemas/common.ts boundExtraFields); a number that is a card number becomes its masked text.
 */
export function maskExtraFields(request: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const name of Object.keys(request)) {
    if (known.has(name)) continue;
    const v = request[name];
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const text = String(v);
    const masked = text.length >= 12 ? maskCardNumbers(text) : text;
    if (masked !== text) (out ??= Object.assign(Object.create(null) as Record<string, unknown>, request))[name] = masked;
  }
  return out ?? request;
}

/**
 * The value with card numbers masked in every free-text field, at any depth (bodies are at most 32 deep).
 * Only what changes is copied: a body without a card number in its text comes back as it was.
 */
export function maskFreeText<T>(value: T): T {
  if (Array.isArray(value)) return mapItems(value as unknown[], maskFreeText) as T;
  if (value && typeof value === 'object') {
    let out: Record<string, unknown> | undefined;
    const record = value as Record<string, unknown>;
    for (const k of Object.keys(record)) {
      const v = record[k];
      // a card number has at least 12 digits: a shorter text (most names and cities) cannot hold one
      const masked = typeof v === 'string' ? (v.length >= 12 && FREE_TEXT_FIELDS.has(k) ? maskField(k, v) : v) : maskFreeText(v);
      // a copy without a prototype, as every object built from request data (schemas/common.ts)
      if (masked !== v) (out ??= Object.assign(Object.create(null) as Record<string, unknown>, record))[k] = masked;
    }
    return (out ?? value) as T;
  }
  return value;
}

import type { Account } from '../records/directory.js';

/** A request value as a form field's text: strings as sent, numbers and objects as their JSON text. */
export function fieldText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The routing fields of the loading page, from the account's routing settings and their defaults. */
export function routingFields(account: Account, website: string, timezone: string): Record<string, string> {
  const r = account.routing;
  return {
    gbc_id: r.gbc_id ?? account.merchant_id,
    connector_code: r.connector_code,
    account_name: r.account_name ?? account.merchant_name,
    website,
    pm_id: r.pm_id,
    apm_type: r.apm_type,
    descriptor: r.descriptor ?? account.merchant_name,
    orderprefix: r.orderprefix,
    rrtimezone: r.rrtimezone ?? timezone,
    ordernumlength: r.ordernumlength,
    sendbgoods: r.sendbgoods,
    replacename: r.replacename,
    send_bank_website: r.send_bank_website,
    replace_up_id: r.replace_up_id,
    replace_match_address: r.replace_match_address,
    to_pass_page: r.to_pass_page,
  };
}

/** What an alias is filled from: a request field, or a value the gateway supplies (docs/checkout.md lists both). */
type AliasSource = { field: string } | { value: (c: AliasContext) => string };

export interface AliasContext {
  request: Record<string, string>;
  routing: Record<string, string>;
  /** the result page under the service, and its cancel address */
  resultUrl: string;
  cancelUrl: string;
  sourceIp: string;
  allParams: string;
  logoNo: string;
  logoName: string;
}

const f = (field: string): AliasSource => ({ field });
const v = (value: (c: AliasContext) => string): AliasSource => ({ value });

/** The interface's aliases, in its order: the one mapping table (docs/checkout.md shows the same). */
export const CHECKOUT_ALIASES: readonly (readonly [string, AliasSource])[] = [
  ['signInfo', f('encryption_data')],
  ['merNo', f('merchant_id')],
  ['gatewayNo', f('account_id')],
  ['orderNo', f('order_no')],
  ['orderCurrency', f('currency')],
  ['orderAmount', f('amount')],
  ['itemTotal', f('item_total')],
  ['taxTotal', f('tax_total')],
  ['shipFee', f('shipping')],
  ['shippingDiscount', f('shipping_discount')],
  ['goodsInfo', f('items')],
  ['shopperId', f('shopper_id')],
  ['shopperLevel', f('shopper_level')],
  ['firstName', f('first_name')],
  ['lastName', f('last_name')],
  ['email', f('shopper_email')],
  ['phone', f('shopper_phone')],
  ['address', f('billing_address')],
  ['city', f('billing_city')],
  ['state', f('billing_state')],
  ['zip', f('billing_postal_code')],
  ['country', f('billing_country')],
  ['shipFirstName', f('delivery_firstname')],
  ['shipLastName', f('delivery_lastname')],
  ['shipCountry', f('delivery_country')],
  ['shipState', f('delivery_state')],
  ['shipCity', f('delivery_city')],
  ['shipAddress', f('delivery_address')],
  ['shipZip', f('delivery_postal_code')],
  ['notifyUrl', f('notify_url')],
  ['returnUrl', v((c) => c.resultUrl)],
  ['cancelUrl', v((c) => c.cancelUrl)],
  ['return_url', v((c) => c.resultUrl)],
  ['cancel_url', v((c) => c.cancelUrl)],
  ['source_notify_url', f('notify_url')],
  ['source_request_ip', v((c) => c.sourceIp)],
  ['default_lang', v((c) => c.request.default_lang || c.request.browser_lang || 'en')],
  ['defaultLang', v((c) => c.request.default_lang || c.request.browser_lang || 'en')],
  ['paymentToken', f('token_id')],
  ['token', f('token_id')],
  // the card brand is known only once the shopper types the number
  ['cardType', v(() => '')],
  ['card_type', v(() => '')],
  ['payment_method', v((c) => c.routing.pm_id!)],
  ['APMType', v((c) => c.routing.apm_type!)],
  ['verifyBillingAddress', v((c) => (c.request.billing_address && c.request.billing_postal_code ? '1' : '0'))],
  ['verify_billing_address', v((c) => (c.request.billing_address && c.request.billing_postal_code ? '1' : '0'))],
  ['merSendLogoNo', v((c) => c.logoNo)],
  ['logo_name', v((c) => c.logoName)],
  ['remark', f('note')],
  ['isOpen3D', v((c) => ((c.request.open3d || 'do3DS') === 'do3DS' ? '1' : '0'))],
  ['allParams', v((c) => c.allParams)],
];

export interface LoadingFormInput {
  account: Account;
  /** the signed request as sent */
  request: Record<string, unknown>;
  resultUrl: string;
  cancelUrl: string;
  sourceIp: string;
  timezone: string;
  /** binds the form post to the stored session */
  checkoutToken: string;
}

/** A name JavaScript enumerates before all others in an object: an array index (0 to 2^32 - 2, no leading zero). */
const INDEX_NAME = /^(?:0|[1-9]\d{0,9})$/;
const isIndexName = (name: string): boolean => INDEX_NAME.test(name) && Number(name) < 2 ** 32 - 1;

/**
 * Every hidden field of the loading page, in page order: routing fields, every request field under its own
 * name, every alias, and checkout_token. Where names meet, the later group wins (return_url/cancel_url are the
 * result page) and the name keeps its first place.
 *
 * A Map, not an object: about 100 names made the object a dictionary, whose Object.entries V8 sorts by
 * insertion index on every call; building and listing the form cost about 190 µs a page, the Map about a
 * third. The order is the object's own: names that are array indexes (a merchant may send a field "0") first,
 * ascending, then the others as they came.
 */
export function loadingFormFields(input: LoadingFormInput): ReadonlyMap<string, string> {
  // no prototype: the names are the merchant's, and a missing one must read as missing
  const request = Object.create(null) as Record<string, string>;
  for (const [k, val] of Object.entries(input.request)) request[k] = fieldText(val);
  const routing = routingFields(input.account, request.website || input.account.website, input.timezone);
  const r = input.account.routing as Record<string, unknown>;
  const ctx: AliasContext = {
    request,
    routing,
    resultUrl: input.resultUrl,
    cancelUrl: input.cancelUrl,
    sourceIp: input.sourceIp,
    allParams: new URLSearchParams(Object.entries(request)).toString(),
    logoNo: fieldText(r.mer_send_logo_no),
    logoName: fieldText(r.logo_name),
  };
  const form = new Map<string, string>();
  let indexNames = false;
  for (const k of Object.keys(routing)) form.set(k, routing[k]!);
  for (const k of Object.keys(request)) {
    form.set(k, request[k]!);
    if (!indexNames && isIndexName(k)) indexNames = true;
  }
  form.set('website', routing.website!);
  for (const [alias, source] of CHECKOUT_ALIASES) {
    form.set(alias, 'field' in source ? (request[source.field] ?? '') : source.value(ctx));
  }
  form.set('checkout_token', input.checkoutToken);
  if (!indexNames) return form;
  const first = [...form].filter(([k]) => isIndexName(k)).sort((x, y) => Number(x[0]) - Number(y[0]));
  return new Map([...first, ...[...form].filter(([k]) => !isIndexName(k))]);
}

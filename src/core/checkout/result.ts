import type { Account } from '../records/directory.js';
import { orderStatusOf, type Payment } from '../records/payment.js';
import { formatAmount } from '../kernel/money.js';
import { resultInfo, resultInfoOf } from '../kernel/result-codes.js';
import { RESPONSE_SIGNATURE_FIELDS, signFields } from '../kernel/signing.js';
import type { CheckoutSession } from '../records/session.js';

/** The result sent to the shopper's return address (query) and to the parent window (postMessage). */
export interface ShopperResult {
  order_no: string;
  order_status: string;
  result_info: string;
  amount: string;
  currency: string;
  transaction_id: string;
  note: string;
  encryption_data: string;
}

function signed(account: Account, r: Omit<ShopperResult, 'encryption_data'>): ShopperResult {
  const record = { merchant_id: account.merchant_id, account_id: account.account_id, ...r };
  return { ...r, encryption_data: signFields(record, RESPONSE_SIGNATURE_FIELDS.payment, account.sign_key) };
}

export function paymentResult(account: Account, p: Payment): ShopperResult {
  return signed(account, {
    order_no: p.order_no,
    order_status: orderStatusOf(p.status),
    result_info: resultInfoOf(p.result_code),
    amount: formatAmount(p.amount),
    currency: p.currency,
    transaction_id: p.transaction_id,
    note: p.note,
  });
}

/** A session the shopper cancelled before paying: no transaction. */
export function cancelledResult(account: Account, s: CheckoutSession): ShopperResult {
  return signed(account, {
    order_no: s.order_no,
    order_status: '0',
    result_info: resultInfo('SHOPPER_CANCELLED'),
    amount: formatAmount(s.amount),
    currency: s.currency,
    transaction_id: '',
    note: typeof s.request.note === 'string' ? s.request.note : '',
  });
}

/** The merchant's address with the signed result in its query. */
export function resultRedirect(base: string, r: ShopperResult): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(r)) url.searchParams.set(k, v);
  return url.toString();
}

/** The origin of a URL, or undefined when it is not one. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * docs/checkout.md: postMessage goes to the origin of the merchant's return_url when it is one of the account's
 * storefront_domains, else to the first of them; none when the account has none (it cannot be framed).
 */
export function parentOrigin(account: Account, returnUrl: string): string | undefined {
  const domains = account.storefront_domains.map(originOf).filter((o): o is string => o !== undefined);
  const own = originOf(returnUrl);
  if (own && domains.includes(own)) return own;
  return domains[0];
}

import type { CoreDeps } from '../ports/deps.js';
import type { Payment } from '../records/payment.js';
import { formerMask, maskIdentifier } from '../kernel/cards.js';

/**
 * The forms under which an order named by `orderNo` may be stored, most likely first: as named; masked, for
 * an order_no holding a card-shaped run of digits (a numeric order number under a card issuer's prefix that
 * passes the Luhn check is stored masked like a card number, docs/security.md), where the name comes as sent
 * (a query's lists, the portal's search); and masked as the gateway masked before runs inside a UUID or a
 * hexadecimal identifier were kept (kernel/cards.ts `formerMask`), for orders made then.
 */
export function orderForms(orderNo: string): string[] {
  const forms = [orderNo];
  for (const form of [maskIdentifier(orderNo), formerMask(orderNo)]) if (!forms.includes(form)) forms.push(form);
  return forms;
}

/** True when a stored order_no is one of the forms of the order_no a call names. */
export function sameOrder(stored: string, named: string): boolean {
  return stored === named || orderForms(named).includes(stored);
}

/**
 * The payment of an order: the idempotency lookup of a direct or hosted payment, and the lookup of a query's
 * or the portal's named order. Every form of the order_no is tried, so an order stored masked, or masked by an
 * earlier rule, is found by the order_no the merchant keeps, and a retry of it is answered, not charged again.
 */
export function paymentOfOrder(deps: CoreDeps, merchantId: string, accountId: string, orderNo: string): Promise<Payment | undefined> {
  return firstOfOrder(orderNo, (form) => deps.store.findPaymentByOrder(merchantId, accountId, form));
}

/** What `lookup` finds under the first form of the order_no (orderForms) that finds anything. */
export async function firstOfOrder<T>(orderNo: string, lookup: (form: string) => Promise<T | undefined>): Promise<T | undefined> {
  for (const form of orderForms(orderNo)) {
    const found = await lookup(form);
    if (found !== undefined) return found;
  }
  return undefined;
}

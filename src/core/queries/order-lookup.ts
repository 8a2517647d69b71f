import type { CoreDeps } from '../ports/deps.js';
import type { Payment } from '../payments/payment.js';
import { maskCardNumbers } from '../kernel/cards.js';

/**
 * The payment of an order a query names. An order_no holding a card-shaped run of digits (a numeric order
 * number under a card issuer's prefix that passes the Luhn check) was stored masked like a card number
 * (docs/security.md), while a query's lists are names taken as sent: the order is looked up as sent first
 * (every other order), then by its masked form.
 */
export async function paymentOfOrder(deps: CoreDeps, merchantId: string, accountId: string, orderNo: string): Promise<Payment | undefined> {
  const found = await deps.store.findPaymentByOrder(merchantId, accountId, orderNo);
  if (found) return found;
  const masked = maskCardNumbers(orderNo);
  return masked === orderNo ? undefined : deps.store.findPaymentByOrder(merchantId, accountId, masked);
}

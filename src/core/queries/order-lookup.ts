import type { CoreDeps } from '../ports/deps.js';
import type { Payment } from '../payments/payment.js';
import { maskCardNumbers } from '../kernel/cards.js';

/**
 * The payment of an order a query names. An order_no holding a Luhn-valid run of 12 to 19 digits (a long
 * numeric order number, one in ten of them) was stored masked like a card number (docs/security.md), while
 * a query's lists are names taken as sent: the order is looked up as sent first (every other order, and the
 * subscription charges stored unmasked before recurring ids kept such runs apart), then by its masked form.
 */
export async function paymentOfOrder(deps: CoreDeps, merchantId: string, accountId: string, orderNo: string): Promise<Payment | undefined> {
  const found = await deps.store.findPaymentByOrder(merchantId, accountId, orderNo);
  if (found) return found;
  const masked = maskCardNumbers(orderNo);
  return masked === orderNo ? undefined : deps.store.findPaymentByOrder(merchantId, accountId, masked);
}

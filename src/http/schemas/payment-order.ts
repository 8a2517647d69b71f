import { formatAmount, parseAmount, type Minor } from '../../core/kernel/money.js';
import { formerRequestFingerprint, requestFingerprint } from '../../core/kernel/fingerprint.js';
import type { CoreDeps } from '../../core/ports/deps.js';
import { withoutEmptyFields } from './common.js';
import type { PaymentOrder } from '../../core/authorisation/authorise.js';
import type { SubscriptionTerms } from '../../core/records/contract.js';
import type { CheckoutRequest, SubscriptionRequest } from './payment-request.js';

/** Request-to-core mapping shared by the direct payment and the hosted checkout. */

export { requestFingerprint } from '../../core/kernel/fingerprint.js';

/**
 * The fingerprint an order (a payment's order_no, a payout's request_id) is idempotent on, over the request as it
 * is read (docs/api.md#bodies): an optional field sent empty counts as absent, and the amount as the amount it is (`10`
 * and `10.00` are one amount). The same order sent again in another of these forms is the same request, not a
 * conflict. `formerFingerprints` are the forms earlier versions kept (the body as sent; before that, with the
 * card data), worked out only when the kept one does not match.
 */
export function orderFingerprints(
  deps: Pick<CoreDeps, 'vault'>,
  body: Record<string, unknown>,
  amount?: Minor,
): { fingerprint: string; formerFingerprints: () => (string | undefined)[] } {
  const read = asRead(body, amount);
  return {
    fingerprint: requestFingerprint(deps, read),
    formerFingerprints: () => [read === body ? undefined : requestFingerprint(deps, body), formerRequestFingerprint(deps, body)],
  };
}

function asRead(body: Record<string, unknown>, amount: Minor | undefined): Record<string, unknown> {
  const present = withoutEmptyFields(body) as Record<string, unknown>;
  if (amount === undefined || typeof present.amount !== 'string') return present;
  const written = formatAmount(amount);
  return present.amount === written ? present : { ...present, amount: written };
}

export function subscriptionTerms(s: SubscriptionRequest): SubscriptionTerms {
  return {
    contract: s.contract,
    contract_name: s.contract_name,
    contract_amount: parseAmount(s.contract_amount)!,
    interval: s.interval,
    interval_count: Number(s.interval_count),
    billing_cycle: s.billing_cycle,
    promotion_cycle: s.promotion_cycle,
    contract_start: s.contract_start,
    contract_end: s.contract_end,
    price_id: s.price_id,
  };
}

/** The order part of a checked payment request, in the core's terms (amounts in minor units). */
export function paymentOrder(
  input: Omit<CheckoutRequest, 'return_url' | 'cancel_url' | 'default_lang' | 'shopper_signature'>,
): PaymentOrder {
  const mpi = input.additional_information?.[0]?.mpi_info;
  return {
    order_no: input.order_no,
    currency: input.currency,
    amount: parseAmount(input.amount)!,
    note: input.note,
    website: input.website,
    notify_url: input.notify_url,
    shopper_email: input.shopper_email,
    shopper_ip: input.shopper_ip,
    billing_country: input.billing_country,
    delivery_country: input.delivery_country,
    device_fingerprint: input.device_fingerprint,
    open3d: input.open3d,
    token_flag: input.token_flag,
    token_id: input.token_id,
    ...(mpi ? { mpi } : {}),
    ...(input.subscription ? { subscription: subscriptionTerms(input.subscription) } : {}),
  };
}

import { Router } from 'express';
import type { CoreDeps } from '../../core/context.js';
import type { Account } from '../../core/merchants.js';
import { parseAmount } from '../../core/money.js';
import { REQUEST_SIGNATURE_FIELDS } from '../../core/signing.js';
import { authorisePayment, type AuthoriseCommand, type PaymentOrder } from '../../core/payments/authorise.js';
import { paymentAnswer } from '../../core/payments/answer.js';
import type { SubscriptionTerms } from '../../core/subscriptions.js';
import { authenticate, fieldValues } from '../authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { authoriseSchema, type CheckoutRequest, type SubscriptionRequest } from '../schemas/payment-request.js';
import { xmlDocument } from '../xml.js';
import { requestFingerprint } from '../../core/fingerprint.js';

/** Kept here too for callers of the earlier location; the helpers live in core/fingerprint.ts. */
export { canonicalJson, requestFingerprint } from '../../core/fingerprint.js';

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
export function paymentOrder(input: Omit<CheckoutRequest, 'return_url' | 'cancel_url' | 'default_lang'>): PaymentOrder {
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

/** POST /v1/authorise: the direct card payment, answered by the `respon` XML document. */
export function authoriseRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post('/v1/authorise', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account: Account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.authorise));
    const input = parseOrThrow(authoriseSchema, body);
    const command: AuthoriseCommand = {
      account,
      order: paymentOrder(input),
      source: 'direct',
      fingerprint: requestFingerprint(deps, body),
      ...(input.card
        ? { card: { pan: input.card, expMonth: input.expiration_month!, expYear: input.expiration_year!, securityCode: input.security_code! } }
        : {}),
    };
    const result = await authorisePayment(deps, command);
    res.locals.outcome = { transaction_id: result.payment.transaction_id, payment_status: result.payment.status, replayed: result.replayed };
    res.type('application/xml').send(xmlDocument('respon', paymentAnswer(account, result, deps.timezone)));
  });
  return router;
}

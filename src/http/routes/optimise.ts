import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { parseAmount } from '../../core/kernel/money.js';
import { optimisePaymentMethods } from '../../core/optimise/optimise.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { optimiseCall } from '../calls/payments.js';

/** POST /v1/optimise: the account's payment methods for an order, best first (JSON). */
export function optimiseRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(optimiseCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(optimiseCall, body));
    const input = parseOrThrow(optimiseCall.request, body);
    const answer = await optimisePaymentMethods(deps, account, {
      request_id: input.request_id,
      currency: input.currency,
      amount: parseAmount(input.amount)!,
      billing_country: input.billing_country,
      card_bin: input.card_bin,
    });
    res.locals.outcome = { request_id: input.request_id, methods: answer.payment_methods.length };
    res.json(answer);
  });
  return router;
}

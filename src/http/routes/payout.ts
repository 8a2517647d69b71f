import { assertActive } from '../../core/records/directory.js';
import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { parseAmount } from '../../core/kernel/money.js';
import { orderFingerprints } from '../schemas/payment-order.js';
import { createPayout } from '../../core/payouts/create.js';
import { paymentDepsOnClock } from '../../core/clocks/clocks.js';
import { payoutAnswer } from '../../core/payouts/answer.js';
import { findPayout, localClearingSystem } from '../../core/payouts/query.js';
import type { PayoutEcho } from '../../core/records/payout.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { type PayoutRequest } from '../schemas/payout-request.js';
import { payoutCall, payoutQueryCall } from '../calls/payouts.js';

/** The request as the answer echoes it: bank_details gain local_clearing_system and lose bank_code. */
function payoutEcho(input: PayoutRequest): PayoutEcho {
  const { bank_code: _code, ...bank } = input.beneficiary.bank_details;
  const clearing = localClearingSystem(input.payment_method, bank.bank_country_code, input.payment_currency);
  const { encryption_data: _sig, test_clock_id: _clock, ...rest } = input;
  return { ...rest, beneficiary: { ...input.beneficiary, bank_details: { ...bank, local_clearing_system: clearing } } };
}

/** POST /v1/payout (create) and POST /v1/payout/query (status), both answered in JSON. */
export function payoutRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(payoutCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(payoutCall, body));
    assertActive(account);
    const input = parseOrThrow(payoutCall.request, body);
    // a payout naming a test clock lives in the clock's time and queues, as a payment on it does (docs/test-clocks.md)
    const result = await createPayout(input.test_clock_id ? await paymentDepsOnClock(deps, account, input.test_clock_id) : deps, {
      account,
      request: payoutEcho(input),
      bank_code: input.beneficiary.bank_details.bank_code,
      source_amount: input.source_amount ? parseAmount(input.source_amount) : undefined,
      payment_amount: input.payment_amount ? parseAmount(input.payment_amount) : undefined,
      ...orderFingerprints(deps, body),
    });
    res.json(payoutAnswer(account, result.payout, deps.timezone));
  });
  router.post(payoutQueryCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(payoutQueryCall, body));
    const input = parseOrThrow(payoutQueryCall.request, body);
    const payout = await findPayout(deps, account, input);
    res.json(payoutAnswer(account, payout, deps.timezone));
  });
  return router;
}

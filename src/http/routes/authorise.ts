import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { assertActive, type Account } from '../../core/records/directory.js';
import { authorisePayment, type AuthoriseCommand } from '../../core/authorisation/authorise.js';
import { paymentAnswer } from '../../core/payments/answer.js';
import { assertNotifyUrl } from '../../core/notifications/target.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { orderFingerprints, paymentOrder } from '../schemas/payment-order.js';
import { xmlDocument } from '../render/xml.js';
import { paymentDepsOnClock } from '../../core/clocks/clocks.js';
import { authoriseCall } from '../calls/payments.js';

/** POST /v1/authorise: the direct card payment, answered by the `respon` XML document. */
export function authoriseRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(authoriseCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account: Account = await authenticate(deps, body, signedValues(authoriseCall, body));
    assertActive(account);
    // an authenticated caller's refusals are signed (http/render/refusal.ts)
    res.locals.account = account;
    const input = parseOrThrow(authoriseCall.request, body);
    // the shopper's return address (after a challenge) is checked like notify_url: NOTIFY_ALLOW_PRIVATE covers both
    await assertNotifyUrl(input.return_url, deps.notifyAllowPrivate, deps.transport.resolve, 'return_url');
    const order = paymentOrder(input);
    // docs/api.md: the body's return_url is kept; one appended to issuer_url counts only without it (set on
    // the fresh order: a spread copy that adds a field costs V8 a new hidden class)
    if (input.return_url) order.return_url = input.return_url;
    const prints = orderFingerprints(deps, body, order.amount);
    const command: AuthoriseCommand = {
      account,
      order,
      source: 'direct',
      fingerprint: prints.fingerprint,
      formerFingerprints: prints.formerFingerprints,
      ...(input.card
        ? {
            card: {
              pan: input.card,
              expMonth: input.expiration_month!,
              expYear: input.expiration_year!,
              securityCode: input.security_code!,
            },
          }
        : {}),
    };
    // a payment on a test clock lives in the clock's time and queues (docs/test-clocks.md); without one, nothing is read
    const result = await authorisePayment(
      input.test_clock_id ? await paymentDepsOnClock(deps, account, input.test_clock_id) : deps,
      command,
    );
    res.locals.outcome = {
      transaction_id: result.payment.transaction_id,
      payment_status: result.payment.status,
      replayed: result.replayed,
    };
    res.type('application/xml').send(xmlDocument('respon', paymentAnswer(account, result, deps.timezone)));
  });
  return router;
}

import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { REQUEST_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { cancelSubscription } from '../../core/subscriptions/cancel.js';
import { authenticate, fieldValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { cancelSubscriptionSchema } from '../schemas/subscription.js';

/** POST /v1/cancelsubscription: a JSON text whatever the content type (application/xml in the spec's sample). */
export function subscriptionsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post('/v1/cancelsubscription', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.cancelsubscription));
    const input = parseOrThrow(cancelSubscriptionSchema, body);
    res.json(await cancelSubscription(deps, account, input.recurring_id, input.contract_name));
  });
  return router;
}

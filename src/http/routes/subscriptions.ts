import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { cancelSubscription } from '../../core/subscriptions/cancel.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { cancelSubscriptionCall } from '../calls/subscriptions.js';

/** POST /v1/cancelsubscription: a JSON text whatever the content type (integrations declare application/xml too: docs/api.md#bodies). */
export function subscriptionsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(cancelSubscriptionCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(cancelSubscriptionCall, body));
    const input = parseOrThrow(cancelSubscriptionCall.request, body);
    res.json(await cancelSubscription(deps, account, input.recurring_id, input.contract_name));
  });
  return router;
}

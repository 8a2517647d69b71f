import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { REQUEST_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { resendNotifications } from '../../core/notifications/resend.js';
import { authenticate, fieldValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { resendSchema } from '../schemas/subscription.js';

/** POST /v1/notifications/resend: queues a notification again (same notify_id). */
export function notificationsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post('/v1/notifications/resend', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.resend));
    const input = parseOrThrow(resendSchema, body);
    res.json(await resendNotifications(deps, account, input.notify_id, input.order_no));
  });
  return router;
}

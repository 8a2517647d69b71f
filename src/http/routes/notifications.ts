import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { resendNotifications } from '../../core/notifications/resend.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { resendNotificationsCall } from '../calls/notifications.js';

/** POST /v1/notifications/resend: queues a notification again (same notify_id). */
export function notificationsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.post(resendNotificationsCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(resendNotificationsCall, body));
    const input = parseOrThrow(resendNotificationsCall.request, body);
    res.json(await resendNotifications(deps, account, input.notify_id, input.order_no));
  });
  return router;
}

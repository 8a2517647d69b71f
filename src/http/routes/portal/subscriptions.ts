import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { cancelSubscriptionByHand } from '../../../core/portal/actions.js';
import { portalContract } from '../../../core/portal/lists.js';
import { GatewayError } from '../../../core/kernel/errors.js';
import { actOnce, takeNotice } from '../../../core/portal/forms.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { queryText } from './filters.js';

/** A subscription contract by its recurring_id, and its cancel (admin). */
export function portalSubscriptionsRouter(deps: CoreDeps): Router {
  const router = Router();

  router.get('/portal/subscriptions', async (req, res) => {
    const session = sessionOf(res);
    const id = queryText(req.query.recurring_id);
    const notice = await takeNotice(deps, session, req.originalUrl);
    const contract = id ? await portalContract(deps, session.merchant_id, id) : undefined;
    renderPortal(res, deps.timezone, 'subscriptions', {
      active: 'subscriptions',
      contract,
      searched: id !== '',
      values: { recurring_id: id },
      notice,
      canCancel: session.role === 'admin' && contract?.status === 'Active',
    });
  });

  router.post('/portal/subscriptions/:recurringId/cancel', async (req, res) => {
    const session = sessionOf(res);
    const c = await portalContract(deps, session.merchant_id, req.params.recurringId);
    if (!c) throw new GatewayError('NOT_FOUND', 'recurring_id: no such subscription');
    const outcome = await actOnce(deps, session, (req.body as Record<string, unknown>)._csrf, req.path, async () => {
      const r = await cancelSubscriptionByHand(deps, session, c.account_id, c.recurring_id);
      return {
        location: `/portal/subscriptions?${new URLSearchParams({ recurring_id: c.recurring_id })}`,
        notice: { ok: r.ok, result: r.result },
      };
    });
    res.redirect(303, outcome.location);
  });

  return router;
}

import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { portalPayouts } from '../../../core/portal/lists.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { queryText } from './filters.js';

/** The merchant's deposit balances and a payout by its request_id or transaction_id. */
export function portalPayoutsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.get('/portal/payouts', async (req, res) => {
    const wanted = queryText(req.query.q);
    const { balances, payout } = await portalPayouts(deps, sessionOf(res).merchant_id, wanted);
    renderPortal(res, deps.timezone, 'payouts', { active: 'payouts', balances, payout, searched: wanted !== '', values: { q: wanted } });
  });
  return router;
}

import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { portalRefunds } from '../../../core/portal/lists.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { queryText } from './filters.js';

/** The merchant's refunds, newest first, or one by its refund_reference_id. */
export function portalRefundsRouter(deps: CoreDeps): Router {
  const router = Router();
  router.get('/portal/refunds', async (req, res) => {
    const wanted = queryText(req.query.refund_reference_id);
    const refunds = await portalRefunds(deps, sessionOf(res).merchant_id, wanted);
    renderPortal(res, deps.timezone, 'refunds', { active: 'refunds', refunds, values: { refund_reference_id: wanted } });
  });
  return router;
}

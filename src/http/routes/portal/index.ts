import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { portalHeaders, requirePortalSession } from '../../middleware/portal.js';
import { portalLanguage } from '../../middleware/portal-language.js';
import { portalLoginRouter } from './login.js';
import { portalPaymentsRouter } from './payments.js';
import { portalPaymentRouter } from './payment.js';
import { portalActionsRouter } from './actions.js';
import { portalExportRouter } from './export.js';
import { portalRefundsRouter } from './refunds.js';
import { portalSubscriptionsRouter } from './subscriptions.js';
import { portalPayoutsRouter } from './payouts.js';
import { portalPasswordRouter } from './password.js';
import { portalDisputesRouter } from './disputes.js';
import { portalInviteRouter } from './invite.js';
import { portalHomeRouter } from './home.js';

/** The merchant portal (docs/portal.md) at /portal: sign-in is open, every other page needs a session. */
export function portalRouter(deps: CoreDeps): Router {
  const router = Router();
  router.use('/portal', portalHeaders, portalLanguage(deps));
  router.use(portalLoginRouter(deps));
  router.use(portalInviteRouter(deps));
  router.use('/portal', requirePortalSession(deps));
  router.use(portalHomeRouter(deps));
  router.use(portalPaymentsRouter(deps));
  router.use(portalExportRouter(deps));
  router.use(portalPaymentRouter(deps));
  router.use(portalActionsRouter(deps));
  router.use(portalRefundsRouter(deps));
  router.use(portalSubscriptionsRouter(deps));
  router.use(portalPayoutsRouter(deps));
  router.use(portalPasswordRouter(deps));
  router.use(portalDisputesRouter(deps));
  return router;
}

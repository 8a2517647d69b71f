import { Router, type Response } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { paymentStory } from '../../../core/portal/story.js';
import { orderStatusOf, PaymentStatus as S } from '../../../core/records/payment.js';
import { resultInfoOf } from '../../../core/kernel/result-codes.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { takeNotice, type PortalNotice } from '../../../core/portal/forms.js';
import { refundableAmount } from '../../../core/operations/refund.js';

export interface PaymentPageForm {
  /** which form the errors and values belong to */
  form?: 'capture' | 'refund';
  errors?: Record<string, string>;
  values?: Record<string, string>;
  status?: number;
  /** the server's notice for this page (an action's result), never one from the address */
  notice?: PortalNotice | undefined;
  /** the cancel button was pressed: the page asks to confirm it */
  confirmCancel?: boolean;
}

/** Renders /portal/payments/<id>: the payment's whole story, and for admins the forms its status allows. */
export async function showPaymentPage(deps: CoreDeps, res: Response, transactionId: string, form: PaymentPageForm = {}): Promise<void> {
  const session = sessionOf(res);
  const story = await paymentStory(deps, session.merchant_id, transactionId);
  // a page that says what is missing in words, with the way back (another merchant's payment is as unknown)
  if (!story) return renderPortal(res, deps.timezone, 'notfound', { active: 'payments', id: transactionId.slice(0, 64) }, 404);
  const p = story.payment;
  const admin = session.role === 'admin';
  const capturable = p.status === S.AUTHORISED;
  const refundable = p.status === S.CAPTURED || p.status === S.PARTLY_REFUNDED;
  renderPortal(
    res,
    deps.timezone,
    'payment',
    {
      active: 'payments',
      story,
      p,
      orderStatus: orderStatusOf(p.status),
      // what a refund may still take: captured, less refunded, less what lost disputes took back
      refundMax: refundableAmount(p),
      resultInfo: resultInfoOf(p.result_code),
      can: {
        capture: admin && capturable,
        cancel: admin && (capturable || p.status === S.HELD),
        refund: admin && refundable,
        resend: admin,
      },
      viewer: !admin,
      form: form.form ?? '',
      errors: form.errors ?? {},
      values: form.values ?? {},
      notice: form.notice,
      confirmCancel: form.confirmCancel === true,
    },
    form.status ?? 200,
  );
}

/** GET /portal/payments/<transaction_id>. Another merchant's transaction is not found, like an unknown one. */
export function portalPaymentRouter(deps: CoreDeps): Router {
  const router = Router();
  router.get('/portal/payments/:transactionId', async (req, res) => {
    const notice = await takeNotice(deps, sessionOf(res), req.originalUrl);
    await showPaymentPage(deps, res, req.params.transactionId, { notice, confirmCancel: req.query.confirm === 'cancel' });
  });
  return router;
}

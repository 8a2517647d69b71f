import { Router, type Request, type Response } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { cancelByHand, captureByHand, refundByHand, requireAdmin, resendByHand, type ActionResult } from '../../../core/portal/actions.js';
import { sessionOf } from '../../middleware/portal.js';
import { parseOrThrow } from '../../schemas/common.js';
import { captureForm, fieldErrors, refundForm, resendForm } from '../../schemas/portal.js';
import { showPaymentPage } from './payment.js';
import { maskCardNumbers } from '../../../core/kernel/cards.js';
import { actOnce } from '../../../core/portal/forms.js';

/**
 * Runs an action once per form token (a double click or a resubmission answers the first result), then goes
 * back to the payment's page (a GET, so a reload repeats nothing), where the server's notice shows the result.
 */
async function actOnPayment(deps: CoreDeps, req: Request, res: Response, act: () => Promise<ActionResult>): Promise<void> {
  const page = `/portal/payments/${encodeURIComponent(String(req.params.transactionId))}`;
  const outcome = await actOnce(deps, sessionOf(res), (req.body as Record<string, unknown>)._csrf, req.path, async () => {
    const r = await act();
    return { location: page, notice: { ok: r.ok, result: r.result, ...(r.done ?? {}) } };
  });
  res.redirect(303, outcome.location);
}

const formValues = (req: Request): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.body as Record<string, unknown>).filter(([k, v]) => k !== '_csrf' && typeof v === 'string'),
  ) as Record<string, string>;

/** POST /portal/payments/<id>/{capture,cancel,refund,resend}: admins only, through the same core as /v1. */
export function portalActionsRouter(deps: CoreDeps): Router {
  const router = Router();

  router.post('/portal/payments/:transactionId/capture', async (req, res) => {
    const id = req.params.transactionId;
    requireAdmin(sessionOf(res));
    const parsed = captureForm.safeParse(req.body);
    if (!parsed.success) {
      return showPaymentPage(deps, res, id, { form: 'capture', errors: fieldErrors(parsed.error), values: formValues(req), status: 400 });
    }
    await actOnPayment(deps, req, res, () => captureByHand(deps, sessionOf(res), id, parsed.data.amount));
  });

  router.post('/portal/payments/:transactionId/cancel', async (req, res) => {
    const id = req.params.transactionId;
    requireAdmin(sessionOf(res));
    await actOnPayment(deps, req, res, () => cancelByHand(deps, sessionOf(res), id));
  });

  router.post('/portal/payments/:transactionId/refund', async (req, res) => {
    const id = req.params.transactionId;
    requireAdmin(sessionOf(res));
    const parsed = refundForm.safeParse(req.body);
    if (!parsed.success) {
      return showPaymentPage(deps, res, id, { form: 'refund', errors: fieldErrors(parsed.error), values: formValues(req), status: 400 });
    }
    const { refund_amount, refund_reason } = parsed.data;
    // a card number typed into the reason is masked, as in /v1/refund (docs/security.md)
    await actOnPayment(deps, req, res, () => refundByHand(deps, sessionOf(res), id, refund_amount, maskCardNumbers(refund_reason)));
  });

  router.post('/portal/payments/:transactionId/resend', async (req, res) => {
    const id = req.params.transactionId;
    requireAdmin(sessionOf(res));
    const { notify_id } = parseOrThrow(resendForm, req.body);
    await actOnPayment(deps, req, res, () => resendByHand(deps, sessionOf(res), id, notify_id));
  });

  return router;
}

import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import type { Contract } from '../../../core/subscriptions/contract.js';
import type { DepositBalance, Payout } from '../../../core/payouts/payout.js';
import { cancelSubscriptionByHand } from '../../../core/portal/actions.js';
import { changePassword } from '../../../core/portal/users.js';
import { GatewayError } from '../../../core/kernel/errors.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { fieldErrors, passwordForm } from '../../schemas/portal.js';
import { portalT } from '../../../i18n/portal.js';
import { clientAddress } from '../../client-address.js';
import { actOnce, takeNotice } from '../../../core/portal/forms.js';

/** The notice a password change leaves: a message key, worded in the language of the page that shows it. */
const PASSWORD_CHANGED = 'password.changed';
const REFUNDS_SHOWN = 100;
const q = (v: unknown): string => (typeof v === 'string' ? v.trim().slice(0, 64) : '');

/** Refunds, subscriptions, payouts and balances, and the user's own password. */
export function portalOtherRouter(deps: CoreDeps): Router {
  const router = Router();
  const ownAccounts = (merchantId: string) => deps.merchants.accountsOf(merchantId);

  router.get('/portal/refunds', async (req, res) => {
    const m = sessionOf(res).merchant_id;
    const wanted = q(req.query.refund_reference_id);
    const rows: { accountId: string; transactionId: string; refundReferenceId: string; at: number }[] = [];
    for (const a of ownAccounts(m)) {
      if (wanted) {
        const txn = await deps.store.findRefund(m, a.account_id, wanted);
        if (txn) rows.push({ accountId: a.account_id, transactionId: txn, refundReferenceId: wanted, at: 0 });
      } else {
        for (const e of await deps.store.refundsByDate(m, a.account_id, -Infinity, Infinity, REFUNDS_SHOWN))
          rows.push({ accountId: a.account_id, ...e });
      }
    }
    rows.sort((x, y) => y.at - x.at);
    const shown = rows.slice(0, REFUNDS_SHOWN);
    const payments = await deps.store.getPayments(
      m,
      shown.map((r) => r.transactionId),
    );
    const refunds = shown.flatMap((r, i) => {
      const p = payments[i];
      const rec = p?.refunds.find((x) => x.refund_reference_id === r.refundReferenceId);
      return p && rec ? [{ p, rec }] : [];
    });
    renderPortal(res, deps.timezone, 'refunds', { active: 'refunds', refunds, values: { refund_reference_id: wanted } });
  });

  router.get('/portal/subscriptions', async (req, res) => {
    const session = sessionOf(res);
    const id = q(req.query.recurring_id);
    const notice = await takeNotice(deps, session, req.originalUrl);
    let contract: Contract | undefined;
    if (id) {
      contract = await deps.store.getContract(session.merchant_id, id);
      if (contract && !deps.merchants.find(session.merchant_id, contract.account_id)) contract = undefined;
    }
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
    const c = await deps.store.getContract(session.merchant_id, req.params.recurringId);
    if (!c || !deps.merchants.find(session.merchant_id, c.account_id))
      throw new GatewayError('NOT_FOUND', 'recurring_id: no such subscription');
    const outcome = await actOnce(deps, session, (req.body as Record<string, unknown>)._csrf, req.path, async () => {
      const r = await cancelSubscriptionByHand(deps, session, c.account_id, c.recurring_id);
      return {
        location: `/portal/subscriptions?${new URLSearchParams({ recurring_id: c.recurring_id })}`,
        notice: { ok: r.ok, result: r.result },
      };
    });
    res.redirect(303, outcome.location);
  });

  router.get('/portal/payouts', async (req, res) => {
    const m = sessionOf(res).merchant_id;
    const wanted = q(req.query.q);
    const balances: (DepositBalance & { opening: boolean })[] = [];
    let payout: Payout | undefined;
    for (const a of ownAccounts(m)) {
      for (const [currency, opening] of Object.entries(a.deposit_balance)) {
        const b = await deps.store.getBalance(m, a.account_id, currency);
        balances.push(
          b
            ? { ...b, opening: false }
            : { version: 0, merchant_id: m, account_id: a.account_id, currency, available: opening, updated_at: 0, opening: true },
        );
      }
      if (wanted && !payout) payout = await deps.store.findPayoutByRequest(m, a.account_id, wanted);
    }
    if (wanted && !payout) {
      const byId = await deps.store.getPayout(m, wanted);
      if (byId && deps.merchants.find(m, byId.account_id)) payout = byId;
    }
    renderPortal(res, deps.timezone, 'payouts', { active: 'payouts', balances, payout, searched: wanted !== '', values: { q: wanted } });
  });

  router.get('/portal/account/password', async (req, res) => {
    const notice = await takeNotice(deps, sessionOf(res), req.originalUrl);
    const text = notice?.ok && notice.result === PASSWORD_CHANGED ? portalT(res.locals.portalLang as string, PASSWORD_CHANGED) : undefined;
    renderPortal(res, deps.timezone, 'password', { active: 'password', notice: notice && text ? { ...notice, text } : notice });
  });

  router.post('/portal/account/password', async (req, res) => {
    const parsed = passwordForm.safeParse(req.body);
    if (!parsed.success)
      return renderPortal(res, deps.timezone, 'password', { active: 'password', errors: fieldErrors(parsed.error) }, 400);
    const session = sessionOf(res);
    try {
      const outcome = await actOnce(deps, session, (req.body as Record<string, unknown>)._csrf, req.path, async () => {
        await changePassword(deps, session, parsed.data.current_password, parsed.data.new_password, clientAddress(req) ?? '');
        return { location: '/portal/account/password', notice: { ok: true, result: PASSWORD_CHANGED } };
      });
      res.redirect(303, outcome.location);
    } catch (err) {
      if (err instanceof GatewayError && err.field) {
        const message = err.message.slice(err.field.length + 2);
        return renderPortal(res, deps.timezone, 'password', { active: 'password', errors: { [err.field]: message } }, err.status);
      }
      throw err;
    }
  });

  return router;
}

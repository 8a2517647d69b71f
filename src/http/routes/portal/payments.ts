import { Router } from 'express';
import type { CoreDeps } from '../../../core/ports/deps.js';
import { searchPayments } from '../../../core/portal/search.js';
import { PaymentStatus } from '../../../core/records/payment.js';
import { sessionOf } from '../../middleware/portal.js';
import { renderPortal } from '../../render/portal.js';
import { readPaymentFilter } from './filters.js';

const PAGE_SIZE = 25;

/** GET /portal/payments: the merchant's payments, newest first, searched and filtered, paged by cursor. */
export function portalPaymentsRouter(deps: CoreDeps): Router {
  const router = Router();

  router.get('/portal/payments', async (req, res) => {
    const session = sessionOf(res);
    const accounts = deps.merchants.accountsOf(session.merchant_id).map((a) => a.account_id);
    const read = readPaymentFilter(deps, session, req);
    const common = { accounts, statuses: Object.values(PaymentStatus), values: read.values, active: 'payments' };
    if (!read.ok) return renderPortal(res, deps.timezone, 'payments', { ...common, errors: read.errors, page: undefined }, 400);
    const page = await searchPayments(deps, session.merchant_id, read.filter, PAGE_SIZE, read.cursor);
    const query = new URLSearchParams(read.values);
    const nextQuery = page.next ? new URLSearchParams({ ...read.values, after: `${page.next.at}.${page.next.txn}` }) : undefined;
    renderPortal(res, deps.timezone, 'payments', {
      ...common,
      page,
      paged: read.cursor !== undefined,
      firstLink: `/portal/payments?${query}`,
      nextLink: nextQuery ? `/portal/payments?${nextQuery}` : '',
      exportLink: `/portal/payments.csv?${query}`,
    });
  });

  return router;
}

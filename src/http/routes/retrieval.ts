import { Router, type Request } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import type { Account } from '../../core/records/directory.js';
import { GatewayError, invalidField } from '../../core/kernel/errors.js';
import { ipAllowed } from '../../core/merchants/ip-allow.js';
import { parseCompactDate } from '../../core/kernel/dates.js';
import { QUERY_LIMIT, queryRecentTransactions, queryTransactions } from '../../core/queries/transactions.js';
import { REFUND_SEARCH_LIMIT, searchRefunds } from '../../core/queries/refunds.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import type { CallSpec } from '../calls/index.js';
import { parseOrThrow } from '../schemas/common.js';
import { clientAddress } from '../client-address.js';
import { retrievalRefundCall, retrievalTransCall } from '../calls/queries.js';

/**
 * Authenticates, then checks the caller's address (clientAddress: X-Forwarded-For only counts with TRUST_PROXY)
 * against the account's allowed_ips. A refused caller learns nothing but the refusal.
 */
async function authoriseQuery(deps: CoreDeps, req: Request, call: CallSpec): Promise<Account> {
  const body = req.body as Record<string, unknown>;
  const account = await authenticate(deps, body, signedValues(call, body));
  const ip = clientAddress(req);
  if (!ipAllowed(ip, account.allowed_ips)) {
    deps.log.warn(
      { merchant_id: account.merchant_id, account_id: account.account_id, ip, path: req.path },
      'query from an address not allowed',
    );
    throw new GatewayError('IP_NOT_ALLOWED', 'the caller address is not registered for this account');
  }
  return account;
}

function dateBound(text: string | undefined, field: string, timezone: string, endOfSecond: boolean): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseCompactDate(text, timezone);
  if (ms === undefined) throw invalidField(field, 'is not a real date (YYYYMMDDhhmmss)');
  return endOfSecond ? ms + 999 : ms;
}

/** POST /v1/retrievalTrans and /v1/retrievalRefund: the two queries, for registered caller addresses only. */
export function retrievalRouter(deps: CoreDeps): Router {
  const router = Router();

  router.post(retrievalTransCall.path, async (req, res) => {
    const account = await authoriseQuery(deps, req, retrievalTransCall);
    const input = parseOrThrow(retrievalTransCall.request, req.body);
    const named = input.order_no.length + input.transaction_id.length;
    if (named === 0) {
      // a query may name no order: the account's newest payments (docs/api.md)
      const from = dateBound(input.start_date, 'start_date', deps.timezone, false);
      const to = dateBound(input.end_date, 'end_date', deps.timezone, true);
      if (from !== undefined && to !== undefined && from > to) throw invalidField('end_date', 'must not be before start_date');
      res.json(
        await queryRecentTransactions(deps, account, { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) }),
      );
      return;
    }
    if (named > QUERY_LIMIT) {
      throw invalidField('order_no', `order_no and transaction_id must name at most ${QUERY_LIMIT} orders in all`);
    }
    res.json(await queryTransactions(deps, account, { orderNos: input.order_no, transactionIds: input.transaction_id }));
  });

  router.post(retrievalRefundCall.path, async (req, res) => {
    const account = await authoriseQuery(deps, req, retrievalRefundCall);
    const input = parseOrThrow(retrievalRefundCall.request, req.body);
    const names = input.transaction_id.length + input.order_no.length + input.refund_reference_id.length;
    if (names > REFUND_SEARCH_LIMIT)
      throw invalidField('transaction_id', `the lists must name at most ${REFUND_SEARCH_LIMIT} items in all`);
    const from = dateBound(input.start_date, 'start_date', deps.timezone, false);
    const to = dateBound(input.end_date, 'end_date', deps.timezone, true);
    // no criterion (docs/api.md): the account's newest refunds, like retrievalTrans
    if (from !== undefined && to !== undefined && from > to) throw invalidField('end_date', 'must not be before start_date');
    res.json(
      await searchRefunds(deps, account, {
        transactionIds: input.transaction_id,
        orderNos: input.order_no,
        refundReferenceIds: input.refund_reference_id,
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
      }),
    );
  });

  return router;
}

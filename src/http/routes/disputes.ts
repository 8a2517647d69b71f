import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { invalidField } from '../../core/kernel/errors.js';
import { parseCompactDate } from '../../core/kernel/dates.js';
import { DISPUTE_SEARCH_LIMIT, disputeCallAnswer, searchDisputes } from '../../core/disputes/search.js';
import { acceptDispute, submitDisputeEvidence } from '../../core/disputes/respond.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { disputeAcceptCall, disputeEvidenceCall, retrievalDisputeCall } from '../calls/disputes.js';

function dateBound(text: string | undefined, field: string, timezone: string, endOfSecond: boolean): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseCompactDate(text, timezone);
  if (ms === undefined) throw invalidField(field, 'is not a real date (YYYYMMDDhhmmss)');
  return endOfSecond ? ms + 999 : ms;
}

/**
 * POST /v1/retrievalDispute, /v1/disputeEvidence and /v1/disputeAccept (docs/disputes.md), answered in JSON with
 * return_status: a refusal (a closed dispute, evidence after due_date) is return_status 0 with a message.
 */
export function disputesRouter(deps: CoreDeps): Router {
  const router = Router();

  router.post(retrievalDisputeCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(retrievalDisputeCall, body));
    const input = parseOrThrow(retrievalDisputeCall.request, body);
    if (input.transaction_id.length + input.order_no.length + input.dispute_id.length > DISPUTE_SEARCH_LIMIT)
      throw invalidField('transaction_id', `the lists must name at most ${DISPUTE_SEARCH_LIMIT} items in all`);
    const from = dateBound(input.start_date, 'start_date', deps.timezone, false);
    const to = dateBound(input.end_date, 'end_date', deps.timezone, true);
    if (from !== undefined && to !== undefined && from > to) throw invalidField('end_date', 'must not be before start_date');
    res.json(
      await searchDisputes(deps, account, {
        transactionIds: input.transaction_id,
        orderNos: input.order_no,
        disputeIds: input.dispute_id,
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
      }),
    );
  });

  router.post(disputeEvidenceCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(disputeEvidenceCall, body));
    const input = parseOrThrow(disputeEvidenceCall.request, body);
    const { product_description, customer_communication, shipping_tracking, uncategorized_text } = input;
    const answer = await submitDisputeEvidence(
      deps,
      account,
      input.dispute_id,
      { product_description, customer_communication, shipping_tracking, uncategorized_text },
      input.submit,
      deps.clock.now(),
    );
    res.locals.outcome = { dispute_id: input.dispute_id, return_status: answer.ok ? '1' : '0' };
    res.json(disputeCallAnswer(deps, account, input.dispute_id, answer));
  });

  router.post(disputeAcceptCall.path, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, signedValues(disputeAcceptCall, body));
    const input = parseOrThrow(disputeAcceptCall.request, body);
    const answer = await acceptDispute(deps, account, input.dispute_id, deps.clock.now());
    res.locals.outcome = { dispute_id: input.dispute_id, return_status: answer.ok ? '1' : '0' };
    res.json(disputeCallAnswer(deps, account, input.dispute_id, answer));
  });

  return router;
}

import { Router } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { invalidField } from '../../core/kernel/errors.js';
import { parseCompactDate } from '../../core/kernel/dates.js';
import { REQUEST_SIGNATURE_FIELDS } from '../../core/kernel/signing.js';
import { DISPUTE_SEARCH_LIMIT, disputeCallAnswer, searchDisputes } from '../../core/disputes/search.js';
import { acceptDispute, submitDisputeEvidence } from '../../core/disputes/respond.js';
import { authenticate, fieldValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { disputeAcceptSchema, disputeEvidenceSchema, retrievalDisputeSchema } from '../schemas/dispute.js';

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

  router.post('/v1/retrievalDispute', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.retrievalDispute));
    const input = parseOrThrow(retrievalDisputeSchema, body);
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

  router.post('/v1/disputeEvidence', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.dispute));
    const input = parseOrThrow(disputeEvidenceSchema, body);
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

  router.post('/v1/disputeAccept', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = await authenticate(deps, body, fieldValues(body, REQUEST_SIGNATURE_FIELDS.dispute));
    const input = parseOrThrow(disputeAcceptSchema, body);
    const answer = await acceptDispute(deps, account, input.dispute_id, deps.clock.now());
    res.locals.outcome = { dispute_id: input.dispute_id, return_status: answer.ok ? '1' : '0' };
    res.json(disputeCallAnswer(deps, account, input.dispute_id, answer));
  });

  return router;
}

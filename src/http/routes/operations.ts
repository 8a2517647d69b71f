import { Router, type Request } from 'express';
import type { CoreDeps } from '../../core/ports/deps.js';
import { parseAmount } from '../../core/kernel/money.js';
import { batchAnswer, runBatch, type BatchCall } from '../../core/operations/batch.js';
import type { OperationResult, OrderRef } from '../../core/operations/apply.js';
import { outcomeText } from '../../core/operations/failures.js';
import { captureOperation } from '../../core/operations/capture.js';
import { cancelOperation } from '../../core/operations/cancel.js';
import { reviewOperation } from '../../core/operations/review.js';
import { refundOperation } from '../../core/operations/refund.js';
import type { Account } from '../../core/records/directory.js';
import { authenticate, signedValues } from '../middleware/authenticate.js';
import { parseOrThrow } from '../schemas/common.js';
import { cancelCall, captureCall, refundCall, reviewCall } from '../calls/operations.js';

const BATCH_CALLS = { capture: captureCall, cancel: cancelCall, review: reviewCall, refund: refundCall } as const;

interface WireRef {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
}

const ref = (o: WireRef): OrderRef => ({
  transaction_id: o.transaction_id,
  order_no: o.order_no,
  currency: o.currency,
  amount: parseAmount(o.amount)!,
});
const echo = (o: WireRef) => ({ transaction_id: o.transaction_id, order_no: o.order_no, currency: o.currency, amount: o.amount });
const status = (r: OperationResult<unknown>) => (r.ok ? '1' : '0');
const errorMessage = (r: OperationResult<unknown>) => (r.ok ? '' : outcomeText(r.failure, r.detail));

async function authenticateBatch(deps: CoreDeps, req: Request, call: BatchCall): Promise<Account> {
  const body = req.body as Record<string, unknown>;
  return authenticate(deps, body, signedValues(BATCH_CALLS[call], body));
}

/** POST /v1/capture, /v1/review, /v1/cancel, /v1/refund: the follow-up operations, order by order. */
export function operationsRouter(deps: CoreDeps): Router {
  const router = Router();

  router.post(captureCall.path, async (req, res) => {
    const account = await authenticateBatch(deps, req, 'capture');
    const input = parseOrThrow(captureCall.request, req.body);
    const results = await runBatch(deps, account, 'capture', input.capture_orders.map(ref), captureOperation);
    const rows = input.capture_orders.map((o, i) => ({
      ...echo(o),
      capture_status: status(results[i]!),
      error_message: errorMessage(results[i]!),
    }));
    res.json(batchAnswer(account, 'capture', rows));
  });

  router.post(cancelCall.path, async (req, res) => {
    const account = await authenticateBatch(deps, req, 'cancel');
    const input = parseOrThrow(cancelCall.request, req.body);
    const results = await runBatch(deps, account, 'cancel', input.cancel_orders.map(ref), cancelOperation);
    const rows = input.cancel_orders.map((o, i) => ({
      ...echo(o),
      cancel_status: status(results[i]!),
      error_message: errorMessage(results[i]!),
    }));
    res.json(batchAnswer(account, 'cancel', rows));
  });

  router.post(reviewCall.path, async (req, res) => {
    const account = await authenticateBatch(deps, req, 'review');
    const input = parseOrThrow(reviewCall.request, req.body);
    const orders = input.review_orders.map((o) => ({ ...ref(o), review_flag: o.review_flag }));
    const results = await runBatch(deps, account, 'review', orders, reviewOperation);
    const rows = input.review_orders.map((o, i) => ({
      ...echo(o),
      review_flag: o.review_flag,
      review_status: status(results[i]!),
      error_message: errorMessage(results[i]!),
    }));
    res.json(batchAnswer(account, 'review', rows));
  });

  router.post(refundCall.path, async (req, res) => {
    const account = await authenticateBatch(deps, req, 'refund');
    const input = parseOrThrow(refundCall.request, req.body);
    // with an Idempotency-Key the key's rules apply, not the duplicate window (docs/api.md#errors-and-idempotency; middleware/idempotency.ts)
    const underIdempotencyKey = req.get('idempotency-key') !== undefined;
    const orders = input.refund_orders.map((o) => ({
      ...ref(o),
      refund_amount: parseAmount(o.refund_amount)!,
      refund_reason: o.refund_reason,
      underIdempotencyKey,
    }));
    const results = await runBatch(deps, account, 'refund', orders, refundOperation);
    const rows = input.refund_orders.map((o, i) => {
      const r = results[i]!;
      const record = r.ok ? r.payment.refunds.find((x) => x.refund_reference_id === r.plan.refundReferenceId) : undefined;
      return {
        ...echo(o),
        refund_amount: o.refund_amount,
        refund_reason: o.refund_reason,
        refund_status: status(r),
        refund_message: r.ok ? outcomeText('SUCCESS') : outcomeText(r.failure, r.detail),
        refund_reference: record?.refund_reference ?? '',
        refund_reference_id: record?.refund_reference_id ?? '',
      };
    });
    res.json(batchAnswer(account, 'refund', rows));
  });

  return router;
}

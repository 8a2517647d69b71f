import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import type { ClaimOp } from '../payments/claim.js';
import { connectorFor } from '../ports/connector.js';
import { finishOperation } from './finish.js';
import type { PaymentOperation } from './operation.js';
import { captureOperation } from './capture.js';
import { cancelOperation } from './cancel.js';
import { reviewOperation } from './review.js';
import { refundOperation } from './refund.js';
import { expireOperation } from './expiry.js';

function operationOf(op: ClaimOp): PaymentOperation<never, unknown> | undefined {
  const byOp: Partial<Record<ClaimOp, PaymentOperation<never, unknown>>> = {
    capture: captureOperation as PaymentOperation<never, unknown>,
    cancel: cancelOperation as PaymentOperation<never, unknown>,
    review: reviewOperation as PaymentOperation<never, unknown>,
    refund: refundOperation as PaymentOperation<never, unknown>,
    expire: expireOperation as PaymentOperation<never, unknown>,
  };
  return byOp[op];
}

export function isOperationClaim(op: ClaimOp): boolean {
  return operationOf(op) !== undefined;
}

/**
 * Finishes a follow-up operation whose holder crashed or stalled: the plan recorded in the claim is carried
 * out to the end, asking the acquirer first what it did under the claim's reference (finishOperation).
 */
export async function resumeOperationClaim(deps: CoreDeps, account: Account, p: Payment): Promise<void> {
  const op = operationOf(p.claim!.op);
  if (!op) return;
  const result = await finishOperation(deps, account, connectorFor(deps, account), op, p, true);
  deps.log.warn(
    { transaction_id: p.transaction_id, merchant_id: p.merchant_id, operation: p.claim!.op, ok: result.ok, status: result.payment?.status },
    'stale operation resumed',
  );
}

import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import { connectorFor } from '../ports/connector.js';
import { sameOrder } from '../queries/order-lookup.js';
import { takeClaim } from '../payments/claim.js';
import { resolveStaleClaim } from './stale-claim.js';
import { finishOperation } from './finish.js';
import type { OperationResult, OrderRef, PaymentOperation, Refusal } from './operation.js';
import type { OrderOutcome } from './failures.js';
import { clockOf, depsForClock, runsOnClock } from '../clocks/clock-deps.js';

// the operations' types live in operation.ts (capture, cancel, ... import them from there, not from the runner)
export type * from './operation.js';

export function orderMismatch(p: Payment, ref: OrderRef, amountMustMatch: boolean): OrderOutcome | undefined {
  // a card-shaped order_no is masked as it is read, in the request that made the payment as in this one; a
  // payment made before identifiers kept their digit runs holds the former form (queries/order-lookup.ts)
  if (!sameOrder(p.order_no, ref.order_no)) return 'ORDER_NO_MISMATCH';
  if (p.currency !== ref.currency) return 'CURRENCY_MISMATCH';
  if (amountMustMatch && p.amount !== ref.amount) return 'AMOUNT_MISMATCH';
  return undefined;
}

/**
 * Applies one operation to one payment, atomically and once: the payment is first claimed with the
 * operation's intent (claim.ts), so concurrent operations, in this or another gateway process, wait their
 * turn and then see its result; the connector is asked under the operation's acquirer reference; and the
 * outcome, its notification and its side records are committed with the claim's release in one step. A
 * connector refusal releases the claim and leaves the payment as it was.
 */
export async function applyOperation<O, P>(
  deps: CoreDeps,
  account: Account,
  transactionId: string,
  op: PaymentOperation<O, P>,
  order: O,
  ref?: OrderRef,
): Promise<OperationResult<P>> {
  const connector = connectorFor(deps, account);
  let onClock: string | undefined;
  const taken = await takeClaim<Refusal>(
    deps,
    account.merchant_id,
    transactionId,
    (p, now) => {
      if (p.account_id !== account.account_id) return 'missing';
      // a payment of a test clock is moved in the clock's time and queues (docs/test-clocks.md): nothing taken here
      const clock = clockOf(p);
      if (clock !== undefined && !runsOnClock(deps, clock)) {
        onClock = clock;
        return { refusal: { failure: 'BUSY' } };
      }
      const bad = ref ? orderMismatch(p, ref, op.amountMustMatch) : undefined;
      if (bad) return { refusal: { failure: bad } };
      const planned = op.plan(p, order, account, now);
      if (!planned.ok) return { refusal: { failure: planned.failure, detail: planned.detail } };
      const intent = op.intent(p, planned.plan);
      return { intent: { op: op.claimOp, ...intent, plan: planned.plan } };
    },
    (stale) => resolveStaleClaim(deps, account, stale),
  );
  if (onClock !== undefined) {
    const clockDeps = await depsForClock(deps, account.merchant_id, onClock);
    if (!clockDeps) return { ok: false, failure: 'NOT_FOUND' };
    return applyOperation(clockDeps, account, transactionId, op, order, ref);
  }
  switch (taken.kind) {
    case 'missing':
      return { ok: false, failure: 'NOT_FOUND' };
    case 'refused':
      return { ok: false, ...taken.refusal, payment: taken.payment };
    case 'busy':
      return { ok: false, failure: 'BUSY', payment: taken.payment };
  }
  return finishOperation(deps, account, connector, op, taken.payment, false);
}

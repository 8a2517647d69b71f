import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../merchants/directory.js';
import type { NotifyType } from '../notifications/outbox.js';
import type { ChangeSet } from '../ports/store.js';
import type { CardConnector, OperationOutcome } from '../ports/card-connector.js';
import type { Payment } from '../payments/payment.js';
import { outboxRecord, paymentNotificationFields } from '../notifications/outbox.js';
import { connectorFor } from '../payments/authorise.js';
import { sameOrder } from '../payments/order-lookup.js';
import { commitMarked, releaseClaim, outcomeMark, resolveDue, takeClaim, withoutClaim, type ClaimOp } from '../payments/claim.js';
import { resolveStaleClaim } from '../jobs/recovery.js';
import type { OrderOutcome } from './failures.js';

/** The identifying part of an order in a batch call, checked against the stored payment. */
export interface OrderRef {
  transaction_id: string;
  order_no: string;
  currency: string;
  /** minor units */
  amount: number;
}

export type Planned<P> = { ok: true; plan: P } | { ok: false; failure: OrderOutcome };

export interface ApplyContext {
  deps: CoreDeps;
  account: Account;
  now: number;
}

export interface Applied {
  next: Payment;
  /** what else the same atomic step writes (due queues, contracts, cards, refund index) */
  change?: Omit<ChangeSet, 'merchantId' | 'payments' | 'outbox'>;
  /** fields added to the payment's notification */
  notification?: Record<string, string>;
}

/** One follow-up operation on one payment: capture, review, cancel, refund or the expiry sweep's void. */
export interface PaymentOperation<O, P> {
  readonly notifyType: NotifyType;
  /** the claim's operation: how recovery finds this operation again (resume.ts) */
  readonly claimOp: ClaimOp;
  /** true when the order's amount must equal the payment's (capture's amount is the amount to capture) */
  readonly amountMustMatch: boolean;
  /** true when the move happens even if the connector refuses (an expired authorisation lapses anyway) */
  readonly connectorOptional?: boolean;
  /** Checks the move against the payment as it is at `now`: the plan, or the order's failure. */
  plan(p: Payment, order: O, account: Account, now: number): Planned<P>;
  /** The acquirer reference and the amount the plan moves (recorded in the claim). */
  intent(p: Payment, plan: P): { reference: string; amount?: number };
  /** Asks the connector to act under `reference`; undefined when there is nothing to ask. */
  execute(connector: CardConnector, p: Payment, plan: P, reference: string): Promise<OperationOutcome> | undefined;
  /** The payment after the operation and what the same commit writes besides. */
  apply(ctx: ApplyContext, p: Payment, plan: P, connectorRef: string | undefined): Applied;
}

export type OperationResult<P> = { ok: true; payment: Payment; plan: P } | { ok: false; failure: OrderOutcome; payment?: Payment };

export function orderMismatch(p: Payment, ref: OrderRef, amountMustMatch: boolean): OrderOutcome | undefined {
  // a card-shaped order_no is masked as it is read, in the request that made the payment as in this one; a
  // payment made before identifiers kept their digit runs holds the former form (payments/order-lookup.ts)
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
  const taken = await takeClaim<OrderOutcome>(
    deps,
    account.merchant_id,
    transactionId,
    (p, now) => {
      if (p.account_id !== account.account_id) return 'missing';
      const bad = ref ? orderMismatch(p, ref, op.amountMustMatch) : undefined;
      if (bad) return { refusal: bad };
      const planned = op.plan(p, order, account, now);
      if (!planned.ok) return { refusal: planned.failure };
      const intent = op.intent(p, planned.plan);
      return { intent: { op: op.claimOp, ...intent, plan: planned.plan } };
    },
    (stale) => resolveStaleClaim(deps, account, stale),
  );
  switch (taken.kind) {
    case 'missing':
      return { ok: false, failure: 'NOT_FOUND' };
    case 'refused':
      return { ok: false, failure: taken.refusal, payment: taken.payment };
    case 'busy':
      return { ok: false, failure: 'BUSY', payment: taken.payment };
  }
  return finishOperation(deps, account, connector, op, taken.payment, false);
}

/**
 * Finishes a claimed operation: the live path asks the connector; a resumed one (recovery, after its holder
 * crashed or stalled) first asks the acquirer what it did under the reference, and repeats the call under the
 * same reference only when the acquirer never acted.
 */
export async function finishOperation<O, P>(
  deps: CoreDeps,
  account: Account,
  connector: CardConnector,
  op: PaymentOperation<O, P>,
  claimed: Payment,
  resumed: boolean,
): Promise<OperationResult<P>> {
  const m = account.merchant_id;
  const claim = claimed.claim!;
  const plan = claim.plan as P;
  const before = withoutClaim(claimed);
  const status = resumed ? await connector.status(claim.reference) : undefined;
  const known = status && status.op !== 'authorise' ? status : undefined;
  // a connector that throws (a timeout, a dropped line) may have acted: its record under the reference decides,
  // and with none the call counts as refused (a retry carries the same reference, so it cannot act twice)
  const outcome: OperationOutcome | undefined = known
    ? (known.outcome as OperationOutcome)
    : await Promise.resolve()
        .then(() => op.execute(connector, before, plan, claim.reference))
        .catch(async (err: unknown) => {
          const after = await connector.status(claim.reference).catch(() => undefined);
          if (after && after.op !== 'authorise') return after.outcome;
          return { ok: false as const, message: (err as Error).message };
        });
  if (outcome && !outcome.ok && !op.connectorOptional) {
    deps.log.warn(
      { transaction_id: claimed.transaction_id, merchant_id: m, operation: op.notifyType, reason: outcome.message },
      'connector refused the operation',
    );
    const { payment } = await releaseClaim(deps, claimed, before);
    return { ok: false, failure: 'CONNECTOR_FAILED', payment };
  }
  const now = deps.clock.now();
  const applied = op.apply({ deps, account, now }, before, plan, outcome?.ok ? outcome.connectorRef : undefined);
  const next: Payment = { ...withoutClaim(applied.next), written_by: outcomeMark(claim) };
  const outbox = next.notify_url
    ? [
        outboxRecord(deps, account, op.notifyType, next.notify_url, {
          ...paymentNotificationFields(next, deps.timezone),
          ...applied.notification,
        }),
      ]
    : [];
  const change: ChangeSet = {
    merchantId: m,
    ...applied.change,
    due: [...(applied.change?.due ?? []), resolveDue(next.transaction_id, null)],
    payments: [{ next, expected: claimed.version }],
    outbox: outbox.map((o) => ({ next: o, expected: 0 })),
  };
  const verdict = await commitMarked(deps, change, next.transaction_id, next.written_by!);
  if (verdict === 'unknown') {
    deps.log.error(
      { transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType },
      'operation done at the acquirer but not recorded yet; recovery records it',
    );
    return { ok: false, failure: 'RECORDING', payment: before };
  }
  if (verdict === 'conflict') {
    // another process resumed this claim first: its outcome is this operation's outcome (same reference)
    const current = await deps.store.getPayment(m, next.transaction_id);
    if (current && current.written_by === next.written_by) return { ok: true, payment: current, plan };
    deps.log.error({ transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType }, 'claim lost');
    return { ok: false, failure: 'BUSY', payment: current ?? before };
  }
  deps.log.info(
    { transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType, status: next.status, resumed },
    'operation applied',
  );
  return { ok: true, payment: { ...next, version: claimed.version + 1 }, plan };
}

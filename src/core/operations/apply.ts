import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../merchants/directory.js';
import type { NotifyType } from '../notifications/outbox.js';
import type { ChangeSet } from '../ports/store.js';
import type { CardConnector, OperationOutcome } from '../ports/card-connector.js';
import type { Payment } from '../payments/payment.js';
import { outboxRecord, paymentNotificationFields } from '../notifications/outbox.js';
import { connectorFor } from '../payments/authorise.js';
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
  /** true when the order's amount must equal the payment's (capture's amount is the amount to capture) */
  readonly amountMustMatch: boolean;
  /** true when the move happens even if the connector refuses (an expired authorisation lapses anyway) */
  readonly connectorOptional?: boolean;
  /** Checks the move against the payment as it is at `now`: the plan, or the order's failure. */
  plan(p: Payment, order: O, account: Account, now: number): Planned<P>;
  /** Asks the connector to act; undefined when there is nothing to ask. */
  execute(connector: CardConnector, p: Payment, plan: P): Promise<OperationOutcome> | undefined;
  /** The payment after the operation and what the same commit writes besides. */
  apply(ctx: ApplyContext, p: Payment, plan: P, connectorRef: string | undefined): Applied;
}

export type OperationResult<P> = { ok: true; payment: Payment; plan: P } | { ok: false; failure: OrderOutcome; payment?: Payment };

/** How long a claim protects a payment if its holder dies, and how long others wait for it (real time). */
const CLAIM_MS = 30_000;
const WAIT_MS = 10_000;

function withoutClaim(p: Payment): Payment {
  const { claim: _c, ...rest } = p;
  return rest;
}

function mismatch(p: Payment, ref: OrderRef, amountMustMatch: boolean): OrderOutcome | undefined {
  if (p.order_no !== ref.order_no) return 'ORDER_NO_MISMATCH';
  if (p.currency !== ref.currency) return 'CURRENCY_MISMATCH';
  if (amountMustMatch && p.amount !== ref.amount) return 'AMOUNT_MISMATCH';
  return undefined;
}

/**
 * Applies one operation to one payment, atomically and once: the payment is first claimed by a versioned
 * write (so concurrent operations, in this or another gateway process, wait their turn and then see its
 * result), the connector is asked, and the outcome, its notification and its side records are committed in
 * one step. A connector failure releases the claim and leaves the payment as it was.
 */
export async function applyOperation<O, P>(
  deps: CoreDeps,
  account: Account,
  transactionId: string,
  op: PaymentOperation<O, P>,
  order: O,
  ref?: OrderRef,
): Promise<OperationResult<P>> {
  const m = account.merchant_id;
  const connector = connectorFor(deps, account);
  const claimId = deps.ids.opaque('claim');
  const waitUntil = Date.now() + WAIT_MS;
  let claimed: Payment | undefined;
  let plan: P | undefined;
  for (let attempt = 0; !claimed; attempt++) {
    const p = await deps.store.getPayment(m, transactionId);
    if (!p || p.account_id !== account.account_id) return { ok: false, failure: 'NOT_FOUND' };
    const bad = ref ? mismatch(p, ref, op.amountMustMatch) : undefined;
    if (bad) return { ok: false, failure: bad, payment: p };
    const now = deps.clock.now();
    if (!p.claim || p.claim.until <= now) {
      const planned = op.plan(withoutClaim(p), order, account, now);
      if (!planned.ok) return { ok: false, failure: planned.failure, payment: p };
      const next: Payment = { ...p, claim: { id: claimId, until: now + CLAIM_MS } };
      if (await deps.store.commit({ merchantId: m, payments: [{ next, expected: p.version }] })) {
        claimed = { ...next, version: p.version + 1 };
        plan = planned.plan;
        break;
      }
    }
    if (Date.now() > waitUntil) return { ok: false, failure: 'BUSY', payment: p };
    await sleep(Math.min(2 + attempt * 2, 40) + Math.random() * 8);
  }
  return finish(deps, account, connector, op, claimed, plan as P);
}

async function finish<O, P>(
  deps: CoreDeps,
  account: Account,
  connector: CardConnector,
  op: PaymentOperation<O, P>,
  claimed: Payment,
  plan: P,
): Promise<OperationResult<P>> {
  const m = account.merchant_id;
  const before = withoutClaim(claimed);
  // a throwing connector counts as a refusal: the claim must be released either way
  const outcome: OperationOutcome | undefined = await Promise.resolve()
    .then(() => op.execute(connector, before, plan))
    .catch((err: unknown) => ({ ok: false as const, message: (err as Error).message }));
  if (outcome && !outcome.ok && !op.connectorOptional) {
    deps.log.warn(
      { transaction_id: claimed.transaction_id, merchant_id: m, operation: op.notifyType, reason: outcome.message },
      'connector refused the operation',
    );
    const released = await deps.store.commit({ merchantId: m, payments: [{ next: before, expected: claimed.version }] });
    return { ok: false, failure: 'CONNECTOR_FAILED', payment: released ? { ...before, version: claimed.version + 1 } : before };
  }
  const now = deps.clock.now();
  const applied = op.apply({ deps, account, now }, before, plan, outcome?.ok ? outcome.connectorRef : undefined);
  const next = withoutClaim(applied.next);
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
    payments: [{ next, expected: claimed.version }],
    outbox: outbox.map((o) => ({ next: o, expected: 0 })),
  };
  if (!(await deps.store.commit(change))) {
    // only when our claim lapsed and another process took the payment over
    deps.log.error(
      { transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType },
      'claim lost before the outcome was recorded',
    );
    return { ok: false, failure: 'BUSY', payment: before };
  }
  deps.log.info(
    { transaction_id: next.transaction_id, merchant_id: m, operation: op.notifyType, status: next.status },
    'operation applied',
  );
  return { ok: true, payment: { ...next, version: claimed.version + 1 }, plan };
}

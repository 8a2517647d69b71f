import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { NotifyType } from '../notifications/outbox.js';
import type { ChangeSet } from '../ports/store.js';
import type { CardConnector, OperationOutcome } from '../ports/card-connector.js';
import type { Payment } from '../records/payment.js';
import type { ClaimOp } from '../payments/claim.js';
import type { OrderOutcome } from './failures.js';

// What a follow-up operation is, as types: each operation (capture.ts, cancel.ts, ...) defines one, the runner
// (apply.ts) and the resumption of a stale claim (finish.ts, resume.ts) carry them out.

/** The identifying part of an order in a batch call, checked against the stored payment. */
export interface OrderRef {
  transaction_id: string;
  order_no: string;
  currency: string;
  /** minor units */
  amount: number;
}

/** An order's failure; `detail` names what the failure refers to (the refund a duplicate repeats). */
export interface Refusal {
  failure: OrderOutcome;
  detail?: string;
}

export type Planned<P> = { ok: true; plan: P } | ({ ok: false } & Refusal);

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
  /**
   * Asks a connector whose records live in the gateway's store to decide without writing
   * (CardConnector.captureInCommit): its records are then written in the outcome's commit. undefined: ask
   * with `execute`.
   */
  executeInCommit?(
    connector: CardConnector,
    p: Payment,
    plan: P,
    reference: string,
  ): Promise<{ outcome: OperationOutcome; records: { reference: string; data: string }[] } | undefined> | undefined;
  /** The payment after the operation and what the same commit writes besides. */
  apply(ctx: ApplyContext, p: Payment, plan: P, connectorRef: string | undefined): Applied;
  /**
   * The payment as the claim's release leaves it when the acquirer was asked and did not act (it refused, or
   * has no record after a call that threw): what the request used at the acquirer stays used (a refund's
   * number is never sent again with other parameters). Absent: the payment as it was.
   */
  released?(p: Payment, plan: P): Payment;
}

export type OperationResult<P> = { ok: true; payment: Payment; plan: P } | ({ ok: false; payment?: Payment } & Refusal);

import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { AcquirerBooks, PaymentReferences } from '../ports/acquirer-books.js';
import type { CardConnector } from '../ports/card-connector.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { formatAmount } from '../kernel/money.js';
import { disputesOfPayment, reportAcquirerDispute } from '../disputes/report.js';
import { recordRefundFailedLater } from '../operations/refund-failed.js';
import { recordCaptureFailedLater } from '../operations/capture-failed.js';
import { clockOf, type ClockDeps } from '../clocks/clock-deps.js';
import { compareBooks, disputeDifference, type CatchUp, type Difference } from './compare.js';
import type { DiscrepancyRecord } from '../records/reconcile-records.js';

/** What reconciling one payment did: skipped (in flight, or not this connector's), compared, or its books unreadable. */
export type ReconcileResult =
  { kind: 'skipped'; why: string } | { kind: 'unreadable' } | { kind: 'compared'; caughtUp: number; discrepancies: number };

/** The payment's references as its acquirer's books are read by them. */
export function referencesOf(p: Payment): PaymentReferences {
  const numbered = p.refunds.map((r) => Number(r.refund_reference_id.slice(r.refund_reference_id.lastIndexOf('-') + 1)) || 0);
  return {
    transactionId: p.transaction_id,
    ...(p.connector_ref ? { connectorRef: p.connector_ref } : {}),
    attempts: p.attempt ?? 1,
    refundsSent: Math.max(p.refunds_sent ?? 0, ...numbered),
  };
}

/**
 * Compares one payment with its acquirer's books and acts on what differs: a transition the gateway is behind
 * on is caught up through the core function its webhook uses (the merchant notified as if it had come); money
 * that differs in a way no transition explains is a discrepancy, kept once per kind. A payment holding a claim
 * (an operation in flight, or one recovery must settle) or still pending is recovery's business and skipped, and
 * so is one that moved while its books were read (it is read again on the next pass).
 */
export async function reconcilePayment(
  deps: CoreDeps,
  account: Account,
  connector: CardConnector,
  transactionId: string,
): Promise<ReconcileResult> {
  const m = account.merchant_id;
  const before = await deps.store.getPayment(m, transactionId);
  const skip = inFlight(deps, before, account, connector);
  if (skip || !before || !connector.books) return { kind: 'skipped', why: skip ?? 'no books' };
  let books: AcquirerBooks;
  try {
    books = await connector.books(referencesOf(before));
  } catch (err) {
    deps.log.warn(
      { merchant_id: m, transaction_id: transactionId, connector: connector.code, err: { message: (err as Error).message } },
      "reconciliation: the acquirer's books could not be read; the payment is compared on a later pass",
    );
    return { kind: 'unreadable' };
  }
  const p = await deps.store.getPayment(m, transactionId);
  if (!p || p.version !== before.version) return { kind: 'skipped', why: 'moved while its books were read' };
  const disputes = await disputesOfPayment(deps, p);
  const found = compareBooks(p, disputes, books, deps.clock.now());
  let caughtUp = 0;
  const differences = [...found.differences];
  for (const c of found.catchUps) {
    const done = await catchUp(deps, account, p, c);
    if (done === 'recorded') caughtUp++;
    else if (done === 'refused') differences.push(disputeDifference(p, disputes, books.disputes));
  }
  const discrepancies = await recordDifferences(deps, account, p, connector.code, differences);
  return { kind: 'compared', caughtUp, discrepancies };
}

function inFlight(deps: CoreDeps, p: Payment | undefined, account: Account, connector: CardConnector): string | undefined {
  if (!p || p.account_id !== account.account_id) return 'not found';
  // a test clock's payments are reconciled in its time, by its advances; the live passes leave them
  if (clockOf(p) !== (deps as Partial<ClockDeps>).testClock?.test_clock_id) return 'another clock';
  if (p.claim) return 'claimed';
  if (p.status === S.PENDING) return 'pending';
  if (p.connector !== connector.displayName) return 'another connector';
  return undefined;
}

/** Makes one catch-up; 'refused' when the disputes core's table refuses the acquirer's move (a discrepancy). */
async function catchUp(deps: CoreDeps, account: Account, p: Payment, c: CatchUp): Promise<'recorded' | 'unchanged' | 'refused'> {
  const fields = { merchant_id: p.merchant_id, account_id: p.account_id, transaction_id: p.transaction_id };
  const reason = "the acquirer's books (reconciliation)";
  let outcome: string;
  if (c.act === 'refund-failed') {
    outcome = await recordRefundFailedLater(deps, account, p.transaction_id, c.reference, reason);
  } else if (c.act === 'capture-failed') {
    outcome = await recordCaptureFailedLater(deps, account, p.transaction_id, reason);
    // the payment moved on (refunded, disputed): no transition explains it any more
    if (outcome === 'operator') return 'refused';
  } else {
    const reported = await reportAcquirerDispute(deps, account, p.transaction_id, c.report, deps.clock.now());
    if (reported.kind === 'refused') {
      deps.log.warn(
        { ...fields, dispute: c.report.disputeRef, why: reported.why },
        'reconciliation: a dispute move the gateway cannot make',
      );
      return 'refused';
    }
    outcome = reported.kind;
  }
  const done = outcome === 'recorded' || outcome === 'opened' || outcome === 'moved';
  if (done) deps.log.info({ ...fields, act: c.act, outcome }, "reconciliation caught up with the acquirer's books");
  return done ? 'recorded' : 'unchanged';
}

/**
 * Keeps each difference as a discrepancy, once per (payment, kind): one already kept writes nothing. Each new
 * one is counted and logged.
 */
async function recordDifferences(
  deps: CoreDeps,
  account: Account,
  p: Payment,
  connector: string,
  differences: Difference[],
): Promise<number> {
  if (differences.length === 0) return 0;
  const kept = new Set((await deps.store.discrepanciesOf(p.merchant_id, p.transaction_id)).map((d) => d.kind));
  let recorded = 0;
  for (const d of differences) {
    if (kept.has(d.kind)) continue;
    kept.add(d.kind);
    const next: DiscrepancyRecord = {
      version: 0,
      merchant_id: p.merchant_id,
      account_id: account.account_id,
      transaction_id: p.transaction_id,
      kind: d.kind,
      connector,
      found_at: deps.clock.now(),
      currency: p.currency,
      acquirer_amount: d.acquirer,
      gateway_amount: d.gateway,
      references: d.references.slice(0, 20),
    };
    // created only where none is kept: another process that found it first wins, and this one counts nothing
    if (!(await deps.store.commit({ merchantId: p.merchant_id, discrepancies: [{ next, expected: 0 }] }))) continue;
    recorded++;
    deps.metrics.reconciliationDiscrepancy(connector, d.kind);
    deps.log.warn(
      {
        merchant_id: p.merchant_id,
        account_id: p.account_id,
        transaction_id: p.transaction_id,
        connector,
        kind: d.kind,
        currency: p.currency,
        acquirer_amount: formatAmount(d.acquirer),
        gateway_amount: formatAmount(d.gateway),
        references: next.references,
      },
      "reconciliation discrepancy: the acquirer's books differ from the gateway's record",
    );
  }
  return recorded;
}

import type { AcquirerBooks, BookDispute } from '../ports/acquirer-books.js';
import type { AcquirerDispute } from '../ports/card-connector.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';
import type { DisputeRecord } from '../records/dispute-record.js';
import { DECISION_DELAY_MS } from '../disputes/rules.js';
import { fromAcquirerAmount, type Minor } from '../kernel/money.js';
import type { DiscrepancyKind } from '../records/reconcile-records.js';

/**
 * A transition the acquirer's settled books show the gateway is behind on: made through the same core
 * function as the acquirer's webhook would have been, so the merchant is notified as if it had come.
 */
export type CatchUp = { act: 'refund-failed'; reference: string } | { act: 'capture-failed' } | { act: 'dispute'; report: AcquirerDispute };

/** Money that differs in a way no transition explains: what the acquirer's books hold and what the gateway records. */
export interface Difference {
  kind: DiscrepancyKind;
  acquirer: Minor;
  gateway: Minor;
  references: string[];
}

export interface Comparison {
  catchUps: CatchUp[];
  differences: Difference[];
}

/** Statuses in which the gateway holds the payment's authorisation at the acquirer (captured or not). */
const HOLDS: ReadonlySet<string> = new Set([S.HELD, S.AUTHORISED, S.CAPTURED, S.PARTLY_REFUNDED, S.REFUNDED]);

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * Compares the acquirer's books of a payment with the gateway's record of it and its disputes, at `now` (the
 * payment's clock). Only what the books say is final counts: an entry still in flight at the acquirer is
 * neither caught up nor a discrepancy. A payment that lapsed (4400) holds no authorisation for the gateway,
 * and the acquirer's lapses by itself: its authorisation is not compared.
 */
export function compareBooks(p: Payment, disputes: readonly DisputeRecord[], books: AcquirerBooks, now: number): Comparison {
  const minor = (amount: number | undefined): Minor => fromAcquirerAmount(amount ?? 0, p.currency);
  const out: Comparison = { catchUps: [], differences: [] };

  // the authorisation: what the acquirer holds (approved, not released) against what the gateway does
  if (p.status !== S.EXPIRED && books.authorisations.every((a) => a.final)) {
    const held = books.authorisations.filter((a) => a.status === 'approved' && !a.voided);
    const acquirer = sum(held.map((a) => minor(a.amount)));
    const gateway = HOLDS.has(p.status) ? p.amount : 0;
    if (acquirer !== gateway) {
      const references = (held.length > 0 ? held : books.authorisations).flatMap((a) => [
        a.reference,
        ...(a.connectorRef ? [a.connectorRef] : []),
      ]);
      out.differences.push({ kind: 'authorisation', acquirer, gateway, references: references.length ? references : [p.transaction_id] });
    }
  }

  // the capture: a capture the acquirer failed later is caught up; any other difference is a discrepancy
  if (books.capture.final) {
    const acquirer = books.capture.status === 'succeeded' ? minor(books.capture.amount) : 0;
    if (acquirer !== p.captured) {
      if (books.capture.status === 'failed' && p.status === S.CAPTURED) out.catchUps.push({ act: 'capture-failed' });
      else out.differences.push({ kind: 'capture', acquirer, gateway: p.captured, references: [`${p.transaction_id}-cap`] });
    }
  }

  compareRefunds(p, books, minor, out);
  compareDisputes(disputes, books.disputes, now, out);
  return out;
}

/**
 * Refunds: one the gateway recorded accepted that the acquirer failed is caught up (recorded failed, notified);
 * then, once every refund at the acquirer is settled, the amounts refunded on each side must agree.
 */
function compareRefunds(p: Payment, books: AcquirerBooks, minor: (a: number | undefined) => Minor, out: Comparison): void {
  const byReference = new Map(books.refunds.flatMap((r) => (r.reference ? [[r.reference, r] as const] : [])));
  const failedNow = new Set<string>();
  for (const r of p.refunds) {
    const kept = byReference.get(r.refund_reference_id);
    if (r.refund_status === '1' && kept?.final && kept.status === 'failed') {
      out.catchUps.push({ act: 'refund-failed', reference: r.refund_reference_id });
      failedNow.add(r.refund_reference_id);
    }
  }
  if (!books.refunds.every((r) => r.final)) return;
  const atAcquirer = books.refunds.filter((r) => r.status === 'succeeded');
  const atGateway = p.refunds.filter((r) => r.refund_status === '1' && !failedNow.has(r.refund_reference_id));
  const acquirer = sum(atAcquirer.map((r) => minor(r.amount)));
  const gateway = sum(atGateway.map((r) => r.refund_amount));
  if (acquirer === gateway) return;
  // the refunds the two sides do not agree on, by the gateway's reference or (made at the acquirer) its own
  const mine = new Map(atGateway.map((r) => [r.refund_reference_id, r.refund_amount]));
  const theirs = atAcquirer.filter((r) => !r.reference || mine.get(r.reference) !== minor(r.amount));
  const missing = atGateway.filter((r) => !atAcquirer.some((b) => b.reference === r.refund_reference_id));
  const references = [
    ...theirs.flatMap((r) => [r.reference ?? r.refundRef ?? '']).filter(Boolean),
    ...missing.map((r) => r.refund_reference_id),
  ];
  out.differences.push({ kind: 'refunds', acquirer, gateway, references: [...new Set(references)] });
}

/**
 * Disputes: one the gateway does not have is opened, one the acquirer moved is moved (the disputes core decides
 * whether its table takes the move). A decision the gateway's own step records (a day after the evidence) is
 * left to that step until it is due.
 */
function compareDisputes(known: readonly DisputeRecord[], reported: readonly BookDispute[], now: number, out: Comparison): void {
  for (const d of reported) {
    if (!d.final) continue;
    const mine = known.find((k) => k.acquirer_ref === d.disputeRef);
    if (mine && mine.status === d.status) continue;
    const decided = d.status === 'won' || d.status === 'lost';
    const decisionDue = mine?.evidence_submitted_at != null ? mine.evidence_submitted_at + DECISION_DELAY_MS : now;
    if (mine?.status === 'under_review' && decided && now < decisionDue) continue;
    out.catchUps.push({ act: 'dispute', report: reportOf(d) });
  }
}

export function reportOf(d: BookDispute): AcquirerDispute {
  return {
    disputeRef: d.disputeRef,
    reason: d.reason,
    status: d.status,
    ...(d.amount !== undefined ? { amount: d.amount } : {}),
    ...(d.dueAt !== undefined ? { dueAt: d.dueAt } : {}),
  };
}

/** What disputes took from the payment on each side (lost ones), for a dispute move the gateway cannot make. */
export function disputeDifference(p: Payment, known: readonly DisputeRecord[], reported: readonly BookDispute[]): Difference {
  const acquirer = sum(
    reported
      .filter((d) => d.status === 'lost')
      .map((d) => (d.amount === undefined ? p.captured : fromAcquirerAmount(d.amount, p.currency))),
  );
  const gateway = sum(known.filter((d) => d.status === 'lost').map((d) => d.amount));
  return { kind: 'dispute', acquirer, gateway, references: reported.map((d) => d.disputeRef) };
}

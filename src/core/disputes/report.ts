import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../merchants/directory.js';
import type { AcquirerDispute } from '../ports/card-connector.js';
import type { Payment } from '../payments/payment.js';
import { fromAcquirerAmount } from '../kernel/money.js';
import { pause } from '../kernel/clock.js';
import { emptyEvidence, type DisputeRecord, type DisputeStatus } from './dispute-record.js';
import { pathTo } from './transitions.js';
import { commitDisputeChange, type DisputeChange } from './write.js';
import { DISPUTE_FEE, INQUIRY_ESCALATION_MS, RESPONSE_WINDOW_MS, disputeIdOf, disputeStep } from './rules.js';

/** What reporting a dispute did: opened it, moved it, nothing (already known as reported), or must wait. */
export type ReportResult =
  { kind: 'opened' | 'moved' | 'unchanged'; dispute: DisputeRecord } | { kind: 'busy' } | { kind: 'refused'; why: string };

const ATTEMPTS = 16;

/** The payment's disputes as stored, oldest first. */
export async function disputesOfPayment(deps: Pick<CoreDeps, 'store'>, payment: Payment): Promise<DisputeRecord[]> {
  const ids = (payment.disputes ?? []).map((s) => s.dispute_id);
  if (ids.length === 0) return [];
  return (await deps.store.getDisputes(payment.merchant_id, ids)).filter((d): d is DisputeRecord => d !== undefined);
}

/** A new dispute on the payment as the acquirer reported it (status inquiry or needs_response). */
function opened(payment: Payment, report: AcquirerDispute, n: number, now: number): DisputeRecord {
  const status: DisputeStatus = report.status === 'inquiry' ? 'inquiry' : 'needs_response';
  return {
    version: 0,
    dispute_id: disputeIdOf(payment.transaction_id, n),
    merchant_id: payment.merchant_id,
    account_id: payment.account_id,
    transaction_id: payment.transaction_id,
    order_no: payment.order_no,
    amount: report.amount === undefined ? payment.captured : fromAcquirerAmount(report.amount, payment.currency),
    currency: payment.currency,
    reason: report.reason,
    status,
    opened_at: now,
    due_at: now + RESPONSE_WINDOW_MS,
    closed_at: null,
    evidence: emptyEvidence(),
    evidence_submitted_at: null,
    acquirer_ref: report.disputeRef,
    fee: DISPUTE_FEE,
    history: [{ at: now, from: '', to: status, cause: 'opened' }],
  };
}

/** The change that brings a known dispute to the status the acquirer reports, or why the table refuses it. */
function towards(d: DisputeRecord, report: AcquirerDispute, now: number): DisputeChange | 'unchanged' | string {
  if (report.status === d.status || (report.status === 'inquiry' && d.status !== 'inquiry')) return 'unchanged';
  if (report.status === 'needs_response' && d.status !== 'inquiry') return 'unchanged';
  const cause = report.status === 'needs_response' ? 'escalated' : 'decided';
  const steps = pathTo(d, report.status, now, cause);
  if (!steps) return `a ${d.status} dispute cannot become ${report.status}`;
  const due = report.status === 'needs_response' ? [] : closingDue(d.dispute_id);
  return { before: d, steps, due: [{ queue: 'dispute', member: disputeStep.escalate(d.dispute_id), at: null }, ...due] };
}

/** The due steps a closed dispute no longer needs. */
export const closingDue = (disputeId: string) =>
  (['escalate', 'deadline', 'decide'] as const).map((s) => ({ queue: 'dispute' as const, member: disputeStep[s](disputeId), at: null }));

/**
 * Opens or updates a dispute from a connector's report (DESIGN 13, the connector interface): the sandbox's
 * answer to `since`, or an acquirer's dispute webhook (Stripe, Adyen) mapped to an AcquirerDispute. A dispute
 * the payment does not have yet is opened (the balance debited with the fee, notified, its escalation and
 * deadline due); a known one is moved to the reported status through the transition table (a report that
 * is already recorded changes nothing, so webhooks delivered twice act once). Every write is one versioned
 * commit; a lost race reads again.
 */
export async function reportAcquirerDispute(
  deps: CoreDeps,
  account: Account,
  transactionId: string,
  report: AcquirerDispute,
  now: number,
): Promise<ReportResult> {
  const m = account.merchant_id;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const payment = await deps.store.getPayment(m, transactionId);
    if (!payment || payment.account_id !== account.account_id) return { kind: 'refused', why: 'no such payment' };
    const known = await disputesOfPayment(deps, payment);
    const existing = known.find((d) => d.acquirer_ref === report.disputeRef);
    let change: DisputeChange;
    if (existing) {
      const next = towards(existing, report, now);
      if (next === 'unchanged') return { kind: 'unchanged', dispute: existing };
      if (typeof next === 'string') return { kind: 'refused', why: next };
      change = next;
    } else {
      const d = opened(payment, report, (payment.disputes?.length ?? 0) + 1, now);
      const due = [{ queue: 'dispute' as const, member: disputeStep.deadline(d.dispute_id), at: d.due_at }];
      if (d.status === 'inquiry')
        due.push({ queue: 'dispute', member: disputeStep.escalate(d.dispute_id), at: now + INQUIRY_ESCALATION_MS });
      const first: DisputeChange = { before: undefined, steps: [d], due };
      // an acquirer may report a dispute it has already decided: opened, then moved in the same commit
      const decided = report.status === 'won' || report.status === 'lost' ? pathTo(d, report.status, now, 'decided') : undefined;
      change = decided ? { ...first, steps: [d, ...decided], due: closingDue(d.dispute_id) } : first;
    }
    const verdict = await commitDisputeChange(deps, account, payment, change, now);
    if (verdict === 'applied') {
      const dispute = change.steps[change.steps.length - 1]!;
      return { kind: existing ? 'moved' : 'opened', dispute: { ...dispute, version: (change.before?.version ?? 0) + 1 } };
    }
    if (verdict === 'busy') return { kind: 'busy' };
    await pause(deps.clock, 2, 4);
  }
  return { kind: 'busy' };
}

import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { AcquirerDispute } from '../ports/card-connector.js';
import type { Payment } from '../records/payment.js';
import { fromAcquirerAmount } from '../kernel/money.js';
import { pause } from '../kernel/clock.js';
import { answersSent, emptyEvidence, isOpenDispute, type DisputeRecord, type DisputeStatus } from '../records/dispute-record.js';
import { pathTo } from './transitions.js';
import { commitDisputeChange, type DisputeChange } from './write.js';
import { DISPUTE_FEE, INQUIRY_ESCALATION_MS, RESPONSE_WINDOW_MS, closingDue, deadlineAt, disputeIdOf, disputeStep } from './rules.js';
import { resendAnswers } from './respond.js';
import { connectorFor } from '../ports/connector.js';

/** What reporting a dispute did: opened it, moved it, nothing (already known as reported), or must wait. */
export type ReportResult =
  /** stale: the report is from earlier in the dispute's story than one already applied, and changes nothing */
  | { kind: 'opened' | 'moved' | 'unchanged' | 'stale'; dispute: DisputeRecord }
  | { kind: 'busy' }
  | { kind: 'refused'; why: string }
  /** an answer the merchant sent is still unknown at the acquirer, and decides how its closure is recorded */
  | { kind: 'unknown' };

const ATTEMPTS = 16;

/** The payment's disputes as stored, oldest first. */
export async function disputesOfPayment(deps: Pick<CoreDeps, 'store'>, payment: Payment): Promise<DisputeRecord[]> {
  const ids = (payment.disputes ?? []).map((s) => s.dispute_id);
  if (ids.length === 0) return [];
  return (await deps.store.getDisputes(payment.merchant_id, ids)).filter((d): d is DisputeRecord => d !== undefined);
}

/** The furthest due date a report may set (an acquirer's date beyond it is read as this). */
const MAX_DUE_MS = 180 * 86_400_000;

/** The due date an acquirer's report gives (its own last moment for an answer), if it gives one. */
function reportedDue(report: AcquirerDispute, now: number): number | undefined {
  return report.dueAt === undefined ? undefined : Math.min(report.dueAt, now + MAX_DUE_MS);
}

/**
 * A known dispute still to be answered whose due date the acquirer now reports otherwise (an inquiry escalated
 * with a period of its own, a defense period set later): `change` (or the record as it is) with that due date,
 * and its deadline step moved to it. undefined when the date stands.
 */
function withReportedDue(
  d: DisputeRecord,
  report: AcquirerDispute,
  change: DisputeChange | undefined,
  now: number,
): DisputeChange | undefined {
  const due = reportedDue(report, now);
  const last = change ? change.steps[change.steps.length - 1]! : d;
  if (due === undefined || due === last.due_at || (last.status !== 'inquiry' && last.status !== 'needs_response')) return change;
  const steps = change ? [...change.steps.slice(0, -1), { ...last, due_at: due }] : [{ ...d, due_at: due }];
  const deadline = { queue: 'dispute' as const, member: disputeStep.deadline(d.dispute_id), at: deadlineAt(due) };
  return { before: d, steps, due: [...(change?.due ?? []), deadline] };
}

/**
 * `change` with the report's place in the dispute's story kept on the record (the last step), so a report from
 * earlier in that story that arrives later changes nothing; where the report moves nothing but comes later in
 * the story than the record knows, the record alone, to keep it. undefined: nothing to write.
 */
function ordered(d: DisputeRecord, report: AcquirerDispute, change: DisputeChange | undefined): DisputeChange | undefined {
  const order = report.order;
  if (order === undefined || order <= (d.acquirer_order ?? -Infinity)) return change;
  if (!change) return { before: d, steps: [{ ...d, acquirer_order: order }] };
  const last = change.steps[change.steps.length - 1]!;
  return { ...change, steps: [...change.steps.slice(0, -1), { ...last, acquirer_order: order }] };
}

/**
 * An acquirer the gateway asks (the sandbox) that will move the dispute again later: its `decide:` step, which
 * asks it, due then, in the same commit as the change (which may otherwise drop it as a closed dispute's).
 */
function askedAgain(change: DisputeChange, report: AcquirerDispute): DisputeChange {
  if (report.askAgainAt === undefined) return change;
  const member = disputeStep.decide(change.steps[0]!.dispute_id);
  return {
    ...change,
    due: [...(change.due ?? []).filter((x) => x.member !== member), { queue: 'dispute', member, at: report.askAgainAt }],
  };
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
    due_at: reportedDue(report, now) ?? now + RESPONSE_WINDOW_MS,
    closed_at: null,
    evidence: emptyEvidence(),
    evidence_submitted_at: null,
    acquirer_ref: report.disputeRef,
    fee: DISPUTE_FEE,
    ...(report.order !== undefined ? { acquirer_order: report.order } : {}),
    history: [{ at: now, from: '', to: status, cause: 'opened' }],
  };
}

/** The change that brings a known dispute to the status the acquirer reports, or why the table refuses it. */
function towards(d: DisputeRecord, report: AcquirerDispute, now: number): DisputeChange | 'unchanged' | string {
  if (report.status === d.status || (report.status === 'inquiry' && d.status !== 'inquiry')) return 'unchanged';
  if (report.openOnly && !isOpenDispute(d.status)) return 'unchanged';
  if (report.status === 'needs_response' && d.status !== 'inquiry') return 'unchanged';
  // evidence the acquirer has: a dispute already past it (or closed) stays as it is
  if (report.status === 'under_review' && d.status !== 'inquiry' && d.status !== 'needs_response') return 'unchanged';
  const steps = reportedSteps(d, report.status, now);
  if (!steps) return `a ${d.status} dispute cannot become ${report.status}`;
  const due = report.status === 'needs_response' ? [] : closingDue(d.dispute_id);
  return { before: d, steps, due: [{ queue: 'dispute', member: disputeStep.escalate(d.dispute_id), at: null }, ...due] };
}

/**
 * The moves to the status an acquirer reports: escalated, decided, or under review with evidence the acquirer
 * has (sent at the acquirer directly, such as in Stripe's Dashboard: dated now, the evidence fields as the
 * gateway kept them), which ends the deadline: the acquirer's decision closes it.
 */
function reportedSteps(d: DisputeRecord, status: AcquirerDispute['status'], now: number): DisputeRecord[] | undefined {
  if (status === 'under_review')
    return pathTo({ ...d, evidence_submitted_at: now, sent: undefined, sending: undefined }, 'under_review', now, 'evidence');
  return pathTo(d, status, now, status === 'needs_response' ? 'escalated' : 'decided');
}

/**
 * A closure, or evidence under review, the acquirer reports on a dispute the merchant answered with an outcome
 * still unknown (`sent`): that answer is sent again first (the acquirer answers its first result), since an
 * acceptance it took is why the dispute closed (Stripe reports an inquiry the merchant closed as closed, like
 * one that lapsed), and the gateway records it as accepted; evidence it took is recorded as submitted, with
 * its text, on the way to the acquirer's decision. undefined: nothing of the merchant's was taken, the report
 * stands as it is.
 */
async function ownAnswerTaken(
  deps: CoreDeps,
  account: Account,
  d: DisputeRecord,
  report: AcquirerDispute,
  now: number,
): Promise<DisputeChange | 'unknown' | undefined> {
  const sent = answersSent(d);
  const ops = connectorFor(deps, account).disputes;
  const moves = report.status === 'won' || report.status === 'lost' || report.status === 'under_review';
  if (!moves || sent.length === 0 || !ops) return undefined;
  const taken = await resendAnswers(deps, ops, d, sent, now);
  if (taken === 'unknown') return 'unknown';
  if (taken === 'refused') return undefined;
  const last = taken.steps[taken.steps.length - 1]!;
  if (last.status !== 'under_review' || report.status === 'under_review') return taken;
  // the evidence was taken: under review, then as the acquirer decided
  const decided = pathTo(last, report.status, now, 'decided')!;
  return { ...taken, steps: [...taken.steps, ...decided], due: closingDue(d.dispute_id) };
}

/**
 * Opens or updates a dispute from a connector's report (docs/disputes.md, the connector interface): the sandbox's
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
      if (report.order !== undefined && report.order < (existing.acquirer_order ?? -Infinity)) return { kind: 'stale', dispute: existing };
      const next = towards(existing, report, now);
      if (typeof next === 'string' && next !== 'unchanged') return { kind: 'refused', why: next };
      const own = next === 'unchanged' ? undefined : await ownAnswerTaken(deps, account, existing, report, now);
      if (own === 'unknown') return { kind: 'unknown' };
      const dated = ordered(existing, report, own ?? withReportedDue(existing, report, next === 'unchanged' ? undefined : next, now));
      if (!dated) return { kind: 'unchanged', dispute: existing };
      change = dated;
    } else {
      const d = opened(payment, report, (payment.disputes?.length ?? 0) + 1, now);
      const due = [{ queue: 'dispute' as const, member: disputeStep.deadline(d.dispute_id), at: deadlineAt(d.due_at) }];
      if (d.status === 'inquiry')
        due.push({ queue: 'dispute', member: disputeStep.escalate(d.dispute_id), at: now + INQUIRY_ESCALATION_MS });
      const first: DisputeChange = { before: undefined, steps: [d], due };
      // an acquirer may report a dispute it has already moved (evidence it has, its decision): opened, then moved
      // in the same commit
      const decided = report.status === 'inquiry' || report.status === 'needs_response' ? undefined : reportedSteps(d, report.status, now);
      change = decided ? { ...first, steps: [d, ...decided], due: closingDue(d.dispute_id) } : first;
    }
    const verdict = await commitDisputeChange(deps, account, payment, askedAgain(change, report), now);
    if (verdict === 'applied') {
      const dispute = change.steps[change.steps.length - 1]!;
      return { kind: existing ? 'moved' : 'opened', dispute: { ...dispute, version: (change.before?.version ?? 0) + 1 } };
    }
    if (verdict === 'busy') return { kind: 'busy' };
    await pause(deps.clock, 2, 4);
  }
  return { kind: 'busy' };
}

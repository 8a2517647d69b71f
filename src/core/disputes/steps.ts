import type { CoreDeps } from '../ports/deps.js';
import type { ChangeSet } from '../ports/store.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import { connectorFor } from '../ports/connector.js';
import type { Payment } from '../records/payment.js';
import { PaymentStatus as S } from '../records/payment.js';
import { pathTo } from './transitions.js';
import { commitDisputeChange, type DisputeChange } from './write.js';
import { reportAcquirerDispute } from './report.js';
import { deadlineAt, disputeStep, parseDisputeStep, pastDue } from './rules.js';
import { answersSent, type DisputeRecord } from '../records/dispute-record.js';
import type { Account } from '../records/directory.js';
import { resendAnswers } from './respond.js';

/** A step that must wait (the payment is held by another flow's claim) is tried again this much later. */
const BUSY_RETRY_MS = 1_000;

const dropMember = (merchantId: string, member: string): ChangeSet => ({ merchantId, due: [{ queue: 'dispute', member, at: null }] });

/** When the payment was captured: where the acquirer's disputes on it can start. */
function capturedAt(p: Payment): number {
  const move = p.history?.find((h) => h.to === S.CAPTURED);
  return move?.at ?? p.updated_at;
}

/**
 * One time-driven step of the dispute lifecycle (docs/disputes.md), a member of the due queue `dispute`, run at `now`
 * (the live job's clock, or a test clock's time: the same code either way). Returns true when it acted.
 * - `open:<transaction_id>`: a payment just captured whose connector watches it: its disputes are asked for
 *   and each one opened (reportAcquirerDispute);
 * - `escalate:<dispute_id>`: an inquiry still unanswered a day after it opened becomes needs_response;
 * - `deadline:<dispute_id>`: due_date passed without evidence. The deadline ends evidence (the calls refuse it
 *   from then on), not the dispute: answers sent whose outcome is unknown are sent again (one the acquirer took
 *   is recorded), and the acquirer is asked for its decision. The sandbox decides an unanswered dispute lost at
 *   its due date; an acquirer that reports by webhook (Stripe, Adyen) answers nothing here, and the dispute
 *   waits for its event;
 * - `decide:<dispute_id>`: the acquirer is asked for the dispute as it stands and its report recorded: a day
 *   after the evidence, at once after an acceptance, and when the acquirer said it moves the dispute again
 *   (askAgainAt: the sandbox reversing a decision).
 * Each moves the dispute through the transition table in one versioned commit that also drops the member,
 * so two processes running the same step act once.
 */
export async function runDisputeStep(deps: CoreDeps, merchantId: string, member: string, now: number): Promise<boolean> {
  const parsed = parseDisputeStep(member);
  if (!parsed) {
    deps.log.warn({ merchant_id: merchantId, member }, 'unknown dispute step dropped');
    await deps.store.commit(dropMember(merchantId, member));
    return false;
  }
  if (parsed.step === 'open') return openStep(deps, merchantId, member, parsed.subject, now);
  const dispute = await deps.store.getDispute(merchantId, parsed.subject);
  const payment = dispute && (await deps.store.getPayment(merchantId, dispute.transaction_id));
  const account = dispute && deps.merchants.find(merchantId, dispute.account_id);
  if (!dispute || !payment || !account) {
    await deps.store.commit(dropMember(merchantId, member));
    return false;
  }
  let change: DisputeChange | undefined;
  if (parsed.step === 'escalate' && dispute.status === 'inquiry') {
    change = { before: dispute, steps: pathTo(dispute, 'needs_response', now, 'escalated')!, due: [] };
  } else if (parsed.step === 'deadline' && dispute.evidence_submitted_at === null && !pastDue(dispute, now)) {
    // due_date is still the last moment for evidence (a step due at it, as steps were once queued): not spent
    await deps.store.commit({ merchantId, due: [{ queue: 'dispute', member, at: deadlineAt(dispute.due_at) }] });
    return false;
  } else if (parsed.step === 'deadline' && dispute.evidence_submitted_at === null) {
    const unanswered = dispute.status === 'inquiry' || dispute.status === 'needs_response';
    // an answer sent whose outcome was never recorded: the acquirer may have it, so it is asked again first
    if (unanswered && answersSent(dispute).length > 0) {
      const resent = await sendAgain(deps, account, dispute, now);
      if (resent === 'unknown') {
        await deps.store.commit({ merchantId, due: [{ queue: 'dispute', member, at: now + RESEND_RETRY_MS }] });
        return false;
      }
      if (resent !== 'refused') change = resent;
      // refused, every one: none was taken, so none is sent again
      else if ((await forgetSent(deps, account, payment, dispute, now)) !== 'applied') return false;
    }
    if (unanswered && !change) return askAcquirer(deps, account, member, dispute, payment, now);
  } else if (parsed.step === 'decide') {
    return askAcquirer(deps, account, member, dispute, payment, now);
  }
  if (!change) {
    // nothing to do any more (answered, escalated or closed meanwhile): the member is spent
    await deps.store.commit(dropMember(merchantId, member));
    return false;
  }
  change.due = [...(change.due ?? []), { queue: 'dispute', member, at: null }];
  const verdict = await commitDisputeChange(deps, account, payment, change, now);
  if (verdict === 'busy') await deps.store.commit({ merchantId, due: [{ queue: 'dispute', member, at: now + BUSY_RETRY_MS }] });
  // conflict: another process moved it; the member is still due and the next run reads it again
  return verdict === 'applied';
}

/**
 * Runs at once the `open:` steps a capture's commit queued (disputeWatchOnCapture): a payment its connector
 * watches (the sandbox's dispute test cards) is disputed as soon as it is captured (docs/disputes.md), so the capture
 * is answered once its dispute is open, and a refund sent after that answer finds the dispute. A step that
 * cannot run now (the store or the connector not answering) stays queued, and the job opens the dispute. True
 * when a dispute was opened (the payment was written again: its dispute summary).
 */
export async function openDisputesNow(deps: CoreDeps, merchantId: string, due: ChangeSet['due']): Promise<boolean> {
  let opened = false;
  for (const d of due ?? []) {
    if (d.queue !== 'dispute' || d.at === null || parseDisputeStep(d.member)?.step !== 'open') continue;
    try {
      if (await runDisputeStep(deps, merchantId, d.member, deps.clock.now())) opened = true;
    } catch (err) {
      deps.log.warn(
        { merchant_id: merchantId, member: d.member, err: { message: (err as Error).message } },
        'dispute not opened with its capture; the dispute job opens it',
      );
    }
  }
  return opened;
}

/** A deadline step that could not learn the acquirer's answer to an earlier sending tries again this much later. */
const RESEND_RETRY_MS = 60_000;

/**
 * The answers a dispute records as sent (answersSent), sent again under their references: the acquirer answers
 * each its first result, so it acts once. Its change when the acquirer took one (the dispute under review, the
 * evidence dated when the merchant sent it, or lost as accepted), 'refused' when it took none, 'unknown' when
 * it still cannot be told.
 */
async function sendAgain(deps: CoreDeps, account: Account, d: DisputeRecord, now: number): Promise<DisputeChange | 'refused' | 'unknown'> {
  const ops = connectorFor(deps, account).disputes;
  if (!ops) return 'refused';
  const resent = await resendAnswers(deps, ops, d, answersSent(d), now);
  if (resent === 'unknown')
    deps.log.warn(
      { merchant_id: d.merchant_id, dispute_id: d.dispute_id },
      'dispute answer sent before its deadline: the acquirer still cannot be asked; asked again later',
    );
  return resent;
}

/** `open:<transaction_id>`: asks the payment's connector for its disputes and opens each new one. */
async function openStep(deps: CoreDeps, merchantId: string, member: string, transactionId: string, now: number): Promise<boolean> {
  const payment = await deps.store.getPayment(merchantId, transactionId);
  const account = payment && deps.merchants.find(merchantId, payment.account_id);
  const ops = account && connectorFor(deps, account).disputes;
  if (!payment || !account || !ops || !payment.connector_ref) {
    await deps.store.commit(dropMember(merchantId, member));
    return false;
  }
  let acted = false;
  for (const report of await ops.since(payment.connector_ref, capturedAt(payment))) {
    const result = await reportAcquirerDispute(deps, account, transactionId, report, now);
    if (result.kind === 'busy') {
      await deps.store.commit({ merchantId, due: [{ queue: 'dispute', member, at: now + BUSY_RETRY_MS }] });
      return acted;
    }
    if (result.kind === 'opened' || result.kind === 'moved') acted = true;
  }
  await deps.store.commit(dropMember(merchantId, member));
  return acted;
}

/** The dispute without the answers it kept as sent (the acquirer refused every one), in its own commit. */
function forgetSent(deps: CoreDeps, account: Account, payment: Payment, d: DisputeRecord, now: number) {
  return commitDisputeChange(deps, account, payment, { before: d, steps: [{ ...d, sent: undefined, sending: undefined }] }, now);
}

/**
 * Asks the payment's connector for the dispute as it stands at `now` and records its report through the same
 * path as a webhook's (reportAcquirerDispute): the sandbox's decisions (on evidence, an acceptance, a due date
 * passed unanswered, a decision it reverses later) come this way. An acquirer that reports by webhook answers
 * nothing, and the step is spent. Where the acquirer says when it moves the dispute next (askAgainAt), the
 * `decide:` step is due then.
 */
async function askAcquirer(
  deps: CoreDeps,
  account: Account,
  member: string,
  dispute: DisputeRecord,
  payment: Payment,
  now: number,
): Promise<boolean> {
  const merchantId = account.merchant_id;
  const ops = connectorFor(deps, account).disputes;
  const reports = ops && payment.connector_ref ? await ops.since(payment.connector_ref, capturedAt(payment)) : [];
  const report = reports.find((r) => r.disputeRef === dispute.acquirer_ref);
  if (!report) {
    await deps.store.commit(dropMember(merchantId, member));
    return false;
  }
  const result = await reportAcquirerDispute(deps, account, payment.transaction_id, report, now);
  if (result.kind === 'busy' || result.kind === 'unknown') {
    const at = now + (result.kind === 'busy' ? BUSY_RETRY_MS : RESEND_RETRY_MS);
    await deps.store.commit({ merchantId, due: [{ queue: 'dispute', member, at }] });
    return false;
  }
  if (result.kind === 'refused')
    deps.log.warn({ merchant_id: merchantId, dispute_id: dispute.dispute_id, why: result.why }, "acquirer's dispute report not applied");
  const decide = disputeStep.decide(dispute.dispute_id);
  const again = report.askAgainAt;
  const due: NonNullable<ChangeSet['due']> = [{ queue: 'dispute', member, at: member === decide ? (again ?? null) : null }];
  if (member !== decide && again !== undefined) due.push({ queue: 'dispute', member: decide, at: again });
  await deps.store.commit({ merchantId, due });
  return result.kind === 'moved' || result.kind === 'opened';
}

/** The live job of the dispute steps: the queue's members due at the clock's now. */
export function disputeStepsJob(deps: CoreDeps): BackgroundJob {
  return dueQueueJob(deps, {
    name: 'dispute-steps',
    intervalMs: 1_000,
    queue: 'dispute',
    batch: 50,
    handle: (merchantId, member) => runDisputeStep(deps, merchantId, member, deps.clock.now()),
  });
}

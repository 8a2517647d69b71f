import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { AcquirerEvent } from '../ports/acquirer-webhooks.js';
import { GatewayError } from '../kernel/errors.js';
import { reportAcquirerDispute } from '../disputes/report.js';
import { recordRefundFailedLater } from '../operations/refund-failed.js';
import { recordCaptureFailedLater } from '../operations/capture-failed.js';
import { isSettleable } from '../payments/claim.js';
import { resolveStaleClaim } from '../operations/stale-claim.js';
import { answerChallenge } from '../authorisation/authorise.js';
import { depsOnClockOf } from '../clocks/clock-deps.js';
import { releaseReportedApproval } from '../payments/reported-approval.js';
import { referenceKind, type AcquirerJournal } from './journal.js';

export type { AcquirerEvent };

export type EventResult = 'applied' | 'duplicate' | 'ignored';

/**
 * Applies an acquirer's event: its object and answer are kept in the connector's journal (where `status`
 * reads them), and a payment whose claim under that reference is stale is settled from it now, as recovery
 * would (late authorisation results settle claims). Applying is idempotent; the event id only saves the work
 * (and the log line) the second time.
 */
export async function applyAcquirerEvent(
  deps: CoreDeps,
  account: Account,
  journal: AcquirerJournal,
  event: AcquirerEvent,
): Promise<EventResult> {
  if (await journal.eventSeen(event.id)) return 'duplicate';
  const fields = { merchant_id: account.merchant_id, account_id: account.account_id, event_id: event.id, event_type: event.type };
  const named = event.reference ?? (event.paymentObject ? await journal.referenceOf(event.paymentObject) : undefined);
  // applied only to a payment of the account whose secret verified it: nothing of it is kept otherwise
  if (named !== undefined && !(await ownPayment(deps, account, named))) {
    deps.log.warn({ ...fields, reference: named }, 'acquirer event names no payment of this account: acknowledged, nothing recorded');
    await journal.markEvent(event.id);
    return 'ignored';
  }
  if (named && (event.dispute || event.refundFailed || event.captureFailed))
    return laterEvent(deps, account, journal, event, named, fields);
  if (!event.reference) {
    if (event.unhandled) deps.log.warn({ ...fields }, `acquirer event not acted on: ${event.unhandled}`);
    else deps.log.info(fields, 'acquirer event of a type the gateway does not use: acknowledged');
    await journal.markEvent(event.id);
    return 'ignored';
  }
  const reference = event.reference;
  if (event.object) await journal.object(reference, event.object);
  if (event.answer) {
    const first = await journal.answered(reference, event.answer);
    const afterChallenge = first.op === 'authorise' && first.outcome.kind === 'challenge' && event.alsoChallenge;
    if (!afterChallenge && JSON.stringify(first.outcome) !== JSON.stringify(event.answer.outcome))
      // the first word stands (a claim may have been settled from it): a later, different one is the operator's
      deps.log.warn(
        { ...fields, reference, first: first.outcome, later: event.answer.outcome },
        'acquirer event differs from its first answer',
      );
    const challenge = `${reference}-3ds`;
    if (event.alsoChallenge && (await journal.sentAt(challenge)) !== undefined) await journal.answered(challenge, event.answer);
  }
  if (event.unhandled) deps.log.warn({ ...fields, reference }, `acquirer event not acted on: ${event.unhandled}`);
  await settleStaleClaim(deps, account, reference);
  if (event.challengeDone && event.object) await settleWaitingChallenge(deps, account, reference, event.object);
  if (event.approved || (event.answer?.op === 'authorise' && event.answer.outcome.kind === 'approved'))
    await releaseReportedApproval(deps, account, reference);
  await journal.markEvent(event.id);
  deps.log.info({ ...fields, reference }, 'acquirer event applied');
  return 'applied';
}

/** True when `reference` names a payment of `account` (its merchant's store, its own account). */
async function ownPayment(deps: CoreDeps, account: Account, reference: string): Promise<boolean> {
  const payment = await deps.store.getPayment(account.merchant_id, referenceKind(reference).transactionId);
  return payment?.account_id === account.account_id;
}

/**
 * A later event at the acquirer about a payment the gateway settled: a dispute opened or moved (the disputes
 * core opens or moves the gateway's own, docs/disputes.md), or a refund failed after it was accepted (recorded on the
 * payment, notified). One the store cannot take now is thrown (a 503: the acquirer sends it again).
 */
async function laterEvent(
  deps: CoreDeps,
  account: Account,
  journal: AcquirerJournal,
  event: AcquirerEvent,
  reference: string,
  fields: Record<string, string>,
): Promise<EventResult> {
  const transactionId = referenceKind(reference).transactionId;
  let outcome: string;
  if (event.dispute) {
    const reported = await reportAcquirerDispute(deps, account, transactionId, event.dispute, deps.clock.now());
    if (reported.kind === 'busy') throw new GatewayError('STORE_UNAVAILABLE', 'the payment is busy; send the event again');
    if (reported.kind === 'unknown')
      throw new GatewayError(
        'OUTCOME_UNKNOWN',
        "the merchant's answer to this dispute is still unknown at the acquirer; send the event again",
      );
    outcome =
      reported.kind === 'refused' ? `dispute not applied: ${reported.why}` : `dispute ${reported.dispute.dispute_id} ${reported.kind}`;
  } else if (event.captureFailed) {
    const recorded = await recordCaptureFailedLater(deps, account, transactionId, event.captureFailed.reason);
    if (recorded === 'busy') throw new GatewayError('STORE_UNAVAILABLE', 'the payment is busy; send the event again');
    // a capture not recorded yet: the failure is its answer, which its claim reads
    if (recorded === 'not-recorded' && referenceKind(reference).op === 'capture')
      await answerItsClaim(deps, account, journal, reference, event);
    outcome =
      recorded === 'operator'
        ? `capture of ${transactionId} failed later (${event.captureFailed.reason}), after the payment was refunded or disputed: the operator settles it with the acquirer`
        : `capture of ${transactionId} failed later: ${recorded}`;
  } else {
    const recorded = await recordRefundFailedLater(deps, account, transactionId, reference, event.refundFailed!.reason);
    if (recorded === 'busy') throw new GatewayError('STORE_UNAVAILABLE', 'the payment is busy; send the event again');
    // a refund not recorded as accepted yet: the failure is its answer, which its claim reads
    if (recorded === 'not-recorded') await answerItsClaim(deps, account, journal, reference, event);
    outcome = `refund ${reference} failed later: ${recorded}`;
  }
  await journal.markEvent(event.id);
  deps.log.warn({ ...fields, reference }, `acquirer event applied: ${outcome}`);
  return 'applied';
}

/**
 * A later failure of an operation the gateway has not recorded yet: the failure is kept as the acquirer's
 * answer under its reference, which the operation's claim reads (settled now when stale).
 */
async function answerItsClaim(
  deps: CoreDeps,
  account: Account,
  journal: AcquirerJournal,
  reference: string,
  event: AcquirerEvent,
): Promise<void> {
  if (!event.answer) return;
  await journal.answered(reference, event.answer);
  await settleStaleClaim(deps, account, reference);
}

/**
 * The payment the reference belongs to, settled now when its claim is stale or awaits the acquirer's later
 * decision (a live holder records it itself).
 */
async function settleStaleClaim(deps: CoreDeps, account: Account, reference: string): Promise<void> {
  const payment = await deps.store.getPayment(account.merchant_id, referenceKind(reference).transactionId);
  if (!payment?.claim || payment.account_id !== account.account_id) return;
  if (!isSettleable(payment.claim, deps.clock.now())) return;
  await resolveStaleClaim(deps, account, payment);
}

/**
 * The payment of `reference` still waiting on its challenge at the acquirer's object `object`, settled from the
 * acquirer now (the shopper answered on the acquirer's page and may never come back): the same answer as their
 * return, which then finds it settled. One answered, failed or ended meanwhile is left as it is.
 */
async function settleWaitingChallenge(deps: CoreDeps, account: Account, reference: string, object: string): Promise<void> {
  const payment = await deps.store.getPayment(account.merchant_id, referenceKind(reference).transactionId);
  if (!payment || payment.account_id !== account.account_id) return;
  if (!payment.threeds.challenge_pending || payment.connector_ref !== object) return;
  await answerChallenge((await depsOnClockOf(deps, account.merchant_id, payment)) ?? deps, account, payment, '');
}

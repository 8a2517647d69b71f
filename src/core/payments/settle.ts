import { randomBytes } from 'node:crypto';
import { GatewayError } from '../kernel/errors.js';
import { outcomeUnknown } from './ask.js';
import { awaitingClaim, commitMarked, outcomeMark, resolveDue, withoutClaim } from './claim.js';
import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Contract } from '../records/contract.js';
import type { NotifyType } from '../notifications/outbox.js';
import type { AuthorisationOutcome, DeclineReason } from '../ports/card-connector.js';
import type { ChangeSet } from '../ports/store.js';
import { PaymentStatus as S, type Payment, type PaymentStatus } from '../records/payment.js';
import { moveTo } from './transitions.js';
import { RESULT, type ResultKey } from '../kernel/result-codes.js';
import { paymentNotification } from '../notifications/outbox.js';
import { contractOnApproval } from '../records/contract.js';
import { approvalCounters, recordSettled } from './measure.js';
import { savedCardOf } from '../records/saved-card-record.js';
import { disputeWatchOnCapture } from '../disputes/watch.js';
import { openDisputesNow } from '../disputes/steps.js';
import { releaseLateApproval } from './late-approval.js';

export interface PaymentResult {
  payment: Payment;
  contract?: Contract | undefined;
  /** the hosted challenge address, while a 3-D Secure challenge waits */
  issuerUrl?: string;
  /** true when this answer repeats an earlier outcome (same order_no, same request) */
  replayed: boolean;
}

/** `notSent`: recovery found no record at the acquirer: the authorisation was never sent (payment.never_sent). */
export type SettleOutcome = AuthorisationOutcome | { kind: 'rejected' } | { kind: 'error'; message: string; notSent: true };

const DECLINE_RESULT: Record<DeclineReason, ResultKey> = {
  DECLINED: 'DECLINED',
  INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
  EXPIRED_CARD: 'EXPIRED_CARD',
  THREEDS_FAILED: 'THREEDS_FAILED',
  SUSPECTED_FRAUD: 'SUSPECTED_FRAUD',
};

/** A 3-D Secure challenge the shopper has not answered this long after it began fails (challenge-expiry.ts). */
export const CHALLENGE_WINDOW_MS = 30 * 60_000;

export function issuerUrl(baseUrl: string, p: Payment): string {
  return `${baseUrl}/v1/3ds/${encodeURIComponent(p.merchant_id)}/${encodeURIComponent(p.transaction_id)}/${p.threeds.challenge_secret}`;
}

/** Where an acquirer's own challenge page sends the shopper back (the challenge route's `/return`). */
export function challengeReturnUrl(baseUrl: string, p: Payment): string {
  return `${issuerUrl(baseUrl, p)}/return`;
}

/** The secret part of a challenge's addresses. */
export function newChallengeSecret(): string {
  return randomBytes(18).toString('base64url');
}

/** Status, result and extra fields that an authorisation outcome leads to (also for recurring charges). */
export function authorisationState(
  account: Account,
  p: Payment,
  outcome: SettleOutcome,
  now: number,
): { status: PaymentStatus; result: ResultKey; changes: Partial<Payment> } {
  switch (outcome.kind) {
    case 'rejected':
      return { status: S.REJECTED, result: 'RISK_REJECTED', changes: { threeds: { ...p.threeds, result: 'not performed' } } };
    case 'error': {
      const threeds = { ...p.threeds, challenge_pending: false };
      if ('notSent' in outcome) return { status: S.DECLINED, result: 'CONNECTOR_ERROR', changes: { threeds, never_sent: true } };
      return { status: S.DECLINED, result: 'CONNECTOR_ERROR', changes: { threeds } };
    }
    case 'declined': {
      const status = outcome.reason === 'THREEDS_FAILED' ? S.THREEDS_FAILED : S.DECLINED;
      return {
        status,
        result: DECLINE_RESULT[outcome.reason],
        changes: {
          connector_ref: outcome.connectorRef,
          threeds: { ...p.threeds, challenge_pending: false, result: outcome.threedsResult },
        },
      };
    }
    case 'approved': {
      // each change set written out whole: V8 gives a spread copy that adds a field (`{ ...base, captured }`)
      // a new hidden class, about ten times the price of the literal
      const connector_ref = outcome.connectorRef;
      const threeds = { ...p.threeds, challenge_pending: false, result: outcome.threedsResult };
      // a held authorisation lapses at the end of the same window as an authorised one (expiry.ts)
      const auth_expires_at = now + account.auth_window_days * 86_400_000;
      if (p.risk.action === 'REVIEW')
        return { status: S.HELD, result: 'HELD_FOR_REVIEW', changes: { connector_ref, threeds, auth_expires_at } };
      if (account.capture_mode === 'auto')
        return { status: S.CAPTURED, result: 'SUCCESS', changes: { connector_ref, threeds, captured: p.amount } };
      return { status: S.AUTHORISED, result: 'SUCCESS', changes: { connector_ref, threeds, auth_expires_at } };
    }
    case 'challenge':
    case 'pending':
      throw new Error(`a ${outcome.kind} is not a settled outcome`);
  }
}

/**
 * Records an authorisation outcome in one atomic step: the payment's new status, its contract, the card kept
 * or dropped, the expiry queue, the notification and the release of the claim under which the acquirer was
 * asked (`payment` is the claimed payment as read). A payment that moved meanwhile is answered as it is; a
 * commit whose fate the store cannot tell leaves the claim for recovery and answers "try again".
 */
export async function settleAuthorisation(
  deps: CoreDeps,
  account: Account,
  payment: Payment,
  outcome: SettleOutcome,
  notifyType: NotifyType,
  /** the acquirer's record of this outcome, written in the same commit (CardConnector.authoriseInCommit) */
  acquirerRecord?: { reference: string; data: string },
): Promise<PaymentResult> {
  const now = deps.clock.now();
  const m = account.merchant_id;
  const change: ChangeSet = { merchantId: m, due: payment.claim ? [resolveDue(payment.transaction_id, null)] : [] };
  if (acquirerRecord) change.acquirerRecords = [acquirerRecord];
  let mark = payment.claim ? outcomeMark(payment.claim) : `${deps.ids.opaque('settle')}:done`;
  let next: Payment;
  let contract: Contract | undefined;

  if (outcome.kind === 'pending') {
    // the acquirer decides later: the payment stays pending under the same intent, awaiting its word (no
    // notification: nothing is final yet), and a challenge it answered no longer waits on the shopper
    if (!payment.claim) throw new Error('a pending outcome is recorded under the claim it was asked under');
    const claim = awaitingClaim(deps, payment.claim, now);
    mark = `${claim.id}:awaiting`;
    next = {
      ...payment,
      claim,
      connector_ref: outcome.connectorRef,
      result_code: RESULT.PENDING[0],
      threeds: { ...payment.threeds, challenge_pending: false },
      updated_at: now,
    };
    change.due = [resolveDue(payment.transaction_id, claim.until)];
    if (payment.threeds.challenge_pending) change.due.push({ queue: 'threeds_challenge', member: payment.transaction_id, at: null });
  } else if (outcome.kind === 'challenge') {
    next = {
      ...withoutClaim(payment),
      connector_ref: outcome.connectorRef,
      result_code: RESULT.PENDING_3DS[0],
      threeds: {
        ...payment.threeds,
        challenge_pending: true,
        result: 'challenge required',
        // made before the acquirer was asked when it runs its own challenge page (its return address has it)
        challenge_secret: payment.threeds.challenge_secret ?? newChallengeSecret(),
        ...(outcome.redirectUrl ? { acquirer_url: outcome.redirectUrl } : {}),
      },
      updated_at: now,
    };
    // an unanswered challenge fails after CHALLENGE_WINDOW_MS: every payment gets a final outcome
    change.due!.push({ queue: 'threeds_challenge', member: payment.transaction_id, at: now + CHALLENGE_WINDOW_MS });
  } else {
    const { status, result, changes } = authorisationState(account, payment, outcome, now);
    // the new field first, then the spread (the other order is the slow copy above)
    const move = moveTo(withoutClaim(payment), status, now, { result_code: RESULT[result][0], ...changes });
    if (!move.ok) return { payment, replayed: true };
    next = move.payment;
    const approved = status === S.AUTHORISED || status === S.CAPTURED;
    if (status === S.AUTHORISED || status === S.HELD)
      change.due!.push({ queue: 'auth_expiry', member: next.transaction_id, at: next.auth_expires_at! });
    if (status === S.CAPTURED) change.due!.push(...disputeWatchOnCapture(deps, account, next, now));
    const made = approved ? contractOnApproval(next, deps.ids.recurringId, now) : undefined;
    if (made) {
      next = made.payment;
      contract = made.contract;
      change.contracts = [{ next: made.contract, expected: 0 }];
      change.due = [...(change.due ?? []), ...made.due];
    }
    const failed = !approved && status !== S.HELD;
    if (failed && next.vault_created && next.vault_token) {
      change.dropCards = [next.vault_token];
      const { token_id: _t, vault_token: _v, ...rest } = next;
      next = rest as Payment;
    }
    if (next.save_card && !next.save_card.card_id) next = keepOrDropSavedCard(deps, change, next, approved, now);
    if (payment.threeds.challenge_pending)
      change.due = [...(change.due ?? []), { queue: 'threeds_challenge', member: payment.transaction_id, at: null }];
    change.outbox = paymentNotification(deps, account, notifyType, next).map((o) => ({ next: o, expected: 0 }));
    const counters = approvalCounters(next);
    if (counters) change.counters = [counters];
  }
  next = { ...next, written_by: mark };
  change.payments = [{ next, expected: payment.version }];
  const verdict = await commitMarked(deps, change, payment.transaction_id, mark);
  if (verdict === 'unknown') {
    deps.log.error(
      { transaction_id: payment.transaction_id, merchant_id: m },
      'authorisation outcome not recorded yet; recovery records it',
    );
    // the payment is stored with its claim: not "nothing was written" (STORE_UNAVAILABLE), but an outcome the
    // merchant learns by asking again with the same order_no
    throw new GatewayError('OUTCOME_UNKNOWN', 'the outcome could not be recorded yet; ask again with the same order_no', undefined, 5);
  }
  if (verdict === 'conflict') {
    const current = (await deps.store.getPayment(m, payment.transaction_id)) ?? payment;
    if (acquirerRecord) {
      // the acquirer's record was not written either: it did nothing. Were the payment still as read, the
      // conflict was a record already under the reference (which this claim cannot have made): the outcome is
      // the acquirer's, left to recovery, which reads it
      if (current.version === payment.version) throw outcomeUnknown(deps, payment);
    } else if (outcome.kind === 'approved') await releaseLateApproval(deps, account, current, outcome.connectorRef);
    const currentContract = current.recurring_id ? await deps.store.getContract(m, current.recurring_id) : undefined;
    return { payment: current, contract: currentContract, replayed: true };
  }
  next = { ...next, version: payment.version + 1 };
  if (contract) contract = { ...contract, version: 1 };
  // a dispute opened with the capture wrote the payment again: answered as it now stands
  if (next.status === S.CAPTURED && (await openDisputesNow(deps, m, change.due)))
    next = (await deps.store.getPayment(m, next.transaction_id).catch(() => undefined)) ?? next;
  if (outcome.kind !== 'challenge' && outcome.kind !== 'pending') recordSettled(deps, next);
  deps.log.debug(
    { transaction_id: next.transaction_id, merchant_id: m, status: next.status, result_code: next.result_code },
    'payment settled',
  );
  return outcome.kind === 'challenge'
    ? { payment: next, issuerUrl: issuerUrl(deps.baseUrl, next), replayed: false }
    : { payment: next, contract, replayed: false };
}

/**
 * The card the shopper asked to save (docs/checkout.md#saved-cards-for-returning-shoppers): recorded as a saved card when the payment is approved; with
 * any other outcome (declined, failed, held for review) its vault token is dropped and nothing is saved.
 */
function keepOrDropSavedCard(deps: CoreDeps, change: ChangeSet, p: Payment, approved: boolean, now: number): Payment {
  const save = p.save_card!;
  if (approved) {
    const cardId = deps.ids.opaque('card');
    change.savedCards = [savedCardOf(p, save, cardId, now)];
    return { ...p, save_card: { ...save, card_id: cardId } };
  }
  change.dropCards = [...(change.dropCards ?? []), save.token];
  const { save_card: _s, ...rest } = p;
  return rest as Payment;
}

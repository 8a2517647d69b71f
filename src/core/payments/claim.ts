import type { CoreDeps } from '../ports/deps.js';
import type { ChangeSet } from '../ports/store.js';
import type { ClaimOp, Payment, PaymentClaim } from '../records/payment.js';
import { GatewayError } from '../kernel/errors.js';
import { pause } from '../kernel/clock.js';

/**
 * The one claim rule (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery). Every flow that moves a payment at the acquirer first writes a claim on the
 * payment (a versioned commit) recording its intent: the operation, the acquirer reference, the amount and the
 * plan. Only then is the connector asked, and the outcome is committed together with the claim's release.
 * Another flow that finds a live claim waits for it; one that finds a stale claim (its holder crashed or
 * stalled) resumes that intent (asks the acquirer what happened under the reference, or repeats the call with
 * the same reference), never plans a new one over it.
 */
export type { ClaimOp, PaymentClaim };

/**
 * References derived from the operation, not the attempt: a retry is the same operation to the acquirer. A
 * hosted checkout's second card after a decline (authorisation/retry.ts) is another authorisation, so its attempt
 * number (2, 3, ...) is part of its references; the first attempt's references carry none.
 */
export const acquirerReference = {
  authorise: (transactionId: string, attempt = 1): string => (attempt > 1 ? `${transactionId}-a${attempt}` : transactionId),
  challenge: (transactionId: string, attempt = 1): string => `${acquirerReference.authorise(transactionId, attempt)}-3ds`,
  capture: (transactionId: string): string => `${transactionId}-cap`,
  /** cancel, expiry, a review's rejection and a skipped charge all void the one authorisation */
  void: (transactionId: string): string => `${transactionId}-void`,
  /**
   * a challenge the gateway ends, ended at the acquirer too (CardConnector.endChallenge): the void of that
   * attempt's authorisation (the first attempt's is `void` above: the same operation on the same authorisation)
   */
  endChallenge: (transactionId: string, attempt = 1): string => `${acquirerReference.authorise(transactionId, attempt)}-void`,
  /** refund_reference_id, `<transaction_id>-NN` */
  refund: (refundReferenceId: string): string => refundReferenceId,
};

export interface ClaimIntent {
  op: ClaimOp;
  reference: string;
  amount?: number;
  plan?: unknown;
}

export function newClaim(deps: CoreDeps, intent: ClaimIntent, now: number): PaymentClaim {
  return { id: deps.ids.opaque('claim'), ...intent, at: now, until: now + deps.pendingResolveMs };
}

export function isStale(claim: PaymentClaim, now: number): boolean {
  return claim.until <= now;
}

/**
 * True when no process acts under the claim any more: stale (its holder crashed or stalled), or awaiting the
 * acquirer's later decision (a pending outcome). Such a claim is settled from the acquirer's record by whoever
 * learns it first: recovery, or the acquirer's webhook.
 */
export function isSettleable(claim: PaymentClaim, now: number): boolean {
  return claim.awaiting === true || isStale(claim, now);
}

/** The longest wait between two reads of a pending outcome at the acquirer. */
const AWAIT_MAX_MS = 3_600_000;

/**
 * The claim kept while the acquirer decides later (a pending outcome): the same intent under a new id (so the
 * commit of its final outcome is told apart from this one), marked awaiting, read again at `until`: one resolve
 * period after the first answer, then half the time waited so far, at most an hour apart.
 */
export function awaitingClaim(deps: CoreDeps, claim: PaymentClaim, now: number): PaymentClaim {
  const waited = now - claim.at;
  const gap = Math.min(AWAIT_MAX_MS, Math.max(deps.pendingResolveMs, Math.floor(waited / 2)));
  return { ...claim, id: deps.ids.opaque('claim'), awaiting: true, until: now + gap };
}

/**
 * The payment without its claim. A spread with the claim set to undefined, not a rest destructuring: V8 copies
 * a rest-with-exclusion property by property (about 4 µs for a payment, 20 times a spread), and this runs
 * several times for every order of a batch. JSON leaves the undefined field out, so what is stored is the same.
 */
export function withoutClaim(p: Payment): Payment {
  return { ...p, claim: undefined };
}

/** The recovery queue entry that goes with a claim (at: null removes it with the claim). */
export function resolveDue(transactionId: string, at: number | null): NonNullable<ChangeSet['due']>[number] {
  return { queue: 'pending_resolve', member: transactionId, at };
}

/** The mark an outcome commit leaves on the payment, so a commit whose answer was lost can be recognised. */
export function outcomeMark(claim: PaymentClaim): string {
  return `${claim.id}:done`;
}

export type CommitVerdict = 'applied' | 'conflict' | 'unknown';

/**
 * Commits a change that writes `transactionId` with `mark` in `written_by`. A commit that throws (a timeout, a
 * dropped connection) may have been applied: the payment is read again before deciding, and a commit found
 * not applied is tried again. 'unknown' when the store cannot tell: the claim stays, and recovery finishes it.
 */
export async function commitMarked(deps: CoreDeps, change: ChangeSet, transactionId: string, mark: string): Promise<CommitVerdict> {
  const verdict = await commitMarkedTold(deps, change, transactionId, mark);
  return verdict === 'unwritten' ? 'unknown' : verdict;
}

/** A store error that says the change was never applied (not sent, or refused whole): STORE_UNAVAILABLE. */
const wroteNothing = (err: unknown): boolean => err instanceof GatewayError && err.code === 'STORE_UNAVAILABLE';

/**
 * commitMarked, telling apart a change the store surely did not write ('unwritten': every attempt failed
 * before the store could apply it) from one whose outcome it cannot tell ('unknown'). Only 'unwritten' may be
 * answered as "nothing was written" (STORE_UNAVAILABLE, docs/error-codes.md).
 */
export async function commitMarkedTold(
  deps: CoreDeps,
  change: ChangeSet,
  transactionId: string,
  mark: string,
): Promise<CommitVerdict | 'unwritten'> {
  const landed = async (): Promise<boolean> => (await deps.store.getPayment(change.merchantId, transactionId))?.written_by === mark;
  let mayHaveApplied = false;
  try {
    if (await deps.store.commit(change)) return 'applied';
    return (await landed()) ? 'applied' : 'conflict';
  } catch (err) {
    mayHaveApplied ||= !wroteNothing(err);
    deps.log.warn({ transaction_id: transactionId, err: { message: (err as Error).message } }, 'commit failed; reading back');
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    await pause(deps.clock, 25 * attempt);
    let committing = false;
    try {
      if (await landed()) return 'applied';
      committing = true;
      if (await deps.store.commit(change)) return 'applied';
      committing = false;
      return (await landed()) ? 'applied' : 'conflict';
    } catch (err) {
      // still not answering: try again, then leave it to recovery
      if (committing) mayHaveApplied ||= !wroteNothing(err);
    }
  }
  return mayHaveApplied ? 'unknown' : 'unwritten';
}

/**
 * Releases a claim under which nothing was recorded at the acquirer: `base` (the payment as it stands
 * without the claim) is written back, marked, and leaves the recovery queue. The payment answered is the
 * released one when the commit landed, `base` otherwise.
 */
export async function releaseClaim(
  deps: CoreDeps,
  claimed: Payment,
  base: Payment = withoutClaim(claimed),
): Promise<{ verdict: CommitVerdict; payment: Payment }> {
  const released: Payment = { ...base, written_by: outcomeMark(claimed.claim!) };
  const verdict = await commitMarked(
    deps,
    {
      merchantId: claimed.merchant_id,
      payments: [{ next: released, expected: claimed.version }],
      due: [resolveDue(claimed.transaction_id, null)],
    },
    claimed.transaction_id,
    released.written_by!,
  );
  return { verdict, payment: verdict === 'applied' ? { ...released, version: claimed.version + 1 } : base };
}

/** How long a flow waits for another's live claim before answering "busy" (real time). */
export const CLAIM_WAIT_MS = 10_000;

export type TakeResult<R> =
  | { kind: 'claimed'; payment: Payment }
  | { kind: 'refused'; refusal: R; payment: Payment }
  | { kind: 'missing' }
  | { kind: 'busy'; payment: Payment };

/**
 * Takes the claim on a payment for the intent `decide` returns (or its refusal). A live claim is waited for;
 * a stale one is first resumed by `resumeStale` (its holder's intent is finished), then the payment is read
 * again. The claim and its recovery entry are written in one versioned commit.
 */
export async function takeClaim<R>(
  deps: CoreDeps,
  merchantId: string,
  transactionId: string,
  decide: (p: Payment, now: number) => { intent: ClaimIntent } | { refusal: R } | 'missing',
  resumeStale: (p: Payment) => Promise<void>,
  waitMs = CLAIM_WAIT_MS,
): Promise<TakeResult<R>> {
  // time waited, counted on the clock's own sleeps (real time in production, simulated time in a seeded run)
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    const p = await deps.store.getPayment(merchantId, transactionId);
    if (!p) return { kind: 'missing' };
    const now = deps.clock.now();
    if (p.claim && isStale(p.claim, now)) {
      await resumeStale(p);
      if (waited > waitMs) return { kind: 'busy', payment: p };
      // the stale claim could not be resolved yet (the acquirer or the store did not answer): not in a spin
      const gap = Math.min(2 + attempt * 2, 40);
      await pause(deps.clock, gap, 8);
      waited += gap;
      continue;
    }
    if (p.claim?.awaiting) {
      // no process acts under it: the acquirer decides later, so waiting here would not see it end. Refused at
      // once where the move is refused anyway (a capture or cancel of a payment still processing), else busy
      const decided = decide(p, now);
      if (decided === 'missing') return { kind: 'missing' };
      return 'refusal' in decided ? { kind: 'refused', refusal: decided.refusal, payment: p } : { kind: 'busy', payment: p };
    }
    if (!p.claim) {
      const decided = decide(p, now);
      if (decided === 'missing') return { kind: 'missing' };
      if ('refusal' in decided) return { kind: 'refused', refusal: decided.refusal, payment: p };
      const claim = newClaim(deps, decided.intent, now);
      const next: Payment = { ...p, claim, written_by: `${claim.id}:claim` };
      const verdict = await commitMarkedTold(
        deps,
        { merchantId, payments: [{ next, expected: p.version }], due: [resolveDue(transactionId, claim.until)] },
        transactionId,
        next.written_by!,
      );
      if (verdict === 'applied') return { kind: 'claimed', payment: { ...next, version: p.version + 1 } };
      // the claim was surely not written: nothing changed (a batch order's V5003)
      if (verdict === 'unwritten')
        throw new GatewayError('STORE_UNAVAILABLE', 'the store did not take the claim; nothing was changed; try again');
      // the store cannot say whether the claim was written: nothing was asked of the acquirer yet, but a claim
      // that was written is finished by recovery, so this is not "nothing changed" (a batch order's V5002)
      if (verdict === 'unknown')
        throw new GatewayError('OUTCOME_UNKNOWN', 'the store did not confirm the claim; recovery finishes the operation if it was written');
    }
    if (waited > waitMs) return { kind: 'busy', payment: p };
    const gap = Math.min(2 + attempt * 2, 40);
    await pause(deps.clock, gap, 8);
    waited += gap;
  }
}

/** The operation a reference names (acquirerReference): the suffix tells it, the rest is the payment. */
export function referenceKind(reference: string): { op: 'authorise' | 'challenge' | 'capture' | 'void' | 'refund'; transactionId: string } {
  const m = /^(.*)-(3ds|cap|void|\d{2,})$/.exec(reference);
  // a checkout's later attempt (`-a2`) authorises the same payment
  const payment = (ref: string): string => ref.replace(/-a\d+$/, '');
  if (!m) return { op: 'authorise', transactionId: payment(reference) };
  const op = m[2] === '3ds' ? 'challenge' : m[2] === 'cap' ? 'capture' : m[2] === 'void' ? 'void' : 'refund';
  return { op, transactionId: payment(m[1]!) };
}

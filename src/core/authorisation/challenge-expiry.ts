import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import { resolveStaleClaim } from '../operations/stale-claim.js';
import { PaymentStatus as S, type Payment } from '../records/payment.js';
import { acquirerReference, takeClaim } from '../payments/claim.js';
import { settleAuthorisation, type PaymentResult } from '../payments/settle.js';
import type { Account } from '../records/directory.js';
import type { AuthorisationOutcome } from '../ports/card-connector.js';
import { connectorFor } from '../ports/connector.js';
import { CHALLENGE_EXPIRED, endChallengeAtAcquirer } from '../payments/recovery.js';

/**
 * Fails challenges still unanswered CHALLENGE_WINDOW_MS (settle.ts) after they began: 4300 with its
 * notification, so every payment reaches a final outcome. The sweep takes the payment's claim like every other
 * flow: an answer in progress is waited for, and an answer the acquirer approved but the gateway did not
 * record (its process died) is recorded as approved, never failed over an approval.
 */
export function challengeExpiryJob(deps: CoreDeps): BackgroundJob {
  return dueQueueJob(deps, {
    name: 'threeds-challenge-expiry',
    intervalMs: 30_000,
    queue: 'threeds_challenge',
    batch: 100,
    handle: (m, member) => failUnansweredChallenge(deps, m, member),
  });
}

const waiting = (p: Payment): boolean => p.status === S.PENDING && p.threeds.challenge_pending;

/** The outcome of a challenge the shopper gave up on the challenge page (its cancel button). */
export const CHALLENGE_ABANDONED = {
  ...CHALLENGE_EXPIRED,
  threedsResult: 'authentication not completed (cancelled by the shopper)',
} as const;

async function failUnansweredChallenge(deps: CoreDeps, m: string, member: string): Promise<boolean> {
  const p = await deps.store.getPayment(m, member);
  const account = p && deps.merchants.find(m, p.account_id);
  if (p && account && waiting(p)) {
    const failed = await failChallenge(deps, account, p, CHALLENGE_EXPIRED, 0);
    if (failed === 'busy') return false; // an answer holds it: the next run looks again
    if (failed) {
      if (failed.payment.threeds.challenge_pending) return false;
      await deps.store.commit({ merchantId: m, due: [{ queue: 'threeds_challenge', member, at: null }] });
      return !failed.replayed;
    }
  }
  await deps.store.commit({ merchantId: m, due: [{ queue: 'threeds_challenge', member, at: null }] });
  return false;
}

/**
 * Ends a challenge without the shopper's answer (expired, or abandoned on the challenge page) under the
 * payment's claim: 4300 with its notification, unless the acquirer recorded an answer meanwhile (then that
 * answer is recorded). undefined: the challenge was no longer waiting; 'busy': another flow holds the claim.
 */
export async function failChallenge(
  deps: CoreDeps,
  account: Account,
  p: Payment,
  why: typeof CHALLENGE_EXPIRED | typeof CHALLENGE_ABANDONED,
  waitMs?: number,
): Promise<PaymentResult | 'busy' | undefined> {
  const taken = await takeClaim<'moved'>(
    deps,
    p.merchant_id,
    p.transaction_id,
    (cur) =>
      waiting(cur)
        ? { intent: { op: 'challenge_expiry', reference: acquirerReference.challenge(cur.transaction_id, cur.attempt) } }
        : { refusal: 'moved' },
    (stale) => resolveStaleClaim(deps, account, stale),
    waitMs,
  );
  if (taken.kind === 'busy') return 'busy';
  if (taken.kind !== 'claimed') return undefined;
  const claimed = taken.payment;
  const connector = connectorFor(deps, account);
  let answered: AuthorisationOutcome | undefined;
  try {
    // an acquirer that ends challenges itself reads the answer given meanwhile as it ends it (recovery.ts)
    const status = connector.endChallenge ? undefined : await connector.status(claimed.claim!.reference);
    answered =
      status?.op === 'authorise' && status.outcome.kind !== 'challenge' ? status.outcome : await endChallengeAtAcquirer(connector, claimed);
  } catch (err) {
    // what the acquirer did is unknown: never failed over it. The claim stays; once stale, recovery ends the
    // challenge the same way (payments/recovery.ts), and the sweep looks again
    deps.log.warn(
      { transaction_id: claimed.transaction_id, merchant_id: claimed.merchant_id, err: { message: (err as Error).message } },
      'challenge not ended: the acquirer did not answer',
    );
    return 'busy';
  }
  return settleAuthorisation(deps, account, claimed, answered ?? { ...why, connectorRef: claimed.connector_ref ?? '' }, 'threeds');
}

import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../jobs/due-queue.js';
import { resolveStaleClaim } from '../operations/stale-claim.js';
import { PaymentStatus as S, type Payment } from './payment.js';
import { acquirerReference, takeClaim } from './claim.js';
import { settleAuthorisation } from './settle.js';
import { connectorFor } from './connector.js';
import { CHALLENGE_EXPIRED } from './recovery.js';

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

async function failUnansweredChallenge(deps: CoreDeps, m: string, member: string): Promise<boolean> {
  const p = await deps.store.getPayment(m, member);
  const account = p && deps.merchants.find(m, p.account_id);
  if (p && account && waiting(p)) {
    const taken = await takeClaim<'moved'>(
      deps,
      m,
      member,
      (cur) =>
        waiting(cur)
          ? { intent: { op: 'challenge_expiry', reference: acquirerReference.challenge(cur.transaction_id) } }
          : { refusal: 'moved' },
      (stale) => resolveStaleClaim(deps, account, stale),
      0,
    );
    if (taken.kind === 'busy') return false; // an answer holds it: the next run looks again
    if (taken.kind === 'claimed') {
      const status = await connectorFor(deps, account).status(taken.payment.claim!.reference);
      const outcome =
        status?.op === 'authorise' && status.outcome.kind !== 'challenge'
          ? status.outcome
          : { ...CHALLENGE_EXPIRED, connectorRef: taken.payment.connector_ref ?? '' };
      const result = await settleAuthorisation(deps, account, taken.payment, outcome, 'threeds');
      if (result.payment.threeds.challenge_pending) return false;
      await deps.store.commit({ merchantId: m, due: [{ queue: 'threeds_challenge', member, at: null }] });
      return !result.replayed;
    }
  }
  await deps.store.commit({ merchantId: m, due: [{ queue: 'threeds_challenge', member, at: null }] });
  return false;
}

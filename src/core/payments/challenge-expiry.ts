import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../jobs/due-queue.js';
import { PaymentStatus as S } from './payment.js';
import { settleAuthorisation } from './settle.js';

/**
 * Fails challenges still unanswered CHALLENGE_WINDOW_MS (settle.ts) after they began: 4300 with its
 * notification, so every payment reaches a final outcome. The versioned commit decides a race with a late answer.
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

async function failUnansweredChallenge(deps: CoreDeps, m: string, member: string): Promise<boolean> {
  const p = await deps.store.getPayment(m, member);
  const account = p && deps.merchants.find(m, p.account_id);
  let handled = false;
  if (p && account && p.status === S.PENDING && p.threeds.challenge_pending) {
    const outcome = {
      kind: 'declined',
      reason: 'THREEDS_FAILED',
      connectorRef: p.connector_ref ?? '',
      threedsResult: 'authentication not completed (challenge expired)',
    } as const;
    const result = await settleAuthorisation(deps, account, p, outcome, 'threeds');
    handled = !result.replayed;
    if (result.payment.threeds.challenge_pending) return handled; // moved meanwhile: the next run looks again
  }
  await deps.store.commit({ merchantId: m, due: [{ queue: 'threeds_challenge', member, at: null }] });
  return handled;
}

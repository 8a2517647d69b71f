import type { CoreDeps } from '../context.js';
import type { BackgroundJob } from '../jobs.js';
import { PaymentStatus as S } from '../payment.js';
import { settleAuthorisation } from './settle.js';

const BATCH = 100;

/**
 * Fails challenges still unanswered CHALLENGE_WINDOW_MS (settle.ts) after they began: 4300 with its
 * notification, so every payment reaches a final outcome. The versioned commit decides a race with a late answer.
 */
export function challengeExpiryJob(deps: CoreDeps): BackgroundJob {
  return {
    name: 'threeds-challenge-expiry',
    intervalMs: 30_000,
    async runOnce(): Promise<number> {
      let handled = 0;
      for (const m of deps.merchants.merchantIds()) {
        const now = deps.clock.now();
        for (const { member } of await deps.store.due(m, 'threeds_challenge', now, BATCH)) {
          const p = await deps.store.getPayment(m, member);
          const account = p && deps.merchants.find(m, p.account_id);
          if (p && account && p.status === S.PENDING && p.threeds.challenge_pending) {
            const outcome = {
              kind: 'declined',
              reason: 'THREEDS_FAILED',
              connectorRef: p.connector_ref ?? '',
              threedsResult: 'authentication not completed (challenge expired)',
            } as const;
            const result = await settleAuthorisation(deps, account, p, outcome, 'threeds');
            if (!result.replayed) handled++;
            if (result.payment.threeds.challenge_pending) continue; // moved meanwhile: the next run looks again
          }
          await deps.store.commit({ merchantId: m, due: [{ queue: 'threeds_challenge', member, at: null }] });
        }
      }
      return handled;
    },
  };
}

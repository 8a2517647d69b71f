import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import { isSettleable, releaseClaim } from '../payments/claim.js';
import { resolveAuthorisationClaim } from '../payments/recovery.js';
import { isOperationClaim, resumeOperationClaim } from './resume.js';

/**
 * Resolves a payment's stale claim (or one awaiting the acquirer's later decision), whatever flow left it: the
 * authorisation flows through the acquirer's record (payments/recovery.ts), follow-up operations by finishing
 * their recorded plan (operations/resume.ts). A subscription charge's claim is the scheduler's to resume
 * (subscriptions/charges.ts), under its lease.
 */
export async function resolveStaleClaim(deps: CoreDeps, account: Account, p: Payment): Promise<void> {
  const claim = p.claim;
  if (!claim || !isSettleable(claim, deps.clock.now())) return;
  if (isOperationClaim(claim.op)) await resumeOperationClaim(deps, account, p);
  else if (claim.op === 'authorise' || claim.op === 'challenge' || claim.op === 'challenge_expiry')
    await resolveAuthorisationClaim(deps, account, p);
  else if (claim.op !== 'charge') {
    // a claim without a recorded intent (written before intents were recorded): nothing to resume, release it
    await releaseClaim(deps, p);
  }
}

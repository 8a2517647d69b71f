import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../merchants/directory.js';
import { PaymentStatus as S, type Payment } from '../payments/payment.js';
import { isStale, releaseClaim } from '../payments/claim.js';
import { resolveAuthorisationClaim } from '../payments/recovery.js';
import { isOperationClaim, resumeOperationClaim } from '../operations/resume.js';
import { dueQueueJob, type BackgroundJob } from './due-queue.js';

/**
 * Resolves a payment's stale claim, whatever flow left it: the authorisation flows through the acquirer's
 * record (payments/recovery.ts), follow-up operations by finishing their recorded plan (operations/resume.ts).
 * A subscription charge's claim is the scheduler's to resume (subscriptions/charges.ts), under its lease.
 */
export async function resolveStaleClaim(deps: CoreDeps, account: Account, p: Payment): Promise<void> {
  const claim = p.claim;
  if (!claim || !isStale(claim, deps.clock.now())) return;
  if (isOperationClaim(claim.op)) await resumeOperationClaim(deps, account, p);
  else if (claim.op === 'authorise' || claim.op === 'challenge' || claim.op === 'challenge_expiry')
    await resolveAuthorisationClaim(deps, account, p);
  else if (claim.op !== 'charge') {
    // a claim without a recorded intent (written before intents were recorded): nothing to resume, release it
    await releaseClaim(deps, p);
  }
}

/**
 * The recovery job (DESIGN 10): every claim is entered in the 'pending_resolve' queue at its staleness time and
 * removed by the commit that records its outcome, so what this job finds due is exactly the outcomes not
 * recorded in time. Each is resolved and notified; a payment still claimed live is looked at again later.
 */
export function recoveryJob(deps: CoreDeps): BackgroundJob {
  return dueQueueJob(deps, {
    name: 'pending-resolve',
    intervalMs: Math.max(200, Math.min(10_000, Math.floor(deps.pendingResolveMs / 4))),
    queue: 'pending_resolve',
    batch: 100,
    concurrent: true,
    handle: (m, member) => resolveDue(deps, m, member),
  });
}

async function resolveDue(deps: CoreDeps, m: string, member: string): Promise<boolean> {
  const p = await deps.store.getPayment(m, member);
  const account = p && deps.merchants.find(m, p.account_id);
  if (!p || !account || !p.claim) {
    // recorded meanwhile (or gone): the entry is stale
    await deps.store.commit({ merchantId: m, due: [{ queue: 'pending_resolve', member, at: null }] });
    return false;
  }
  if (!isStale(p.claim, deps.clock.now())) {
    await deps.store.commit({ merchantId: m, due: [{ queue: 'pending_resolve', member, at: p.claim.until }] });
    return false;
  }
  if (p.claim.op === 'charge') {
    // the subscription scheduler resumes it under its lease; look again after it
    await deps.store.commit({ merchantId: m, due: [{ queue: 'pending_resolve', member, at: deps.clock.now() + deps.pendingResolveMs }] });
    return false;
  }
  await resolveStaleClaim(deps, account, p);
  const after = await deps.store.getPayment(m, member);
  return after?.written_by !== p.written_by || after?.status !== S.PENDING;
}

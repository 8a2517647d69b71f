import type { CoreDeps } from '../ports/deps.js';
import { PaymentStatus as S } from '../records/payment.js';
import { isStale } from '../payments/claim.js';
import { resolveStaleClaim } from '../operations/stale-claim.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';

/**
 * The recovery job (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery): every claim is entered in the 'pending_resolve' queue at its staleness time and
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

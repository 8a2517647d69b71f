import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import { applyOperation } from '../operations/apply.js';
import { expireOperation, LAPSES } from '../operations/expiry.js';

/**
 * The expiry sweep. Safe with several gateway processes: each payment is claimed by a versioned write
 * before it is voided, so only one process expires it; the others find it claimed or already expired.
 */
export function authExpiryJob(deps: CoreDeps): BackgroundJob {
  return dueQueueJob(deps, {
    name: 'auth-expiry',
    intervalMs: 30_000,
    queue: 'auth_expiry',
    batch: 100,
    handle: (m, member) => expireIfDue(deps, m, member),
  });
}

async function expireIfDue(deps: CoreDeps, m: string, member: string): Promise<boolean> {
  const p = await deps.store.getPayment(m, member);
  const account = p && deps.merchants.find(m, p.account_id);
  if (!p || !account || !LAPSES.has(p.status)) {
    // captured, cancelled or gone meanwhile: nothing to expire
    await deps.store.commit({ merchantId: m, due: [{ queue: 'auth_expiry', member, at: null }] });
    return false;
  }
  const result = await applyOperation(deps, account, member, expireOperation, { now: deps.clock.now() });
  if (!result.ok && result.failure === 'IN_PROCESS' && p.auth_expires_at !== undefined) {
    // the window was extended: keep the queue in step with the payment
    await deps.store.commit({ merchantId: m, due: [{ queue: 'auth_expiry', member, at: p.auth_expires_at }] });
  }
  return result.ok;
}

import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../jobs/due-queue.js';
import { PaymentStatus as S } from '../payments/payment.js';
import { moveTo } from '../payments/transitions.js';
import { RESULT } from '../kernel/result-codes.js';
import { acquirerReference } from '../payments/claim.js';
import { applyOperation, type PaymentOperation } from './apply.js';
import { dropOwnCard } from './cancel.js';

/** Statuses whose authorisation lapses at the end of the account's window: authorised, and held for review. */
const LAPSES: ReadonlySet<string> = new Set([S.AUTHORISED, S.HELD]);

/**
 * An authorisation not captured (or a held payment not reviewed) within the account's window lapses (4400);
 * the connector is asked to void it.
 */
export const expireOperation: PaymentOperation<{ now: number }, null> = {
  notifyType: 'expire',
  claimOp: 'expire',
  amountMustMatch: false,
  connectorOptional: true,
  plan(p, { now }) {
    if (!LAPSES.has(p.status)) return { ok: false, failure: 'NOT_APPROVED' };
    if (p.auth_expires_at === undefined || p.auth_expires_at > now) return { ok: false, failure: 'IN_PROCESS' };
    return { ok: true, plan: null };
  },
  intent: (p) => ({ reference: acquirerReference.void(p.transaction_id) }),
  execute: (connector, p, _plan, reference) => (p.connector_ref ? connector.void(p.connector_ref, reference) : undefined),
  apply({ now }, p) {
    const move = moveTo(p, S.EXPIRED, now, { result_code: RESULT.EXPIRED[0] });
    if (!move.ok) throw new Error('expiry planned on a payment that is not authorised');
    const { next, dropCards } = p.status === S.HELD ? dropOwnCard(move.payment) : { next: move.payment, dropCards: undefined };
    return { next, change: { due: [{ queue: 'auth_expiry', member: p.transaction_id, at: null }], ...(dropCards ? { dropCards } : {}) } };
  },
};

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

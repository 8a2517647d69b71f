import type { CoreDeps } from '../ports/deps.js';
import { dueQueueJob, type BackgroundJob } from '../schedule/due-queue.js';
import type { ChangeSet } from '../ports/store.js';
import type { PayoutFailure } from '../ports/payout-connector.js';
import { PayoutStatus as S, type Payout } from '../records/payout.js';
import { isFinalPayout, movePayout } from './payout-state.js';
import { payoutNotification } from './answer.js';
import { jitter, MAX_COMMIT_ATTEMPTS, readBalance } from './balance.js';
import { acquirerAmount } from '../kernel/money.js';

/** PROCESSING is checked with the provider this long after submission (and again after as long). */
export const SETTLE_DELAY_MS = 5 * 60_000;
/** After the provider did not answer, the step is tried again this much later. */
export const RETRY_DELAY_MS = 60_000;

/**
 * Moves due payouts one step: PENDING -> PROCESSING (submitted) or FAILED (refused), PROCESSING -> COMPLETED
 * or FAILED. Each step is one versioned commit of the payout, its due entry, its notification and (FAILED)
 * the refund of the deposit debit; a process that loses the commit leaves the step to the winner.
 */
export function payoutLifecycleJob(deps: CoreDeps): BackgroundJob {
  return dueQueueJob(deps, {
    name: 'payout-lifecycle',
    intervalMs: 1000,
    queue: 'payout',
    batch: 100,
    handle: (merchantId, transactionId) => advancePayout(deps, merchantId, transactionId),
  });
}

/** One lifecycle step of a due payout; true when this process moved it. */
export async function advancePayout(deps: CoreDeps, merchantId: string, transactionId: string): Promise<boolean> {
  const p = await deps.store.getPayout(merchantId, transactionId);
  const now = deps.clock.now();
  if (!p || isFinalPayout(p.status)) {
    await deps.store.commit({ merchantId, due: [{ queue: 'payout', member: transactionId, at: null }] });
    return false;
  }
  if (p.next_step_at > now) return false;
  let current = p;
  try {
    if (p.status === S.PENDING) {
      // claim the submission first (a versioned write): two processes never both send the transfer, and a
      // process that dies after sending leaves the retry to the lease, under the same reference
      const claim: Payout = { ...p, next_step_at: now + RETRY_DELAY_MS, updated_at: p.updated_at };
      const claimed = await deps.store.commit({
        merchantId,
        payouts: [{ next: claim, expected: p.version }],
        due: [{ queue: 'payout', member: transactionId, at: claim.next_step_at }],
      });
      if (!claimed) return false;
      current = { ...claim, version: p.version + 1 };
      const sent = await deps.payoutConnector.submit({
        reference: p.transaction_id,
        payment_method: p.request.payment_method,
        // the provider's unit, as the card connector's (docs/operations.md#money-moves-exactly-once-claims-acquirer-references-and-recovery): JPY 1000.00 -> 1000, KWD 1.50 -> 1500
        amount: acquirerAmount(p.amount_beneficiary_receives, p.request.payment_currency),
        currency: p.request.payment_currency,
        account_number: String(bankDetail(p, 'account_number')),
        iban: String(bankDetail(p, 'iban')),
        swift_code: String(bankDetail(p, 'swift_code')),
        bank_country_code: String(bankDetail(p, 'bank_country_code')),
      });
      if (!sent.accepted) return fail(deps, current, sent, now);
      return step(
        deps,
        current,
        movePayout(current, S.PROCESSING, now, { connector_ref: sent.connectorRef, next_step_at: now + SETTLE_DELAY_MS }),
      );
    }
    const st = await deps.payoutConnector.status(p.connector_ref ?? '');
    if (st.state === 'failed') return fail(deps, p, st, now);
    if (st.state === 'completed') return step(deps, p, movePayout(p, S.COMPLETED, now));
    return reschedule(deps, p, now + SETTLE_DELAY_MS);
  } catch (err) {
    deps.log.warn(
      { transaction_id: p.transaction_id, err: { message: (err as Error).message } },
      'payout provider did not answer; will retry',
    );
    return reschedule(deps, current, now + RETRY_DELAY_MS);
  }
}

function bankDetail(p: Payout, field: string): unknown {
  return ((p.request.beneficiary.bank_details as Record<string, unknown> | undefined) ?? {})[field] ?? '';
}

function changeFor(deps: CoreDeps, p: Payout, next: Payout): ChangeSet {
  const account = deps.merchants.find(p.merchant_id, p.account_id);
  return {
    merchantId: p.merchant_id,
    payouts: [{ next, expected: p.version }],
    due: [{ queue: 'payout', member: p.transaction_id, at: isFinalPayout(next.status) ? null : next.next_step_at }],
    outbox: account ? payoutNotification(deps, account, next) : [],
  };
}

async function step(deps: CoreDeps, p: Payout, next: Payout | undefined): Promise<boolean> {
  if (!next) return false;
  const moved = await deps.store.commit(changeFor(deps, p, next));
  if (moved) deps.log.info({ transaction_id: p.transaction_id, merchant_id: p.merchant_id, status: next.status }, 'payout moved');
  return moved;
}

async function reschedule(deps: CoreDeps, p: Payout, at: number): Promise<boolean> {
  return deps.store.commit({
    merchantId: p.merchant_id,
    payouts: [{ next: { ...p, next_step_at: at }, expected: p.version }],
    due: [{ queue: 'payout', member: p.transaction_id, at }],
  });
}

/** FAILED, with the deposit debit credited back in the same commit (retried while only the balance moved). */
async function fail(deps: CoreDeps, p: Payout, failure: PayoutFailure, now: number): Promise<boolean> {
  const next = movePayout(p, S.FAILED, now, { failure_type: failure.failureType, failure_reason: failure.failureReason });
  const account = deps.merchants.find(p.merchant_id, p.account_id);
  if (!next || !account) return false;
  const change = changeFor(deps, p, next);
  for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
    const balance = await readBalance(deps, account, p.fee_currency, now);
    change.balances = [
      { next: { ...balance, available: balance.available + p.amount_payer_pays, updated_at: now }, expected: balance.version },
    ];
    if (await deps.store.commit(change)) {
      deps.log.info(
        { transaction_id: p.transaction_id, merchant_id: p.merchant_id, status: next.status, failure_type: next.failure_type },
        'payout moved',
      );
      return true;
    }
    const current = await deps.store.getPayout(p.merchant_id, p.transaction_id);
    if (!current || current.version !== p.version) return false;
    await jitter();
  }
  return false;
}

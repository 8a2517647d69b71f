import type { CoreDeps } from '../ports/deps.js';
import type { Account } from '../records/directory.js';
import type { Payment } from '../records/payment.js';
import type { OutboxRecord } from '../notifications/outbox.js';
import { pause } from '../kernel/clock.js';

/** What a later failure makes of the payment as read: an answer now, a wait for the flow holding it, or a change. */
export type LaterStep<R extends string> = R | 'wait' | { next: Payment; outbox: OutboxRecord[] };

const ATTEMPTS = 8;

/**
 * Records what an acquirer failed after it had accepted it (a refund, a capture) on the payment: reads the
 * payment of this account, lets `step` decide on it, and commits its change with its notifications at the
 * version read. A payment held by another flow is waited for (`step` says 'wait'), and a lost race reads
 * again; one that stays busy answers 'busy' (the acquirer sends its event again). Undefined for a payment not
 * found is `step`'s to answer.
 */
export async function recordLaterFailure<R extends string>(
  deps: CoreDeps,
  account: Account,
  transactionId: string,
  step: (p: Payment | undefined, now: number) => LaterStep<R>,
): Promise<R | 'recorded' | 'busy'> {
  const m = account.merchant_id;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const read = await deps.store.getPayment(m, transactionId);
    const p = read && read.account_id === account.account_id ? read : undefined;
    const decided = step(p, deps.clock.now());
    if (decided === 'wait') {
      await pause(deps.clock, 20 * (attempt + 1));
      continue;
    }
    if (typeof decided === 'string') return decided;
    const { next, outbox } = decided;
    const committed = await deps.store
      .commit({ merchantId: m, payments: [{ next, expected: p!.version }], outbox: outbox.map((o) => ({ next: o, expected: 0 })) })
      .catch(() => false);
    if (committed) return 'recorded';
    await pause(deps.clock, 5);
  }
  return 'busy';
}

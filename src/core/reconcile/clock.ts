import { clockOf, type ClockDeps } from '../clocks/clock-deps.js';
import { reconcilePayment } from './reconcile-payment.js';
import { DEFAULT_RECONCILE_WINDOW_MS } from './job.js';

/** A test clock's payments are test objects: this many of each index are read at most. */
const MAX_PER_INDEX = 1_000;

/**
 * Reconciles a test clock's payments with the sandbox's books, in the clock's time (docs/test-clocks.md): what a live pass
 * does over the account's window, done at once when the clock's advance has made every step due up to its time
 * (jobs/advance.ts). Answers how many payments it compared. The clock's advance holds the clock, so no pass
 * record is kept.
 */
export async function reconcileClockPayments(cdeps: ClockDeps): Promise<number> {
  const windowMs = cdeps.reconcileWindowMs ?? DEFAULT_RECONCILE_WINDOW_MS;
  const clock = cdeps.testClock;
  const account = cdeps.merchants.find(clock.merchant_id, clock.account_id);
  const connector = account && cdeps.connectors.get(account.routing.connector_code, account);
  if (windowMs <= 0 || !account || !connector?.books) return 0;
  const m = account.merchant_id;
  const now = cdeps.clock.now();
  const from = now - windowMs;
  const [made, refunded, disputed] = await Promise.all([
    cdeps.store.paymentsByTime(m, account.account_id, from, now, MAX_PER_INDEX),
    cdeps.store.refundsByDate(m, account.account_id, from, now, MAX_PER_INDEX),
    cdeps.store.disputesByTime(m, account.account_id, from, now, MAX_PER_INDEX),
  ]);
  const opened = await cdeps.store.getDisputes(m, disputed);
  const ids = new Set([
    ...made.map((e) => e.transactionId),
    ...refunded.map((e) => e.transactionId),
    ...opened.flatMap((d) => (d ? [d.transaction_id] : [])),
  ]);
  // the account's index holds its live payments and other clocks' too: only this clock's are compared
  const payments = await cdeps.store.getPayments(m, [...ids]);
  let compared = 0;
  for (const p of payments) {
    if (!p || clockOf(p) !== clock.test_clock_id) continue;
    if ((await reconcilePayment(cdeps, account, connector, p.transaction_id)).kind === 'compared') compared++;
  }
  return compared;
}

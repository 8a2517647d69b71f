import type { World } from './world.js';
import { PaymentStatus as S, type PaymentStatus } from '../../src/core/records/payment.js';
import { acquirerAmount } from '../../src/core/kernel/money.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { bookOf } from './books.js';

/** Statuses in which the gateway holds a live authorisation (or the money it captured under it). */
const HOLDS: ReadonlySet<PaymentStatus> = new Set([S.HELD, S.AUTHORISED, S.CAPTURED, S.PARTLY_REFUNDED, S.REFUNDED]);
/** Statuses in which the gateway told the merchant the shopper holds nothing (EXPIRED aside: its void may be refused) */
const HOLDS_NOTHING: ReadonlySet<PaymentStatus> = new Set([S.DECLINED, S.CANCELLED, S.REJECTED, S.THREEDS_FAILED]);

/**
 * The money invariants (docs/operations.md, 8 to 11), after quiescence, per payment, computed from the acquirer's
 * own records (a stub's objects, the sandbox's ledger: books.ts), never from the connector's `status`:
 * 8. what the acquirer authorised, captured and refunded (the sum and the count of its refunds) equals what the
 *    gateway recorded;
 * 9. no merchant intent reaches the acquirer under two references: at most one acquirer object per
 *    authorisation reference, one capture per payment, and no more refunds at the acquirer than refund orders
 *    the merchant decided on (an order sent again after a lost answer is the same order);
 * 10. a refund order repeated within the account's refund_duplicate_seconds is applied once: no two refunds at
 *    the acquirer are recorded with the same amount and reason within that window;
 * and what the acquirer's chargebacks took for good (lost, not reversed) is what the gateway's lost disputes hold.
 */
export async function moneyViolations(w: World): Promise<string[]> {
  const out: string[] = [];
  for (const txn of new Set(w.transactions)) {
    const p = await w.checkStore.getPayment(MERCHANT_ID, txn);
    const book = await bookOf(w, txn, p);
    const say = (what: string) => out.push(`${txn}${p ? ` (${p.status}, order ${p.order_no})` : ''}: ${what}`);
    for (const [reference, n] of Object.entries(book.objects))
      if (n > 1) say(`${n} acquirer objects under the one authorisation reference ${reference}`);
    if (book.captures > 1) say(`${book.captures} captures at the acquirer`);
    if (!p) {
      if (book.held) say('the acquirer holds an authorisation of a payment the gateway does not have');
      continue;
    }
    const units = (n: number) => acquirerAmount(n, p.currency);
    if (HOLDS.has(p.status) && book.authorised !== units(p.amount))
      say(`the gateway holds an authorisation of ${units(p.amount)}, the acquirer authorised ${book.authorised ?? 'nothing'}`);
    if (HOLDS_NOTHING.has(p.status) && book.held && book.captured === 0)
      say(`the acquirer holds an authorisation of ${book.authorised}, the gateway says the shopper was not charged`);
    if (book.captured !== units(p.captured)) say(`the acquirer captured ${book.captured}, the gateway ${units(p.captured)}`);
    const made = book.refunds.filter((r) => !r.failed);
    const applied = p.refunds.filter((r) => r.refund_status === '1');
    const sum = made.reduce((n, r) => n + r.amount, 0);
    if (sum !== units(p.refunded) || made.length !== applied.length)
      say(
        `the acquirer refunded ${sum} in ${made.length} refunds (${made.map((r) => r.reference).join(', ')}), ` +
          `the gateway ${units(p.refunded)} in ${applied.length} (${applied.map((r) => r.refund_reference_id).join(', ')})`,
      );
    // disputes: what the acquirer's chargebacks took for good (a loss not reversed) is what the gateway's hold
    // (inquiries aside: an acquirer takes nothing for one)
    const disputes = (
      await w.checkStore.getDisputes(
        MERCHANT_ID,
        (p.disputes ?? []).map((d) => d.dispute_id),
      )
    ).filter((d) => d !== undefined);
    const held = disputes.filter((d) => d.status === 'lost' && d.history[0]?.to !== 'inquiry').reduce((n, d) => n + units(d.amount), 0);
    if (book.disputed !== held) say(`the acquirer's disputes took ${book.disputed}, the gateway's lost disputes hold ${held}`);
    const orders = w.refundIntents.get(txn) ?? 0;
    if (made.length > orders) say(`${made.length} refunds at the acquirer for the merchant's ${orders} refund orders`);
    const windowMs = (w.deps.merchants.find(MERCHANT_ID, p.account_id)?.refund_duplicate_seconds ?? 0) * 1000;
    const kept = made.map((r) => p.refunds.find((x) => x.refund_reference_id === r.reference)).filter((r) => r !== undefined);
    for (const [i, a] of kept.entries())
      for (const b of kept.slice(i + 1))
        if (
          a.refund_amount === b.refund_amount &&
          a.refund_reason === b.refund_reason &&
          Math.abs(b.refund_date - a.refund_date) < windowMs
        )
          say(
            `refunds ${a.refund_reference_id} and ${b.refund_reference_id}: the same order (${a.refund_amount}, ${a.refund_reason}) refunded twice within ${windowMs / 1000} s`,
          );
  }
  return out;
}

import type { World } from './world.js';
import { PaymentStatus as S, type Payment, type PaymentStatus } from '../../src/core/records/payment.js';
import { acquirerAmount } from '../../src/core/kernel/money.js';
import { RESULT } from '../../src/core/kernel/result-codes.js';
import type { AcquirerStatus } from '../../src/core/ports/card-connector.js';
import { ACCOUNT_ID, MERCHANT_ID } from '../support/gateway.js';
import { clockViolations } from './clock-invariants.js';
import { moneyViolations } from './money-invariants.js';
import { sandboxDecisions, sandboxDispute } from './books.js';
import { OPENING_BALANCE } from './world.js';
import { canMoveDispute } from '../../src/core/disputes/transitions.js';
import { isOpenDispute, type DisputeRecord } from '../../src/core/records/dispute-record.js';

/** Statuses in which the gateway holds a live authorisation (or the money it captured). */
const HOLDS_AUTHORISATION: ReadonlySet<PaymentStatus> = new Set([S.HELD, S.AUTHORISED, S.CAPTURED, S.PARTLY_REFUNDED, S.REFUNDED]);

const approvedAt = (s: AcquirerStatus): boolean => s?.op === 'authorise' && s.outcome.kind === 'approved';
const okAt = (s: AcquirerStatus): boolean => s !== undefined && s.op !== 'authorise' && s.outcome.ok;

/**
 * The invariants checked after every run, once recovery has run to quiescence (docs/operations.md lists them):
 * 1. for every acquirer reference, the acquirer's record equals the gateway's: an authorisation approved at
 *    the acquirer (and not voided) is held by the payment for the same amount, and the other way round; a
 *    capture or refund done at the acquirer is recorded with the same amount, and nothing is recorded that
 *    the acquirer did not do;
 * 2. no claim is left, and the recovery queue is empty;
 * 3. refunded <= captured <= authorised, and refunded is the sum of the refunds not failed later;
 * 4. each final outcome has exactly one notification queued.
 */
export async function violations(w: World): Promise<string[]> {
  const out: string[] = [];
  const store = w.checkStore;
  for (const txn of new Set(w.transactions)) {
    const p = await store.getPayment(MERCHANT_ID, txn);
    const acquirer = await w.acquirerAt(p);
    const auth = await acquirer.status(txn);
    const threeds = await acquirer.status(`${txn}-3ds`);
    const capture = await acquirer.status(`${txn}-cap`);
    const voided = okAt(await acquirer.status(`${txn}-void`));
    const authorised = approvedAt(auth) || (auth?.op === 'authorise' && auth.outcome.kind === 'challenge' && approvedAt(threeds));
    const say = (what: string) => out.push(`${txn}${p ? ` (${p.status}, order ${p.order_no})` : ''}: ${what}`);
    if (!p) {
      if (authorised) say('authorised at the acquirer, but the gateway has no payment');
      continue;
    }
    if (p.claim) say(`claim left (${p.claim.op} ${p.claim.reference})`);
    if (auth?.amount !== undefined && auth.amount !== acquirerAmount(p.amount, p.currency))
      say(`authorised ${auth.amount} at the acquirer, ${p.amount} at the gateway`);

    // 1. authorisation
    if (HOLDS_AUTHORISATION.has(p.status) && !authorised) say('the gateway holds an authorisation the acquirer never gave');
    if (HOLDS_AUTHORISATION.has(p.status) && voided) say('the gateway holds an authorisation the acquirer voided');
    if (authorised && !voided && !HOLDS_AUTHORISATION.has(p.status) && p.status !== S.EXPIRED)
      say('authorised at the acquirer and never voided, but the gateway says the shopper was not charged');
    // capture
    const captured = okAt(capture);
    if (captured !== p.captured > 0 && !(p.captured > 0 && captureAtAuthorisation(p, auth, threeds)))
      say(`captured at the acquirer: ${captured}; captured at the gateway: ${p.captured}`);
    if (captured && capture?.amount !== undefined && capture.amount !== acquirerAmount(p.captured, p.currency))
      say(`captured ${capture.amount} at the acquirer, ${p.captured} at the gateway`);
    if (captured && voided) say('captured and voided at the acquirer');
    // refunds
    const refundRefs = [...w.asked].filter((r) => r.startsWith(`${txn}-`) && /-\d\d$/.test(r));
    for (const r of refundRefs) {
      const rec = await acquirer.status(r);
      const kept = p.refunds.find((x) => x.refund_reference_id === r);
      if (okAt(rec) && !kept) say(`refund ${r} done at the acquirer (${rec?.amount}) but not recorded`);
      if (okAt(rec) && kept && rec?.amount !== acquirerAmount(kept.refund_amount, p.currency))
        say(`refund ${r}: ${rec?.amount} at the acquirer, ${kept.refund_amount} at the gateway`);
    }
    for (const kept of p.refunds) {
      const done = okAt(await acquirer.status(kept.refund_reference_id));
      // a refund the acquirer accepted and failed later is kept with refund_status 0
      if (kept.refund_status === '1' && !done) say(`refund ${kept.refund_reference_id} recorded but not done at the acquirer`);
      if (kept.refund_status !== '1' && done) say(`refund ${kept.refund_reference_id} recorded failed but done at the acquirer`);
    }

    // 3. amounts
    const sum = p.refunds.filter((r) => r.refund_status === '1').reduce((a, r) => a + r.refund_amount, 0);
    if (!(p.refunded <= p.captured && p.captured <= p.amount && p.refunded === sum && p.refunded >= 0))
      say(`amounts: authorised ${p.amount}, captured ${p.captured}, refunded ${p.refunded}, sum of refunds ${sum}`);

    // 4. notifications
    const notes = await store.outboxOfOrder(MERCHANT_ID, p.account_id, p.order_no, 200);
    const count = (...types: string[]) => notes.filter((n) => types.includes(n.notify_type)).length;
    // one notification per authorisation outcome: each move out of pending but a cancel of a payment that waited
    // (a challenge not answered yet, a scheduled charge); a never-sent authorisation re-opened by the order's
    // retry (4000 -> 1000) has a second outcome
    const outcomes = (p.history ?? []).filter((h) => h.from === S.PENDING && h.to !== S.CANCELLED).length;
    const outcomeNotes = count('payment', 'threeds', 'subscription_charge');
    if (outcomeNotes !== outcomes) say(`${outcomeNotes} notifications of its ${outcomes} authorisation outcomes`);
    // an approval on review with capture_mode auto captures, and says so in its review notification
    const capturedOnReview = (p.history ?? []).some((h) => h.from === S.HELD && h.to === S.CAPTURED);
    // a capture the acquirer failed after accepting it (Adyen's CAPTURE_FAILED) is notified as it fails, besides
    // the capture's own notification (none for a capture on review: the review's says it)
    const failedLater = p.result_code === RESULT.CAPTURE_FAILED[0];
    if (failedLater && (p.status !== S.EXPIRED || p.captured !== 0 || captured)) say('capture failed later, but not recorded so');
    const captureNotes = (captured || failedLater) && !capturedOnReview ? 1 : 0;
    if (count('capture') !== captureNotes + (failedLater ? 1 : 0)) say(`${count('capture')} capture notifications`);
    if (count('cancel') !== (p.status === S.CANCELLED ? 1 : 0)) say(`${count('cancel')} cancel notifications`);
    if (count('expire') !== (p.status === S.EXPIRED && !failedLater ? 1 : 0)) say(`${count('expire')} expiry notifications`);
    if (count('review') > 1) say(`${count('review')} review notifications`);
    const refundNotes = notes
      .filter((n) => n.notify_type === 'refund')
      .map((n) => n.fields.refund_reference_id)
      .sort();
    // a refund failed later has its failure's notification besides its acceptance's
    const refundIds = p.refunds
      .flatMap((r) => (r.refund_status === '1' ? [r.refund_reference_id] : [r.refund_reference_id, r.refund_reference_id]))
      .sort();
    if (refundNotes.join() !== refundIds.join()) say(`refund notifications ${refundNotes.join()} for refunds ${refundIds.join()}`);
  }
  // 7. disputes: moves by the table only, the payment's summary as the record, one notification per move,
  // no refund applied while one was open
  const disputes = await disputesOfRun(w);
  for (const d of disputes) {
    const say = (what: string) => out.push(`dispute ${d.dispute_id} (${d.status}): ${what}`);
    let from: string = '';
    for (const h of d.history) {
      if (
        h.from !== from ||
        (from === '' ? !['inquiry', 'needs_response'].includes(h.to) : !canMoveDispute(h.from as never, h.to, h.cause))
      )
        say(`move ${h.from || '(opened)'} -> ${h.to} is not in the table`);
      from = h.to;
    }
    if (from !== d.status) say(`its story ends at ${from}`);
    // the acquirer's decision (the sandbox's, kept when it took the evidence or the acceptance; the Stripe
    // stub's): a closed dispute says the same (the gateway never closes one the acquirer decided otherwise,
    // whatever answer of it was lost)
    const decided = w.sim
      ? w.sim.disputeDecision?.(d.transaction_id)
      : await sandboxDispute(
          store.ledgerOf(MERCHANT_ID),
          d.acquirer_ref,
          (await w.timeOf(await store.getPayment(MERCHANT_ID, d.transaction_id))) ?? w.clock.now(),
        );
    if (decided !== undefined && !isOpenDispute(d.status) && decided !== d.status)
      say(`closed ${d.status}, decided ${decided} at the acquirer`);
    // and every decision the gateway recorded is one the acquirer made, in its order (webhooks late or out of
    // order may skip one, never add one): the deadline, or anything else of the gateway's, decides nothing
    const made = w.sim
      ? (w.sim.disputeDecisions?.(d.transaction_id) ?? [])
      : await sandboxDecisions(
          store.ledgerOf(MERCHANT_ID),
          d.acquirer_ref,
          (await w.timeOf(await store.getPayment(MERCHANT_ID, d.transaction_id))) ?? w.clock.now(),
        );
    const recorded = d.history.filter((h) => h.to === 'won' || h.to === 'lost').map((h) => h.to);
    if (made.length > 0 && !inOrderWithin(recorded, made))
      say(`decisions ${recorded.join(', ')} recorded, the acquirer's were ${made.join(', ')}`);
    if ((d.closed_at === null) !== isOpenDispute(d.status)) say(`closed_at ${d.closed_at} with status ${d.status}`);
    const p = await store.getPayment(MERCHANT_ID, d.transaction_id);
    const summary = p?.disputes?.find((s) => s.dispute_id === d.dispute_id);
    if (summary?.status !== d.status) say(`the payment's summary says ${summary?.status}`);
    // open until its first decision (a decision reversed later moves closed_at on, not the time it was open)
    const firstClosed = d.history.find((h) => h.to === 'won' || h.to === 'lost')?.at ?? null;
    for (const r of p?.refunds ?? [])
      // (a refund recorded in the same millisecond as the opening, by a recovery that ran first, came before it)
      if (r.refund_date > d.opened_at && (firstClosed === null || r.refund_date < firstClosed))
        say(`refund ${r.refund_reference_id} applied while it was open`);
    const notes = p
      ? (await store.outboxOfOrder(MERCHANT_ID, p.account_id, p.order_no, 200)).filter((n) => n.notify_type === 'dispute')
      : [];
    const mine = notes
      .filter((n) => n.fields.dispute_id === d.dispute_id)
      .map((n) => n.fields.dispute_status)
      .sort();
    if (
      mine.join() !==
      d.history
        .map((h) => h.to)
        .sort()
        .join()
    )
      say(`notifications ${mine.join()} for moves ${d.history.map((h) => h.to).join()}`);
  }
  // 5. payouts: the deposit balance is the opening balance less every payout not failed (a failed one is credited
  // back), less each USD dispute's amount and fee, plus the amount of each one won
  const payouts = await Promise.all(sentPayouts(w).map((id) => store.findPayoutByRequest(MERCHANT_ID, ACCOUNT_ID, id)));
  const debited =
    payouts.reduce((n, p) => n + (p && p.status !== 'FAILED' ? p.amount_payer_pays : 0), 0) +
    disputes
      .filter((d) => d.account_id === ACCOUNT_ID && d.currency === 'USD')
      .reduce((n, d) => n + d.amount + d.fee - (d.status === 'won' ? d.amount : 0), 0);
  const balance = await store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'USD');
  if ((balance?.available ?? OPENING_BALANCE) !== OPENING_BALANCE - debited)
    out.push(
      `deposit balance ${balance?.available ?? OPENING_BALANCE}, but the opening balance less the payouts is ${OPENING_BALANCE - debited}`,
    );
  if ((balance?.available ?? 0) < 0 && disputes.length === 0) out.push(`deposit balance overdrawn: ${balance?.available}`);
  // 6. every notification is delivered, or pending and queued (a resend never loses one)
  const queued = new Set((await store.due(MERCHANT_ID, 'outbox', Number.MAX_SAFE_INTEGER, 10_000)).map((e) => e.member));
  // a test clock's notifications are queued in the clock's own queue, sent in its time
  for (const c of await store.testClocksOf(MERCHANT_ID, 100))
    for (const e of await store.due(MERCHANT_ID, 'outbox', Number.MAX_SAFE_INTEGER, 10_000, c.test_clock_id)) queued.add(e.member);
  for (const n of await allNotifications(w)) {
    if (n.status === 'pending' && !queued.has(n.notify_id))
      out.push(`notification ${n.notify_id} (${n.notify_type}) pending but not queued: never sent`);
  }
  // 2. the recovery queue
  const left = await store.due(MERCHANT_ID, 'pending_resolve', Number.MAX_SAFE_INTEGER, 10);
  if (left.length > 0) out.push(`recovery queue not empty: ${left.map((e) => e.member).join(', ')}`);
  out.push(...(await clockViolations(w)));
  out.push(...(await moneyViolations(w)));
  return out;
}

/** True when `part` is `whole` with some of its items left out (in the same order). */
function inOrderWithin(part: readonly string[], whole: readonly string[]): boolean {
  let i = 0;
  for (const x of whole) if (i < part.length && part[i] === x) i++;
  return i === part.length;
}

/** capture_mode auto: the authorisation itself captured the amount (no capture reference at the acquirer). */
function captureAtAuthorisation(p: Payment, auth: AcquirerStatus, threeds: AcquirerStatus): boolean {
  return (approvedAt(auth) || approvedAt(threeds)) && p.captured === p.amount && (p.history ?? []).every((h) => h.to !== S.AUTHORISED);
}

/** Every dispute of the run's payments. */
async function disputesOfRun(w: World): Promise<DisputeRecord[]> {
  const ids: string[] = [];
  for (const txn of new Set(w.transactions)) {
    const p = await w.checkStore.getPayment(MERCHANT_ID, txn);
    for (const s of p?.disputes ?? []) ids.push(s.dispute_id);
  }
  return (await w.checkStore.getDisputes(MERCHANT_ID, ids)).filter((d): d is DisputeRecord => d !== undefined);
}

/** The request_ids of the payouts the simulation asked for (the payouts a request made). */
function sentPayouts(w: World): string[] {
  return [...w.payoutRequests];
}

/** Every notification of the run's orders and payouts. */
async function allNotifications(w: World) {
  const store = w.checkStore;
  const orders = new Set<string>();
  for (const txn of new Set(w.transactions)) {
    const p = await store.getPayment(MERCHANT_ID, txn);
    if (p) orders.add(`${p.account_id} ${p.order_no}`);
  }
  const out = [];
  for (const key of orders) {
    const [account, orderNo] = key.split(' ') as [string, string];
    out.push(...(await store.outboxOfOrder(MERCHANT_ID, account, orderNo, 200)));
  }
  return out;
}

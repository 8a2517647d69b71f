import type { Fault, ConnectorOp } from './faults.js';
import type { World } from './world.js';
import { authorisePayment, answerChallenge, type AuthoriseCommand } from '../../src/core/authorisation/authorise.js';
import { runBatch } from '../../src/core/operations/batch.js';
import { captureOperation } from '../../src/core/operations/capture.js';
import { cancelOperation } from '../../src/core/operations/cancel.js';
import { reviewOperation } from '../../src/core/operations/review.js';
import { refundOperation } from '../../src/core/operations/refund.js';
import { captureByHand, refundByHand } from '../../src/core/portal/actions.js';
import { cancelSubscription } from '../../src/core/subscriptions/cancel.js';
import { createPayout, type PayoutCommand } from '../../src/core/payouts/create.js';
import { resendNotifications } from '../../src/core/notifications/resend.js';
import { formatAmount } from '../../src/core/kernel/money.js';
import { acceptDispute, submitDisputeEvidence } from '../../src/core/disputes/respond.js';
import { createClock, paymentDepsOnClock } from '../../src/core/clocks/clocks.js';
import { startAdvance } from '../../src/core/jobs/advance.js';
import { CLOCK_START } from './clock-invariants.js';
import { isOpenDispute, type DisputeRecord } from '../../src/core/records/dispute-record.js';
import { payoutSchema } from '../../src/http/schemas/payout-request.js';
import { samplePayout } from '../support/payout.js';
import { PaymentStatus as S, type Payment } from '../../src/core/records/payment.js';
import type { PortalSession } from '../../src/core/portal/sessions.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, MERCHANT_ID } from '../support/gateway.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';

const DAY = 86_400_000;

/** The steps of a run, as the log of a failing seed prints them. */
export type Trace = string[];

const CONNECTOR_OPS: readonly (ConnectorOp | 'any')[] = ['authorise', 'completeChallenge', 'capture', 'void', 'refund', 'dispute', 'any'];

/** A fault for the next step, or none (about one step in three carries one). */
export function randomFault(w: World, options: { badWrites: boolean; lostCommits: boolean }): Fault | undefined {
  if (!w.chance(0.35)) return undefined;
  const op = w.pick(CONNECTOR_OPS);
  const nth = w.int(1, 4);
  const faults: Fault[] = [
    { where: 'connector', op, mode: 'throw-before' },
    { where: 'connector', op, mode: 'throw-after' },
    { where: 'connector', op, mode: 'throw-after', statusDown: true },
    { where: 'connector', op, mode: 'late' },
    { where: 'connector', op, mode: 'crash-before' },
    { where: 'connector', op, mode: 'crash-after' },
    { where: 'status', mode: 'down' },
    { where: 'commit', nth, mode: 'before' },
    { where: 'commit', nth, mode: 'after' },
    { where: 'commit', nth, mode: 'crash-before' },
    { where: 'commit', nth, mode: 'crash-after' },
  ];
  if (w.sim?.arm) {
    // at a real acquirer's stub: the answer lost after it acted, or the request carried out seconds later
    const delayMs = w.pick([2_000, 5_000, 20_000, 45_000, 90_000, 150_000]);
    faults.push(
      { where: 'connector', op, mode: 'answer-lost' },
      { where: 'connector', op: 'any', mode: 'answer-lost' },
      { where: 'connector', op, mode: 'act-later', delayMs },
      { where: 'connector', op: 'any', mode: 'act-later', delayMs },
      { where: 'connector', op: 'any', mode: 'act-later', delayMs },
    );
  }
  if (options.badWrites) faults.push({ where: 'commit', nth, mode: 'bad-write' });
  if (options.lostCommits) faults.push({ where: 'commit', nth, mode: 'unconfirmed-lost' });
  faults.push({ where: 'transport', mode: 'refuse' }, { where: 'transport', mode: 'resend-meanwhile' });
  return w.pick(faults);
}

/** Everything the simulation sent, so it can send it again (a merchant's retry) and pick follow-ups. */
export interface Sent {
  commands: AuthoriseCommand[];
  /** payout requests, sent again now and then as a merchant's retry */
  payouts: PayoutCommand[];
  /** transaction ids answered to the merchant */
  payments: Set<string>;
  /** the run's test clocks (at most two) */
  clocks: string[];
  /** refund orders as sent, to be sent again (a merchant's retry after a lost answer, or a repeat) */
  refunds: RefundSent[];
}

/** A refund order the merchant sent: through the API's batch or the portal, and when. */
export interface RefundSent {
  payment: Payment;
  amount: number;
  reason: string;
  byHand: boolean;
  at: number;
}

const CARD_MIX: readonly string[] = [
  CARDS.approved,
  CARDS.approved,
  CARDS.approved,
  CARDS.approvedMastercard,
  CARDS.declined,
  CARDS.insufficientFunds,
  CARDS.processingError,
  CARDS.challenge,
  CARDS.challenge,
  CARDS.disputeFraud,
  CARDS.disputeInquiry,
  // a decision reversed, a reversed loss charged back again (the sandbox's cycle card; elsewhere an approval)
  CARDS.disputeCycle,
  // the sandbox's timed cards (on Stripe and Adyen: ordinary approvals), as acquirers that are not instant behave:
  // processing for minutes then approved or declined, and every call's answer lost while the sandbox acts later
  CARDS.processingApproved,
  CARDS.processingDeclined,
  CARDS.lostAnswer,
];

function newOrder(w: World, sent: Sent): AuthoriseCommand {
  const auto = w.chance(0.25);
  const account = w.deps.merchants.find(MERCHANT_ID, auto ? AUTO_ACCOUNT_ID : ACCOUNT_ID)!;
  const pan = w.pick(CARD_MIX);
  const jpy = !auto && w.chance(0.15);
  const amount = jpy ? w.int(1, 500) * 100 : w.int(100, 50_000);
  const email = w.pick(['shopper@example.com', 'shopper@example.com', 'shopper+review@example.com', 'shopper+reject@example.com']);
  const subscribe = !jpy && w.chance(0.15);
  const end = subscribe && w.chance(0.5) ? new Date(w.clock.now() + w.int(1, 4) * DAY).toISOString().slice(0, 10) : '';
  const orderNo = `SIM${w.seed}-${sent.commands.length + 1}`;
  return {
    account,
    source: 'direct',
    fingerprint: `sim:${orderNo}`,
    card: { pan, expMonth: '12', expYear: '2034', securityCode: TEST_SECURITY_CODE },
    order: {
      order_no: orderNo,
      currency: jpy ? 'JPY' : 'USD',
      amount,
      note: '',
      website: '',
      notify_url: 'https://merchant.example/notify',
      shopper_email: email,
      shopper_ip: '203.0.113.7',
      billing_country: 'GB',
      delivery_country: 'GB',
      device_fingerprint: '',
      open3d: pan === CARDS.challenge && w.chance(0.8) ? 'do3DS' : 'no3DS',
      token_flag: 'NO',
      token_id: '',
      ...(subscribe
        ? {
            subscription: {
              contract: 'SIM',
              contract_name: 'Simulated plan',
              contract_amount: w.int(100, 5_000),
              interval: 'day' as const,
              interval_count: 1,
              billing_cycle: w.int(2, 5),
              promotion_cycle: 1,
              contract_start: '',
              contract_end: end,
              price_id: '',
            },
          }
        : {}),
    },
  };
}

const ADMIN: PortalSession = {
  version: 1,
  id: 'sim-session',
  merchant_id: MERCHANT_ID,
  email: 'ops@shop.example',
  role: 'admin',
  csrf: 'sim',
  created_at: 0,
  last_seen: 0,
};

async function somePayment(w: World, wanted?: (p: Payment) => boolean): Promise<Payment | undefined> {
  const ids = [...new Set(w.transactions)];
  if (ids.length === 0) return undefined;
  const all = (await w.checkStore.getPayments(MERCHANT_ID, ids)).filter((p): p is Payment => Boolean(p));
  const fit = wanted ? all.filter(wanted) : all;
  // mostly a payment the step can act on; now and then any, so refusals are exercised too
  const from = fit.length > 0 && w.chance(0.85) ? fit : all;
  return from.length === 0 ? undefined : w.pick(from);
}

const ref = (p: Payment, amount = p.amount) => ({ transaction_id: p.transaction_id, order_no: p.order_no, currency: p.currency, amount });
const account = (w: World, p: Payment) => w.deps.merchants.find(MERCHANT_ID, p.account_id)!;
/** amounts in a zero-decimal currency are whole units (hundredths that are multiples of 100) */
const unitsOf = (p: Payment, n: number) => (p.currency === 'JPY' ? Math.max(100, Math.floor(n / 100) * 100) : Math.max(1, n));

/** Time passes, and every time-driven job runs once. */
export async function timePasses(w: World, trace: Trace): Promise<void> {
  const ms = w.pick([2_000, 61_000, 61_000, 10 * 60_000, 3_600_000, DAY, 3 * DAY, 8 * DAY]);
  w.clock.advance(ms);
  trace.push(`time +${ms / 1000}s`);
  for (const job of [
    'auth-expiry',
    'threeds-challenge-expiry',
    'subscription-charges',
    'pending-resolve',
    'subscription-charges',
    'payout-lifecycle',
    'dispute-steps',
    'notification-delivery',
    'test-clocks',
  ]) {
    await w.job(job);
  }
}

/** One random step of a merchant, a shopper, the portal or the clock. */
export async function randomStep(w: World, sent: Sent, trace: Trace): Promise<void> {
  // disputes open late in a run and live a few steps: their answers come more often while one is open
  if (w.chance(0.08) && (await answerDispute(w, trace))) return;
  const roll = w.random();
  if (roll < 0.28) {
    const cmd = newOrder(w, sent);
    sent.commands.push(cmd);
    const r = await w.run((deps) => authorisePayment(deps, cmd));
    trace.push(`authorise ${cmd.order.order_no} ${cmd.card!.pan.slice(-4)} ${cmd.order.currency} ${cmd.order.amount} -> ${summary(r)}`);
    if (r.kind === 'done') sent.payments.add(r.value.payment.transaction_id);
    return;
  }
  if (roll < 0.34 && sent.commands.length > 0) {
    const cmd = w.pick(sent.commands);
    const r = await w.run((deps) => authorisePayment(deps, cmd));
    trace.push(`authorise again ${cmd.order.order_no} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.42) {
    const p = await somePayment(w, (x) => x.status === S.PENDING && x.threeds.challenge_pending);
    if (!p) return;
    const passes = w.chance(0.75);
    // on an acquirer's own challenge page the shopper passes or fails there, and the return carries its answer
    const code = w.sim?.challengeAnswer ? w.sim.challengeAnswer(p.transaction_id, passes) : passes ? CHALLENGE_CODE : '000000';
    if (w.sim?.challengeAnswer && w.chance(0.3)) {
      // ... or closes the tab there: no return reaches the gateway, whose expiry (or recovery) then ends the
      // challenge with whatever the acquirer did on its own page
      trace.push(`challenge ${p.transaction_id} answered at the acquirer (${passes ? 'passed' : 'failed'}), no return`);
      return;
    }
    const r = await w.run((deps) => answerChallenge(deps, account(w, p), p, code));
    trace.push(`challenge ${p.transaction_id} ${code} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.54) {
    const p = await somePayment(w, (x) => x.status === S.AUTHORISED);
    if (!p) return;
    const amount = w.chance(0.6) ? p.amount : unitsOf(p, w.int(1, p.amount));
    const byHand = w.chance(0.2);
    const r = byHand
      ? await w.run((deps) => captureByHand(deps, ADMIN, p.transaction_id, amount))
      : await w.run((deps) => runBatch(deps, account(w, p), 'capture', [ref(p, amount)], captureOperation));
    trace.push(`capture${byHand ? ' (portal)' : ''} ${p.transaction_id} ${amount} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.6) {
    const p = await somePayment(
      w,
      (x) => x.status === S.AUTHORISED || x.status === S.HELD || (x.status === S.PENDING && x.source === 'recurring'),
    );
    if (!p) return;
    const r = await w.run((deps) => runBatch(deps, account(w, p), 'cancel', [ref(p)], cancelOperation));
    trace.push(`cancel ${p.transaction_id} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.66) {
    const p = await somePayment(w, (x) => x.status === S.HELD);
    if (!p) return;
    const flag = w.chance(0.6) ? '1' : '0';
    const r = await w.run((deps) => runBatch(deps, account(w, p), 'review', [{ ...ref(p), review_flag: flag }], reviewOperation));
    trace.push(`review ${p.transaction_id} ${flag} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.73) {
    const p = await somePayment(w, (x) => x.status === S.CAPTURED || x.status === S.PARTLY_REFUNDED);
    if (!p) return;
    const left = p.captured - p.refunded;
    const amount = left > 0 && w.chance(0.9) ? unitsOf(p, w.chance(0.3) ? left : w.int(1, left)) : unitsOf(p, p.amount + 100);
    const order: RefundSent = { payment: p, amount, reason: w.pick(['damaged', 'returned']), byHand: w.chance(0.2), at: w.clock.now() };
    sent.refunds.push(order);
    w.refundIntents.set(p.transaction_id, (w.refundIntents.get(p.transaction_id) ?? 0) + 1);
    // a merchant whose refund was not answered done sends the same order again, as merchants do
    if (!(await sendRefund(w, order, trace)) && w.chance(0.5)) await sendRefund(w, order, trace, 'again after no success');
    return;
  }
  if (roll < 0.76) {
    // the same refund order again (same transaction, amount, refund amount and reason), mostly a recent one:
    // within the account's refund_duplicate_seconds it refunds nothing more
    const windowMs = (o: RefundSent) => account(w, o.payment).refund_duplicate_seconds * 1000;
    const recent = sent.refunds.filter((r) => w.clock.now() - r.at < windowMs(r));
    const order = w.pick(recent.length > 0 && w.chance(0.8) ? recent : sent.refunds);
    if (!order) return;
    // past the window since it was first sent it is a refund of its own (docs/operations.md)
    if (w.clock.now() - order.at >= windowMs(order))
      w.refundIntents.set(order.payment.transaction_id, (w.refundIntents.get(order.payment.transaction_id) ?? 0) + 1);
    await sendRefund(w, order, trace, 'again');
    return;
  }
  if (roll < 0.785) {
    const again = sent.payouts.length > 0 && w.chance(0.3);
    const cmd = again ? w.pick(sent.payouts) : payoutCommand(w, sent);
    if (!again) sent.payouts.push(cmd);
    w.payoutRequests.add(cmd.request.request_id);
    const r = await w.run((deps) => createPayout(deps, cmd));
    trace.push(`payout${again ? ' again' : ''} ${cmd.request.request_id} ${cmd.payment_amount} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.805) {
    const notes = await w.checkStore.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, w.pick(sent.commands)?.order.order_no ?? '', 10);
    if (notes.length === 0) return;
    const note = w.pick(notes);
    const r = await w.run((deps) => resendNotifications(deps, deps.merchants.find(MERCHANT_ID, note.account_id)!, note.notify_id, ''));
    trace.push(`resend ${note.notify_id} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.825) {
    await answerDispute(w, trace);
    return;
  }
  if (roll < 0.845) {
    const p = await somePayment(w, (x) => Boolean(x.recurring_id));
    if (!p?.recurring_id) return;
    const r = await w.run((deps) => cancelSubscription(deps, account(w, p), p.recurring_id!, ''));
    trace.push(`cancel subscription ${p.recurring_id} -> ${summary(r)}`);
    return;
  }
  if (roll < 0.875) {
    await clockStep(w, sent, trace);
    return;
  }
  await timePasses(w, trace);
}

/**
 * A test clock step (docs/test-clocks.md): a clock made (at most two), a subscription paid on one, or one advanced, which
 * any process's test clock job then runs (a process that dies mid-advance leaves it to another after its lease).
 */
async function clockStep(w: World, sent: Sent, trace: Trace): Promise<void> {
  const acct = w.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
  if (sent.clocks.length === 0 || (sent.clocks.length < 2 && w.chance(0.2))) {
    const n = sent.clocks.length + 1;
    const input = { request_id: `sim-${w.seed}-${n}`, frozen_time: CLOCK_START, name: `clock ${n}`, notify_url: '' };
    const r = await w.run((deps) => createClock(deps, acct, input));
    if (r.kind === 'done') sent.clocks.push(r.value.test_clock_id);
    trace.push(`test clock ${n} -> ${r.kind === 'done' ? r.value.test_clock_id : summary(r)}`);
    return;
  }
  const id = w.pick(sent.clocks);
  if (w.chance(0.5)) {
    const cmd = newOrder(w, sent);
    const order = {
      ...cmd.order,
      currency: 'USD',
      subscription: {
        contract: 'SIM-CLOCK',
        contract_name: 'Clock plan',
        contract_amount: w.int(100, 5_000),
        interval: 'day' as const,
        interval_count: 1,
        billing_cycle: w.int(2, 6),
        promotion_cycle: 1,
        contract_start: '',
        contract_end: '',
        price_id: '',
      },
    };
    const onClock = { ...cmd, account: acct, order };
    const r = await w.run(async (deps) => authorisePayment(await paymentDepsOnClock(deps, acct, id), onClock));
    trace.push(`authorise on clock ${id} ${order.order_no} ${onClock.card!.pan.slice(-4)} -> ${summary(r)}`);
    if (r.kind === 'done') sent.payments.add(r.value.payment.transaction_id);
    return;
  }
  const clock = await w.checkStore.getTestClock(MERCHANT_ID, id);
  if (!clock) return;
  const ms = w.pick([3_600_000, DAY, 3 * DAY, 8 * DAY]);
  const r = await w.run((deps) => startAdvance(deps, acct, id, clock.frozen_time + ms));
  trace.push(`advance clock ${id} +${ms / 1000}s -> ${r.kind === 'done' ? r.value.clock_status : summary(r)}`);
  await w.job('test-clocks');
}

/**
 * A merchant answers one of its disputes: evidence (winning, losing or neutral; now and then a draft) or
 * accept. False when no dispute is open.
 */
async function answerDispute(w: World, trace: Trace): Promise<boolean> {
  const disputes: DisputeRecord[] = [];
  for (const accountId of [ACCOUNT_ID, AUTO_ACCOUNT_ID]) {
    const ids = await w.checkStore.openDisputes(MERCHANT_ID, accountId, 50);
    for (const d of await w.checkStore.getDisputes(MERCHANT_ID, ids)) if (d && isOpenDispute(d.status)) disputes.push(d);
  }
  if (disputes.length === 0) return false;
  const d = w.pick(disputes);
  const acct = w.deps.merchants.find(MERCHANT_ID, d.account_id)!;
  // an answer lost on its way back, or one that never left, is what the merchant's next answer (the same again,
  // other evidence, or an acceptance instead) and the deadline must get right: more often than the step's faults
  if (!w.plan.armed && w.chance(0.3)) {
    const fault = {
      where: 'connector' as const,
      op: 'dispute' as const,
      mode: w.pick(['throw-after', 'throw-before', 'crash-after'] as const),
    };
    w.plan.arm(fault);
    trace.push(`fault: ${JSON.stringify(fault)}`);
  }
  if (w.chance(0.25)) {
    const r = await w.run((deps) => acceptDispute(deps, acct, d.dispute_id, deps.clock.now()));
    trace.push(`accept dispute ${d.dispute_id} -> ${disputeSummary(r)}`);
    return true;
  }
  const text = w.pick(['winning_evidence', 'losing_evidence', 'a receipt']);
  const submit = w.chance(0.8);
  const evidence = { product_description: 'T-shirt', customer_communication: '', shipping_tracking: 'TRACK-1', uncategorized_text: text };
  const r = await w.run((deps) => submitDisputeEvidence(deps, acct, d.dispute_id, evidence, submit, deps.clock.now()));
  trace.push(`dispute evidence ${d.dispute_id} ${text}${submit ? '' : ' (draft)'} -> ${disputeSummary(r)}`);
  return true;
}

function disputeSummary(r: { kind: 'done'; value: unknown } | { kind: 'threw'; error: Error } | { kind: 'died' }): string {
  if (r.kind !== 'done') return summary(r);
  const v = r.value as { ok: boolean; message?: string; dispute?: DisputeRecord };
  return v.ok ? (v.dispute?.status ?? 'ok') : `refused: ${v.message ?? ''}`;
}

/** Sends a refund order (through the batch API or the portal); true when it was answered done. */
async function sendRefund(w: World, o: RefundSent, trace: Trace, again = ''): Promise<boolean> {
  const p = o.payment;
  const r = o.byHand
    ? await w.run((deps) => refundByHand(deps, ADMIN, p.transaction_id, o.amount, o.reason))
    : await w.run((deps) =>
        runBatch(deps, account(w, p), 'refund', [{ ...ref(p), refund_amount: o.amount, refund_reason: o.reason }], refundOperation),
      );
  trace.push(
    `refund${o.byHand ? ' (portal)' : ''}${again ? ` ${again}` : ''} ${p.transaction_id} ${o.amount} ${o.reason} -> ${summary(r)}`,
  );
  if (r.kind !== 'done') return false;
  const v = r.value as { ok: boolean }[] | { ok: boolean };
  return Array.isArray(v) ? v.every((x) => x.ok) : v.ok;
}

/** A payout near what the deposit balance holds, now and then to a beneficiary whose bank refuses it. */
function payoutCommand(w: World, sent: Sent): PayoutCommand {
  const account = w.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
  // a UUID from the seed and the count: the same seed sends the same request_ids
  const requestId = `00000000-0000-4000-8000-${(w.seed * 1000 + sent.payouts.length + 1).toString(16).padStart(12, '0')}`;
  const amount = w.int(10_000, 90_000);
  const bankAccount = w.pick(['1001-2233-4455', '1001-2233-4455', '4000000001', '4000000003']);
  const body = samplePayout();
  Object.assign(body, {
    request_id: requestId,
    payment_amount: formatAmount(amount),
    payment_date: compactDay(w),
    payment_method: 'LOCAL',
  });
  Object.assign((body.beneficiary as { bank_details: Record<string, unknown> }).bank_details, {
    account_number: bankAccount,
    bank_country_code: 'US',
  });
  const input = payoutSchema.parse({ ...body, encryption_data: '0'.repeat(64) });
  const { bank_code, ...bank } = input.beneficiary.bank_details;
  const { encryption_data: _sig, ...rest } = input;
  return {
    account,
    request: { ...rest, beneficiary: { ...input.beneficiary, bank_details: { ...bank, local_clearing_system: 'ACH' } } },
    bank_code,
    source_amount: undefined,
    payment_amount: amount,
    fingerprint: `sim:${requestId}`,
  };
}

/** The clock's day as payment_date (YYYY-MM-DD). */
const compactDay = (w: World) => new Date(w.clock.now()).toISOString().slice(0, 10);

function summary(r: { kind: 'done'; value: unknown } | { kind: 'threw'; error: Error } | { kind: 'died' }): string {
  if (r.kind === 'died') return 'process died';
  if (r.kind === 'threw') return `threw ${(r.error as { code?: string }).code ?? ''} ${r.error.message}`;
  const v = r.value as
    { payment?: Payment; payout?: { status: string }; ok?: boolean; result?: string } | { ok: boolean; failure?: string }[];
  if (Array.isArray(v)) return v.map((x) => (x.ok ? 'ok' : (x.failure ?? 'failed'))).join(',');
  if (v && typeof v === 'object' && 'payment' in v && v.payment) return `${v.payment.transaction_id} ${v.payment.status}`;
  if (v && typeof v === 'object' && 'result' in v) return String(v.result);
  if (v && typeof v === 'object' && 'payout' in v && v.payout) return v.payout.status;
  return 'done';
}

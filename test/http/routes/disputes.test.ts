import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { runDisputeStep } from '../../../src/core/disputes/steps.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../../support/gateway.js';
import { jobOf } from '../../support/jobs.js';
import { NotificationReceiver, type ReceivedNotification } from '../../support/receiver.js';
import { sign } from '../../support/sign.js';
import { pay, postBatch, postQuery, ref, type Paid } from '../../support/operations.js';
import { payoutMerchants } from '../../support/payout.js';
import { CARDS } from '../../support/cards.js';
import { answerSigned, disputeCall } from '../../support/disputes.js';
import request from 'supertest';

const world = redisWorld('disputes');
const DAY = 86_400_000;
/** the opening deposit balances (hundredths): USD 1,000.00 and JPY 100,000 */
const OPENING = { USD: 100_000, JPY: 10_000_000 };

function gatewayAt(name: string, clock = new ManualClock()): { gw: TestGateway; clock: ManualClock } {
  const merchants = payoutMerchants(OPENING);
  // the auto-capture account routes to the sandbox too, with a balance of its own
  const auto = merchants.merchants[0]!.accounts[1]! as unknown as Record<string, unknown>;
  auto.deposit_balance = { USD: 100_000 };
  return { gw: world.gateway(name, clock, { merchants }), clock };
}

async function receiver(): Promise<NotificationReceiver> {
  const r = await new NotificationReceiver().start();
  world.receivers.push(r);
  return r;
}

/** A payment with a dispute test card, captured: the sandbox disputes it at once. */
async function disputedPayment(gw: TestGateway, card: string, notifyUrl: string, extra: Record<string, unknown> = {}): Promise<Paid> {
  const paid = await pay(gw.app, { card, notify_url: notifyUrl, ...extra });
  const captured = await postBatch(gw.app, 'capture', [ref(paid)]);
  expect(captured.body.capture_orders[0].capture_status).toBe('1');
  return paid;
}

async function runSteps(gw: TestGateway): Promise<number> {
  return jobOf(gw, 'dispute-steps').runOnce();
}

async function deliver(gw: TestGateway): Promise<void> {
  const job = jobOf(gw, 'notification-delivery');
  await job.runOnce();
  await job.idle?.();
}

async function balance(gw: TestGateway, currency = 'USD', account = ACCOUNT_ID): Promise<number> {
  const b = await gw.deps.store.getBalance(MERCHANT_ID, account, currency);
  return b ? b.available : (OPENING as Record<string, number>)[currency]!;
}

async function disputesOf(gw: TestGateway, paid: Paid): Promise<Record<string, string>[]> {
  const res = await disputeCall(gw.app, 'retrievalDispute', { transaction_id: paid.transaction_id });
  expect(res.status).toBe(200);
  expect(answerSigned(res.body)).toBe(true);
  return res.body.dispute_orders as Record<string, string>[];
}

/** A gateway, a receiver of its notifications, a payment captured with `card`, and its dispute once the steps have run. */
async function openedDispute(name: string, card: string) {
  const { gw, clock } = gatewayAt(name);
  const r = await receiver();
  const paid = await disputedPayment(gw, card, r.url);
  await runSteps(gw);
  const [d] = await disputesOf(gw, paid);
  return { gw, clock, r, paid, d };
}

/** The lifecycle's order: deliveries run side by side, so notifications arrive in any order. */
const LIFECYCLE = ['inquiry', 'needs_response', 'under_review', 'won', 'lost'];

/**
 * The dispute notifications received, each checked (encryption_data by docs/api.md#signatures, X-Signature by docs/notifications.md),
 * in the lifecycle's order (each status is reached once).
 */
function disputeNotes(r: NotificationReceiver): Record<string, string>[] {
  const notes = r.received.filter((n) => n.fields.notify_type === 'dispute');
  for (const n of notes) expectSigned(n);
  return notes.map((n) => n.fields).sort((a, b) => LIFECYCLE.indexOf(a.dispute_status!) - LIFECYCLE.indexOf(b.dispute_status!));
}

function expectSigned(n: ReceivedNotification): void {
  const f = n.fields;
  expect(f.encryption_data).toBe(sign([f.merchant_id, f.account_id, f.notify_type, f.notify_id, f.order_no], SIGN_KEY));
  const [t, v1] = String(n.headers['x-signature'])
    .split(',')
    .map((p) => p.split('=')[1]);
  expect(v1).toBe(createHmac('sha256', SIGN_KEY).update(`${t}.${n.rawBody}`).digest('hex'));
}

const evidence = (text: string, submit: '0' | '1') => ({
  product_description: 'A blue T-shirt, size M',
  customer_communication: 'The shopper thanked us on 21 November',
  shipping_tracking: 'TRACK-0001',
  uncategorized_text: text,
  submit,
});

describe('a dispute won by evidence', () => {
  it('when a fraudulent-card payment is captured and winning evidence is sent, then it opens, is debited with the fee, goes under review and is won a day later with the amount credited back, each step notified and signed', async () => {
    const { gw, clock } = gatewayAt('dispute-won');
    const r = await receiver();
    const paid = await disputedPayment(gw, CARDS.disputeFraud, r.url);
    // opened by the capture: the job has nothing left to open
    expect(await runSteps(gw)).toBe(0);

    const [opened] = await disputesOf(gw, paid);
    expect(opened).toMatchObject({
      dispute_id: `${paid.transaction_id}-D01`,
      transaction_id: paid.transaction_id,
      order_no: paid.order_no,
      dispute_amount: '10.00',
      currency: 'USD',
      dispute_reason: 'fraudulent',
      dispute_status: 'needs_response',
      closed_date: '',
    });
    expect(opened!.due_date).toBe('20261128100000');
    // the amount and the 15.00 fee, in the same commit as the opening
    expect(await balance(gw)).toBe(OPENING.USD - 1000 - 1500);
    const query = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: paid.transaction_id });
    expect(query.body.orders_list[0].dispute_status).toBe('needs_response');

    const draft = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: opened!.dispute_id, ...evidence('draft notes', '0') });
    expect(draft.body).toMatchObject({ return_status: '1', dispute_status: 'needs_response', uncategorized_text: 'draft notes' });
    expect(answerSigned(draft.body)).toBe(true);

    clock.advance(3_600_000);
    const sent = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: opened!.dispute_id, ...evidence('winning_evidence', '1') });
    expect(sent.body).toMatchObject({ return_status: '1', dispute_status: 'under_review', evidence_submitted_date: '20261121110000' });

    clock.advance(DAY - 1);
    expect(await runSteps(gw)).toBe(0);
    clock.advance(1);
    expect(await runSteps(gw)).toBe(1);
    const [won] = await disputesOf(gw, paid);
    expect(won).toMatchObject({ dispute_status: 'won', closed_date: '20261122110000' });
    expect(await balance(gw)).toBe(OPENING.USD - 1500);

    await deliver(gw);
    const notes = disputeNotes(r);
    expect(notes.map((n) => n.dispute_status)).toEqual(['needs_response', 'under_review', 'won']);
    expect(notes[2]).toMatchObject({
      order_no: paid.order_no,
      dispute_id: opened!.dispute_id,
      dispute_amount: '10.00',
      dispute_reason: 'fraudulent',
    });

    const late = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: opened!.dispute_id, ...evidence('more', '1') });
    expect(late.body.return_status).toBe('0');
    expect(late.body.return_message).toMatch(/closed \(won\)/);
    expect(answerSigned(late.body)).toBe(true);
    // closed: the payment may be refunded again
    const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '10.00', refund_reason: 'goodwill' })]);
    expect(refund.body.refund_orders[0].refund_status).toBe('1');
  });
});

describe('disputed as soon as captured', () => {
  it('when a dispute card’s payment is captured, then its dispute is open by the capture’s answer: a refund sent right after is refused naming it', async () => {
    const { gw } = gatewayAt('dispute-at-capture');
    const r = await receiver();
    const paid = await disputedPayment(gw, CARDS.disputeFraud, r.url);
    // no dispute job has run: the capture opened it
    const [d] = await disputesOf(gw, paid);
    expect(d).toMatchObject({ dispute_status: 'needs_response', dispute_reason: 'fraudulent' });
    const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '10.00', refund_reason: 'at once' })]);
    expect(refund.body.refund_orders[0]).toMatchObject({ refund_status: '0', refund_message: expect.stringMatching(/^V2011:.*-D01$/) });
    expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.refunded).toBe(0);
    expect(await balance(gw)).toBe(OPENING.USD - 1000 - 1500);
    expect(await runSteps(gw)).toBe(0);
    expect(await gw.deps.store.dueCount(MERCHANT_ID, 'dispute')).toBe(1); // its deadline
  });
});

describe('a dispute lost by evidence, and refunds while it is open', () => {
  it('when a payment is disputed, then a refund is a per-order failure naming the dispute, and losing evidence loses it a day later with nothing credited', async () => {
    const { gw, clock, r, paid, d } = await openedDispute('dispute-lost', CARDS.disputeNotReceived);
    expect(d!.dispute_reason).toBe('product_not_received');

    const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '1.00', refund_reason: 'sorry' })]);
    expect(refund.body.return_status).toBe('1');
    expect(refund.body.refund_orders[0]).toMatchObject({
      refund_status: '0',
      refund_message: `V2011:Transaction has an open dispute; no refund until it is closed: ${d!.dispute_id}`,
    });
    expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.refunded).toBe(0);

    await disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, ...evidence('losing_evidence', '1') });
    const underReview = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '1.00', refund_reason: 'sorry again' })]);
    expect(underReview.body.refund_orders[0].refund_message).toMatch(/^V2011:/);
    clock.advance(DAY);
    await runSteps(gw);
    const [lost] = await disputesOf(gw, paid);
    expect(lost!.dispute_status).toBe('lost');
    expect(await balance(gw)).toBe(OPENING.USD - 1000 - 1500);
    await deliver(gw);
    expect(disputeNotes(r).map((n) => n.dispute_status)).toEqual(['needs_response', 'under_review', 'lost']);
  });
});

describe('an accepted dispute', () => {
  it('when the merchant accepts, then the dispute is lost at once, notified, and a second accept or evidence is refused as closed', async () => {
    const { gw, r, d } = await openedDispute('dispute-accepted', CARDS.disputeNotReceived);
    const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: d!.dispute_id });
    expect(accepted.body).toMatchObject({ return_status: '1', dispute_status: 'lost' });
    expect(accepted.body.closed_date).not.toBe('');
    expect(answerSigned(accepted.body)).toBe(true);
    const again = await disputeCall(gw.app, 'disputeAccept', { dispute_id: d!.dispute_id });
    expect(again.body).toMatchObject({ return_status: '0', dispute_status: 'lost' });
    expect(again.body.return_message).toMatch(/closed \(lost\)/);
    await deliver(gw);
    expect(disputeNotes(r).map((n) => n.dispute_status)).toEqual(['needs_response', 'lost']);
    expect(await balance(gw)).toBe(OPENING.USD - 1000 - 1500);
  });
});

describe('refunds after a lost dispute', () => {
  it('when the merchant accepts a dispute (lost), then a refund of what the chargeback took is a per-order failure naming the dispute, and nothing is refunded', async () => {
    const { gw, paid, d } = await openedDispute('dispute-lost-refund', CARDS.disputeFraud);
    const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: d!.dispute_id });
    expect(accepted.body).toMatchObject({ return_status: '1', dispute_status: 'lost' });
    const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '10.00', refund_reason: 'goodwill' })]);
    expect(refund.body.refund_orders[0]).toMatchObject({
      refund_status: '0',
      refund_message: `V3006:Refund amount exceeds what is left after a lost dispute: ${d!.dispute_id}`,
    });
    // not even a cent: the dispute took the whole captured amount
    const cent = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '0.01', refund_reason: 'a cent' })]);
    expect(cent.body.refund_orders[0].refund_message).toMatch(/^V3006:/);
    const p = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    expect(p).toMatchObject({ refunded: 0, status: '3100' });
    expect(p.refunds).toEqual([]);
    // the sandbox was asked nothing: a refund of the same amount has no record there
    expect(await gw.deps.store.ledgerOf!(MERCHANT_ID).ledgerLookup(`${paid.transaction_id}-01`)).toBeUndefined();
    expect(await balance(gw)).toBe(OPENING.USD - 1000 - 1500);
  });
});

describe('the sandbox cycle card: a chargeback reversed, then charged back again', () => {
  /** the dispute's status and closed_date, the payment's query answer, the balance, and a 1.00 refund's outcome */
  async function state(gw: TestGateway, paid: Paid) {
    const [d] = await disputesOf(gw, paid);
    const query = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: paid.transaction_id });
    return {
      status: d!.dispute_status,
      closed: d!.closed_date,
      query: query.body.orders_list[0].dispute_status as string,
      balance: await balance(gw),
    };
  }

  it('when the merchant accepts it, then 2 days later the sandbox reverses it (won, credited, refundable) and 2 days after that charges it back again (lost, debited), each move notified', async () => {
    const { gw, clock, r, paid, d } = await openedDispute('dispute-cycle-accepted', CARDS.disputeCycle);
    expect(d).toMatchObject({ dispute_reason: 'duplicate', dispute_status: 'needs_response' });
    expect((await disputeCall(gw.app, 'disputeAccept', { dispute_id: d!.dispute_id })).body.dispute_status).toBe('lost');
    expect(await runSteps(gw)).toBe(0); // the sandbox asked at once: lost, as accepted
    expect(await state(gw, paid)).toEqual({ status: 'lost', closed: '20261121100000', query: 'lost', balance: OPENING.USD - 2500 });
    clock.advance(2 * DAY - 1);
    expect(await runSteps(gw)).toBe(0);
    clock.advance(1);
    expect(await runSteps(gw)).toBe(1);
    expect(await state(gw, paid)).toEqual({ status: 'won', closed: '20261123100000', query: 'won', balance: OPENING.USD - 1500 });
    const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '4.00', refund_reason: 'after the reversal' })]);
    expect(refund.body.refund_orders[0].refund_status).toBe('1');
    clock.advance(2 * DAY);
    expect(await runSteps(gw)).toBe(1);
    expect(await state(gw, paid)).toEqual({ status: 'lost', closed: '20261125100000', query: 'lost', balance: OPENING.USD - 2500 });
    // lost again: the 6.00 left is the chargeback's, not the merchant's to refund
    const again = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '1.00', refund_reason: 'once more' })]);
    expect(again.body.refund_orders[0].refund_message).toMatch(/^V3006:/);
    // the cycle is over: nothing more moves, and nothing is left queued for it
    clock.advance(30 * DAY);
    expect(await runSteps(gw)).toBe(0);
    expect(await gw.deps.store.dueCount(MERCHANT_ID, 'dispute')).toBe(0);
    await deliver(gw);
    const notes = r.received.filter((n) => n.fields.notify_type === 'dispute');
    for (const n of notes) expectSigned(n);
    // deliveries run side by side: in the order of closed_date, each move's time
    const moves = notes.map((n) => [n.fields.dispute_status, n.fields.closed_date]);
    expect(moves.sort((x, y) => x[1]!.localeCompare(y[1]!))).toEqual([
      ['needs_response', ''],
      ['lost', '20261121100000'],
      ['won', '20261123100000'],
      ['lost', '20261125100000'],
    ]);
  });

  it('when it is left unanswered, then it is lost at its due date, won 2 days later and lost again 2 days after that', async () => {
    const { gw, clock, paid } = await openedDispute('dispute-cycle-deadline', CARDS.disputeCycle);
    clock.advance(7 * DAY + 1);
    expect(await runSteps(gw)).toBe(1);
    expect((await state(gw, paid)).status).toBe('lost');
    clock.advance(2 * DAY);
    await runSteps(gw);
    expect((await state(gw, paid)).status).toBe('won');
    clock.advance(2 * DAY);
    await runSteps(gw);
    expect(await state(gw, paid)).toMatchObject({ status: 'lost', balance: OPENING.USD - 2500 });
  });

  it('when winning evidence wins it, then 2 days after the win the sandbox reverses it (pre-arbitration lost), and that is final', async () => {
    const { gw, clock, paid, d } = await openedDispute('dispute-cycle-won', CARDS.disputeCycle);
    await disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, ...evidence('winning_evidence', '1') });
    clock.advance(DAY);
    await runSteps(gw);
    expect(await state(gw, paid)).toMatchObject({ status: 'won', balance: OPENING.USD - 1500 });
    clock.advance(2 * DAY);
    await runSteps(gw);
    expect(await state(gw, paid)).toMatchObject({ status: 'lost', closed: '20261124100000', balance: OPENING.USD - 2500 });
    clock.advance(10 * DAY);
    expect(await runSteps(gw)).toBe(0);
    expect((await state(gw, paid)).status).toBe('lost');
    const [lost] = await gw.deps.store.getDisputes(MERCHANT_ID, [d!.dispute_id!]);
    expect(lost!.history.map((h) => [h.to, h.cause])).toEqual([
      ['needs_response', 'opened'],
      ['under_review', 'evidence'],
      ['won', 'decided'],
      ['lost', 'decided'],
    ]);
  });
});

describe('an inquiry', () => {
  it('when a general-card payment is disputed, then it opens as an inquiry and escalates to needs_response a day later', async () => {
    const { gw, clock } = gatewayAt('dispute-inquiry');
    const r = await receiver();
    const paid = await disputedPayment(gw, CARDS.disputeInquiry, r.url);
    await runSteps(gw);
    expect((await disputesOf(gw, paid))[0]).toMatchObject({ dispute_reason: 'general', dispute_status: 'inquiry' });
    clock.advance(DAY - 1);
    await runSteps(gw);
    expect((await disputesOf(gw, paid))[0]!.dispute_status).toBe('inquiry');
    clock.advance(1);
    expect(await runSteps(gw)).toBe(1);
    expect((await disputesOf(gw, paid))[0]!.dispute_status).toBe('needs_response');
    await deliver(gw);
    expect(disputeNotes(r).map((n) => n.dispute_status)).toEqual(['inquiry', 'needs_response']);
  });

  it('when an inquiry is answered with evidence before it escalates, then it goes through needs_response to under_review at once and never escalates', async () => {
    const { gw, clock, r, paid, d } = await openedDispute('dispute-inquiry-answered', CARDS.disputeInquiry);
    const sent = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, ...evidence('receipt', '1') });
    expect(sent.body.dispute_status).toBe('under_review');
    clock.advance(DAY);
    await runSteps(gw);
    expect((await disputesOf(gw, paid))[0]!.dispute_status).toBe('won');
    await deliver(gw);
    expect(disputeNotes(r).map((n) => n.dispute_status)).toEqual(['inquiry', 'needs_response', 'under_review', 'won']);
  });
});

describe('the deadline', () => {
  it('when due_date passes without evidence, then evidence is refused and the deadline step loses the dispute', async () => {
    const { gw, clock, r, paid, d } = await openedDispute('dispute-deadline', CARDS.disputeFraud);
    clock.advance(7 * DAY + 1);
    const late = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, ...evidence('too late', '1') });
    expect(late.body).toMatchObject({ return_status: '0', dispute_status: 'needs_response' });
    expect(late.body.return_message).toMatch(/due_date for evidence has passed/);
    expect(await runSteps(gw)).toBe(1);
    const [lost] = await disputesOf(gw, paid);
    expect(lost).toMatchObject({ dispute_status: 'lost', closed_date: '20261128100000' });
    await deliver(gw);
    expect(disputeNotes(r).map((n) => n.dispute_status)).toEqual(['needs_response', 'lost']);
  });
});

describe('due_date itself', () => {
  it('when evidence is sent at due_date itself, then it is taken: the deadline step run at that moment does not lose the dispute', async () => {
    const { gw, clock, paid, d } = await openedDispute('dispute-due-moment', CARDS.disputeFraud);
    clock.advance(7 * DAY);
    await runSteps(gw);
    expect((await disputesOf(gw, paid))[0]).toMatchObject({ dispute_status: 'needs_response', due_date: d!.due_date, closed_date: '' });
    const sent = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, ...evidence('at the last moment', '1') });
    expect(sent.body).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
    clock.advance(1);
    await runSteps(gw);
    expect((await disputesOf(gw, paid))[0]!.dispute_status).toBe('under_review');
  });

  it('when the deadline step is run at due_date, then it stays queued and loses the dispute the moment after', async () => {
    const { gw, clock, paid, d } = await openedDispute('dispute-due-requeued', CARDS.disputeFraud);
    clock.advance(7 * DAY);
    // a deadline step queued at due_date itself (as steps once were): run then, it is not spent
    expect(await runDisputeStep(gw.deps, MERCHANT_ID, `deadline:${d!.dispute_id}`, clock.now())).toBe(false);
    expect((await disputesOf(gw, paid))[0]!.dispute_status).toBe('needs_response');
    clock.advance(1);
    expect(await runSteps(gw)).toBe(1);
    expect((await disputesOf(gw, paid))[0]).toMatchObject({ dispute_status: 'lost', due_date: d!.due_date });
  });
});

describe('money in other currencies and auto capture', () => {
  it('when a JPY payment is disputed, then the fee is 15 JPY (1500 hundredths) beside the amount', async () => {
    const { gw } = gatewayAt('dispute-jpy');
    const r = await receiver();
    await disputedPayment(gw, CARDS.disputeFraud, r.url, { currency: 'JPY', amount: '1000' });
    await runSteps(gw);
    expect(await balance(gw, 'JPY')).toBe(OPENING.JPY - 100_000 - 1500);
  });

  it('when an auto-capture account approves a dispute card, then the dispute opens from the authorisation’s capture', async () => {
    const { gw } = gatewayAt('dispute-auto');
    const paid = await pay(gw.app, { card: CARDS.disputeFraud }, true);
    // open by the authorisation's answer, no job run
    const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
    expect(p!.disputes).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'needs_response', amount: 1000 }]);
    expect(await balance(gw, 'USD', AUTO_ACCOUNT_ID)).toBe(100_000 - 2500);
  });

  it('when an ordinary card is captured, then no dispute step is queued', async () => {
    const { gw } = gatewayAt('dispute-none');
    const paid = await pay(gw.app, {});
    await postBatch(gw.app, 'capture', [ref(paid)]);
    expect(await gw.deps.store.dueCount(MERCHANT_ID, 'dispute')).toBe(0);
    const query = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: paid.transaction_id });
    expect(query.body.orders_list[0].dispute_status).toBe('');
  });
});

describe('bad input and unknown disputes', () => {
  it('when evidence is too long, submit is not 0 or 1, or dispute_id is missing, then the answer is a 400 naming the field', async () => {
    const { gw } = gatewayAt('dispute-bad-input');
    const long = await disputeCall(gw.app, 'disputeEvidence', {
      dispute_id: 'X-D01',
      shipping_tracking: 'x'.repeat(20_001),
      submit: '1',
    });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ field: 'shipping_tracking', return_status: '0' });
    const flag = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: 'X-D01', submit: 'yes' });
    expect(flag.status).toBe(400);
    expect(flag.body.field).toBe('submit');
    const missing = await disputeCall(gw.app, 'disputeAccept', {});
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('dispute_id');
    const unknown = await disputeCall(gw.app, 'disputeAccept', { dispute_id: 'NOPE-D01' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ return_status: '0', dispute_id: 'NOPE-D01' });
    expect(answerSigned(unknown.body)).toBe(true);
    const badSig = await disputeCall(gw.app, 'disputeAccept', { dispute_id: 'NOPE-D01' }, 'wrong-key');
    expect(badSig.status).toBe(401);
  });

  it('when evidence of exactly 20,000 characters holds a card number, then it is accepted and kept masked', async () => {
    const { gw, d } = await openedDispute('dispute-evidence-masked', CARDS.disputeFraud);
    const text = `paid with 4242424242424242 ${'x'.repeat(20_000 - 27)}`;
    expect(text).toHaveLength(20_000);
    const saved = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, uncategorized_text: text, submit: 0 });
    expect(saved.body.return_status).toBe('1');
    expect(saved.body.uncategorized_text).not.toContain('4242424242424242');
    expect(saved.body.uncategorized_text).toContain('424242***4242');
  });
});

describe('two processes at once', () => {
  it('when two gateways run the dispute steps and send the same evidence at the same moment, then the dispute opens once, is debited once and goes under review once', async () => {
    const clock = new ManualClock();
    const { gw: a } = gatewayAt('dispute-race-a', clock);
    const { gw: b } = gatewayAt('dispute-race-b', clock);
    const r = await receiver();
    const paid = await disputedPayment(a, CARDS.disputeFraud, r.url);
    // opened by the capture; the open step run again by both processes at once (a job that read it before the
    // capture spent it) opens nothing more
    const again = await Promise.all([a, b].map((gw) => runDisputeStep(gw.deps, MERCHANT_ID, `open:${paid.transaction_id}`, clock.now())));
    expect(again).toEqual([false, false]);
    expect((await disputesOf(a, paid)).length).toBe(1);
    expect(await balance(a)).toBe(OPENING.USD - 2500);
    const [d] = await disputesOf(a, paid);
    const sent = await Promise.all(
      [a, b].map((gw) => disputeCall(gw.app, 'disputeEvidence', { dispute_id: d!.dispute_id, ...evidence('winning_evidence', '1') })),
    );
    for (const s of sent) expect(s.body).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
    clock.advance(DAY);
    const decided = await Promise.all([runSteps(a), runSteps(b)]);
    expect(decided[0]! + decided[1]!).toBe(1);
    expect(await balance(a)).toBe(OPENING.USD - 1500);
    await deliver(a);
    expect(disputeNotes(r).map((n) => n.dispute_status)).toEqual(['needs_response', 'under_review', 'won']);
  });
});

describe('evidence at its full size', () => {
  it('when all four evidence fields hold 20,000 characters, then the evidence is taken (a body over a lookup’s 64 KB)', async () => {
    const { gw, d } = await openedDispute('dispute-evidence-full', CARDS.disputeFraud);
    const full = 'é'.repeat(20_000);
    const res = await disputeCall(gw.app, 'disputeEvidence', {
      dispute_id: d!.dispute_id,
      product_description: full,
      customer_communication: full,
      shipping_tracking: full,
      uncategorized_text: full,
      submit: '0',
    });
    expect(res.status).toBe(200);
    expect(res.body.return_status).toBe('1');
    expect(res.body.shipping_tracking).toHaveLength(20_000);
  });
});

describe('metrics', () => {
  it('when disputes open and move, then gateway_disputes_total counts each status reached by reason', async () => {
    const { gw } = gatewayAt('dispute-metrics');
    const r = await receiver();
    const paid = await disputedPayment(gw, CARDS.disputeNotReceived, r.url);
    await disputedPayment(gw, CARDS.disputeInquiry, r.url);
    await runSteps(gw);
    const [d] = await disputesOf(gw, paid);
    await disputeCall(gw.app, 'disputeAccept', { dispute_id: d!.dispute_id });
    const text = (await request(gw.app).get('/metrics')).text;
    expect(text).toContain('gateway_disputes_total{reason="product_not_received",status="needs_response"} 1');
    expect(text).toContain('gateway_disputes_total{reason="product_not_received",status="lost"} 1');
    expect(text).toContain('gateway_disputes_total{reason="general",status="inquiry"} 1');
  });
});

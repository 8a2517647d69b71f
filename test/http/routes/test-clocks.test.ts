import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { backgroundJobs } from '../../../src/compose.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, authoriseBody, testMerchants, type TestGateway } from '../../support/gateway.js';
import { authorise, dailyPlan } from '../../support/jobs.js';
import { NotificationReceiver, type ReceivedNotification } from '../../support/receiver.js';
import { sign } from '../../support/sign.js';
import { postBatch, postQuery } from '../../support/operations.js';
import { instrumented } from '../../support/faults.js';
import { clockCall, clockState, compact, newClock, runClockJobs, signedAnswer } from '../../support/clocks.js';
import { answerSigned, disputeCall } from '../../support/disputes.js';
import { CARDS, CHALLENGE_CODE } from '../../support/cards.js';
import { checkoutBody } from '../../support/checkout.js';
import { payoutBody, payoutMerchants, payoutQueryBody } from '../../support/payout.js';

const world = redisWorld('test-clocks');
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** the clocks' start: far from the live clock (2026-11-21), so a date tells whose time it is */
const T0 = Date.UTC(2030, 0, 1, 0, 0, 0);

async function receiver(): Promise<NotificationReceiver> {
  const r = await new NotificationReceiver().start();
  world.receivers.push(r);
  return r;
}

/** A notification's encryption_data (docs/api.md#signatures) and its X-Signature header, checked by the documented rules. */
function expectSigned(n: ReceivedNotification, key = SIGN_KEY): void {
  const f = n.fields;
  const id = f.order_no ?? f.request_id ?? f.recurring_id ?? f.test_clock_id;
  expect(f.encryption_data).toBe(sign([f.merchant_id, f.account_id, f.notify_type, f.notify_id, id], key));
  const [t, v1] = String(n.headers['x-signature'])
    .split(',')
    .map((p) => p.split('=')[1]);
  expect(v1).toBe(createHmac('sha256', key).update(`${t}.${n.rawBody}`).digest('hex'));
}

/** Runs every live background job once, as main's timers would. */
async function runLiveJobs(gw: TestGateway): Promise<void> {
  for (const job of backgroundJobs(gw.deps, gw.config)) {
    if (job.name === 'test-clocks') continue;
    await job.runOnce();
    await job.idle?.();
  }
}

async function paymentOf(gw: TestGateway, orderNo: string) {
  return gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, orderNo);
}

describe('test clock calls', () => {
  it('when a clock is created, listed and refused bad moves, then each answer is signed and each refusal is a 400 naming the field', async () => {
    const gw = world.gateway('clocks-calls', new ManualClock());
    const id = await newClock(gw.app, T0, { name: 'renewals' });
    expect(await clockState(gw.app, id)).toEqual({ test_clock_id: id, name: 'renewals', frozen_time: compact(T0), clock_status: 'ready' });
    const all = signedAnswer(await clockCall(gw.app, 'retrievalTestClock', {}));
    expect((all as unknown as { test_clocks: unknown[] }).test_clocks).toHaveLength(1);

    const back = await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0) });
    expect(back.status).toBe(400);
    expect(back.body).toMatchObject({ return_status: '0' });
    expect(back.body.message).toMatch(/^frozen_time: must be later/);
    const unknown = await clockCall(gw.app, 'testClockAdvance', { test_clock_id: 'clock_nope', frozen_time: compact(T0 + DAY) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^test_clock_id: names no test clock/);
    const badDate = await clockCall(gw.app, 'testClock', { request_id: 'r-bad', frozen_time: '20300231000000' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.message).toMatch(/^frozen_time/);

    // a payment naming an unknown clock is refused before anything is charged
    const res = await request(gw.app)
      .post('/v1/authorise')
      .set('Accept', 'application/json')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify(authoriseBody({ test_clock_id: 'clock_unknown' })));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^test_clock_id: names no test clock/);
  });

  it('when an account is routed to Stripe, then creating a clock or paying on one is refused with a 400 saying why', async () => {
    const merchants = testMerchants() as unknown as { merchants: { accounts: Record<string, unknown>[] }[] };
    merchants.merchants[0]!.accounts.push({
      account_id: '1000001003',
      sign_key: 'stripe-key',
      website: 'https://stripe.example',
      capture_mode: 'manual',
      currencies: [],
      routing: { connector_code: 'stripe', secret_key_env: 'CLOCK_TEST_STRIPE', webhook_secret_env: 'CLOCK_TEST_WHSEC' },
    });
    const gw = world.gateway('clocks-stripe', new ManualClock(), {
      merchants: merchants as never,
      env: { CLOCK_TEST_STRIPE: 'sk_test_clock', CLOCK_TEST_WHSEC: 'whsec_clock' },
    });
    const res = await clockCall(gw.app, 'testClock', { request_id: 'r-1', frozen_time: compact(T0) }, '1000001003', 'stripe-key');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^account_id: test clocks are for sandbox accounts only; this account is routed to stripe/);
  });

  it('when the same request_id is sent again, then the clock it made is answered, not a second one', async () => {
    const gw = world.gateway('clocks-idempotent', new ManualClock());
    const a = signedAnswer(await clockCall(gw.app, 'testClock', { request_id: 'same', frozen_time: compact(T0) }));
    const b = signedAnswer(await clockCall(gw.app, 'testClock', { request_id: 'same', frozen_time: compact(T0) }));
    expect(b.test_clock_id).toBe(a.test_clock_id);
  });

  it('when an authorisation names no clock, then it reads no clock from the store', async () => {
    const gw = world.gateway('clocks-hot-path', new ManualClock());
    const store = gw.deps.store;
    let clockReads = 0;
    const read = store.getTestClock.bind(store);
    store.getTestClock = (m, id) => {
      clockReads++;
      return read(m, id);
    };
    expect((await authorise(gw)).order_status).toBe('1');
    expect(clockReads).toBe(0);
    await authorise(gw, { test_clock_id: await newClock(gw.app, T0) });
    expect(clockReads).toBe(1);
  });
});

describe('a clock advanced across a month', () => {
  it('when clock A moves 31 days, then its subscription is charged once a day, its authorisation and review windows lapse, and clock B and a live payment stay untouched', async () => {
    const live = new ManualClock();
    const gw = world.gateway('clocks-month', live);
    const r = await receiver();
    const a = await newClock(gw.app, T0, { notify_url: r.url, name: 'A' });
    const b = await newClock(gw.app, T0, { name: 'B' });
    const plan = dailyPlan({ billing_cycle: 31 });
    const subA = await authorise(gw, { test_clock_id: a, notify_url: r.url, subscription: plan });
    const heldA = await authorise(gw, { test_clock_id: a, notify_url: r.url, shopper_email: 'shopper+review@example.com' });
    const authA = await authorise(gw, { test_clock_id: a, notify_url: r.url });
    const subB = await authorise(gw, { test_clock_id: b, notify_url: r.url, subscription: plan });
    const authB = await authorise(gw, { test_clock_id: b, notify_url: r.url });
    const subLive = await authorise(gw, { notify_url: r.url, subscription: plan });
    expect([subA, heldA, authA, subB, authB, subLive].map((p) => p.order_status)).toEqual(['1', '2', '1', '1', '1', '1']);
    // the payment's dates are its clock's
    expect((await paymentOf(gw, subA.order_no!))!.created_at).toBe(T0);
    expect((await paymentOf(gw, subLive.order_no!))!.created_at).toBe(live.now());

    const started = signedAnswer(await clockCall(gw.app, 'testClockAdvance', { test_clock_id: a, frozen_time: compact(T0 + 31 * DAY) }));
    expect(started).toMatchObject({ test_clock_id: a, clock_status: 'advancing' });
    // the live jobs run beside the advance: they never touch a clock's objects
    await runLiveJobs(gw);
    const done = await runClockJobs([gw], a);
    expect(done).toMatchObject({ frozen_time: compact(T0 + 31 * DAY), clock_status: 'ready' });
    await runLiveJobs(gw);

    const rid = subA.recurring_id!;
    const contract = await gw.deps.store.getContract(MERCHANT_ID, rid);
    expect(contract).toMatchObject({ charges_made: 31, status: 'Completed' });
    for (let n = 2; n <= 31; n++) {
      const charge = await paymentOf(gw, `${rid}-${n}`);
      // uncaptured, each charge's authorisation lapses 7 days after its day, in the clock's time too
      const lapsed = n - 1 + 7 <= 31;
      expect(charge, `charge ${n}`).toMatchObject({ status: lapsed ? '4400' : '3000', amount: 2500 });
      // each period's charge made (an hour ahead) and charged at its own day of the clock
      expect(charge!.created_at).toBe(T0 + (n - 1) * DAY - HOUR);
      expect(charge!.history?.find((h) => h.to === '3000')?.at).toBe(T0 + (n - 1) * DAY);
      expect(await paymentOf(gw, `${rid}-${n}-R1`)).toBeUndefined();
    }
    expect(await paymentOf(gw, `${rid}-32`)).toBeUndefined();
    expect((await paymentOf(gw, heldA.order_no!))!.status).toBe('4400');
    expect((await paymentOf(gw, authA.order_no!))!.status).toBe('4400');

    // clock B and the live payment: as they were
    expect(await clockState(gw.app, b)).toMatchObject({ frozen_time: compact(T0), clock_status: 'ready' });
    expect(await gw.deps.store.getContract(MERCHANT_ID, subB.recurring_id!)).toMatchObject({ charges_made: 1, status: 'Active' });
    expect((await paymentOf(gw, authB.order_no!))!.status).toBe('3000');
    expect(await gw.deps.store.getContract(MERCHANT_ID, subLive.recurring_id!)).toMatchObject({ charges_made: 1, status: 'Active' });
    expect(await paymentOf(gw, `${subLive.recurring_id}-2`)).toBeUndefined();

    // notifications: signed, and the clock's dated in its time
    for (const n of r.received) expectSigned(n);
    const ofA = r.received.filter((n) => n.fields.order_no?.startsWith(`${rid}-`));
    const charged = ofA.filter((n) => n.fields.notify_type === 'subscription_charge');
    expect(new Set(charged.map((n) => n.fields.order_no)).size).toBe(30);
    // dated in the clock's time: charge n on day n - 1 of the clock
    expect(charged.find((n) => n.fields.order_no === `${rid}-31`)?.fields.transaction_date).toBe(compact(T0 + 30 * DAY));
    const expired = r.received.filter((n) => n.fields.notify_type === 'expire').map((n) => n.fields.order_no);
    const lapsedCharges = Array.from({ length: 24 }, (_, i) => `${rid}-${i + 2}`);
    expect(expired.sort()).toEqual([authA.order_no, heldA.order_no, subA.order_no, ...lapsedCharges].sort());
    // clock B's payments were notified in its time, and nothing after
    const ofB = r.received.filter((n) => [subB.order_no, authB.order_no].includes(n.fields.order_no));
    expect(ofB.map((n) => [n.fields.notify_type, n.fields.transaction_date])).toEqual([
      ['payment', compact(T0)],
      ['payment', compact(T0)],
    ]);
    const clockNotice = r.received.find((n) => n.fields.notify_type === 'test_clock');
    expect(clockNotice?.fields).toMatchObject({ test_clock_id: a, frozen_time: compact(T0 + 31 * DAY), clock_status: 'ready' });
    expect(r.received.some((n) => n.fields.order_no === `${subB.recurring_id}-2`)).toBe(false);
  });

  it('when a payment of a clock is captured and refunded, then its refund is dated in the clock time', async () => {
    const gw = world.gateway('clocks-refund', new ManualClock());
    const id = await newClock(gw.app, T0);
    const paid = await authorise(gw, { test_clock_id: id });
    const order = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '10.00' };
    expect((await postBatch(gw.app, 'capture', [order])).body.capture_orders[0].capture_status).toBe('1');
    const refund = await postBatch(gw.app, 'refund', [{ ...order, refund_amount: '4.00', refund_reason: 'damaged' }]);
    expect(refund.body.refund_orders[0].refund_status).toBe('1');
    const found = await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: paid.transaction_id! });
    expect(found.body.refund_orders[0].refund_date).toBe(compact(T0));
    // the capture's auth_expiry entry was the clock's: the live sweep, far later, finds nothing to expire
    expect((await paymentOf(gw, paid.order_no!))!.status).toBe('3200');
  });
});

describe('advancing one clock from two processes', () => {
  it('when two gateways on one Redis advance the same clock at once, then each period is charged once', async () => {
    const connector = instrumented();
    const g1 = world.gateway('clocks-two-1', new ManualClock(), { wrapConnector: connector.wrap });
    const g2 = world.gateway('clocks-two-2', new ManualClock(), { wrapConnector: connector.wrap });
    const id = await newClock(g1.app, T0);
    const sub = await authorise(g1, { test_clock_id: id, subscription: dailyPlan({ billing_cycle: 11 }) });
    const to = compact(T0 + 10 * DAY);
    const [x, y] = await Promise.all([
      clockCall(g1.app, 'testClockAdvance', { test_clock_id: id, frozen_time: to }),
      clockCall(g2.app, 'testClockAdvance', { test_clock_id: id, frozen_time: to }),
    ]);
    expect([signedAnswer(x).clock_status, signedAnswer(y).clock_status]).toEqual(['advancing', 'advancing']);
    expect(await runClockJobs([g1, g2], id)).toMatchObject({ clock_status: 'ready', frozen_time: to });
    expect(connector.calls.authorise).toBe(11);
    expect(await g1.deps.store.getContract(MERCHANT_ID, sub.recurring_id!)).toMatchObject({ charges_made: 11, status: 'Completed' });
  });

  it('when the process running an advance dies, then another takes it over after the lease and finishes it once', async () => {
    const connector = instrumented();
    const c1 = new ManualClock();
    const c2 = new ManualClock();
    const g1 = world.gateway('clocks-resume-1', c1, { wrapConnector: connector.wrap });
    const g2 = world.gateway('clocks-resume-2', c2, { wrapConnector: connector.wrap });
    const id = await newClock(g1.app, T0);
    const sub = await authorise(g1, { test_clock_id: id, subscription: dailyPlan({ billing_cycle: 6 }) });
    signedAnswer(await clockCall(g1.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + 5 * DAY) }));
    // process 1 takes the advance and dies at once: its lease stands, the clock stays advancing
    const { takeAdvance } = await import('../../../src/core/jobs/advance.js');
    expect(await takeAdvance(g1.deps, MERCHANT_ID, id)).toBeDefined();
    const { testClockJob } = await import('../../../src/core/jobs/test-clocks.js');
    expect(await testClockJob(g2.deps).runOnce()).toBe(0);
    expect((await clockState(g2.app, id)).clock_status).toBe('advancing');
    // after the lease, process 2 resumes it
    c2.advance(31_000);
    expect(await runClockJobs([g2], id)).toMatchObject({ clock_status: 'ready', frozen_time: compact(T0 + 5 * DAY) });
    expect(connector.calls.authorise).toBe(6);
    expect(await g2.deps.store.getContract(MERCHANT_ID, sub.recurring_id!)).toMatchObject({ charges_made: 6 });
  });
});

describe('limits and deletion', () => {
  it('when an advance would cross more than 1,000 due steps of one subscription (500 daily periods, each made and charged), then it is refused before anything moves', async () => {
    const gw = world.gateway('clocks-limit', new ManualClock());
    const id = await newClock(gw.app, T0);
    const sub = await authorise(gw, { test_clock_id: id, subscription: dailyPlan({ billing_cycle: 1000 }) });
    const res = await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + 501 * DAY) });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^frozen_time: would cross more than 1000 due steps/);
    expect(await clockState(gw.app, id)).toMatchObject({ frozen_time: compact(T0), clock_status: 'ready' });
    expect(await gw.deps.store.getContract(MERCHANT_ID, sub.recurring_id!)).toMatchObject({ charges_made: 1 });
  });

  it('when a clock is deleted, then its payments and contracts are gone and its order numbers free, and other payments stay', async () => {
    const gw = world.gateway('clocks-delete', new ManualClock());
    const id = await newClock(gw.app, T0);
    const onClock = await authorise(gw, { test_clock_id: id, subscription: dailyPlan() });
    const livePay = await authorise(gw);
    const res = signedAnswer(await clockCall(gw.app, 'testClockDelete', { test_clock_id: id }));
    expect(res.test_clock_id).toBe(id);
    expect(await paymentOf(gw, onClock.order_no!)).toBeUndefined();
    expect(await gw.deps.store.getContract(MERCHANT_ID, onClock.recurring_id!)).toBeUndefined();
    expect((await paymentOf(gw, livePay.order_no!))!.status).toBe('3000');
    const gone = await clockCall(gw.app, 'retrievalTestClock', { test_clock_id: id });
    expect(gone.status).toBe(400);
    // the order number may be used again
    expect((await authorise(gw, { order_no: onClock.order_no })).order_status).toBe('1');
  });
});

describe('a dispute on a clock', () => {
  async function disputesOf(gw: TestGateway, transactionId: string): Promise<Record<string, string>[]> {
    const res = await disputeCall(gw.app, 'retrievalDispute', { transaction_id: transactionId });
    expect(res.status, res.text).toBe(200);
    expect(answerSigned(res.body)).toBe(true);
    return res.body.dispute_orders as Record<string, string>[];
  }

  /** A payment on the clock with a dispute test card, captured: the sandbox disputes it at the clock's next step. */
  async function disputed(gw: TestGateway, clockId: string, card: string, notifyUrl: string) {
    const paid = await authorise(gw, { test_clock_id: clockId, card, notify_url: notifyUrl });
    const order = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '10.00' };
    expect((await postBatch(gw.app, 'capture', [order])).body.capture_orders[0].capture_status).toBe('1');
    return paid;
  }

  async function advanceTo(gw: TestGateway, id: string, at: number): Promise<void> {
    signedAnswer(await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(at) }));
    await runClockJobs([gw], id);
  }

  it('when an inquiry is left unanswered, then the clock escalates it after 1 day and loses it at its deadline, each change notified and signed', async () => {
    const live = new ManualClock();
    const gw = world.gateway('clocks-dispute-deadline', live);
    const r = await receiver();
    const id = await newClock(gw.app, T0);
    const paid = await disputed(gw, id, CARDS.disputeInquiry, r.url);
    // disputed as soon as captured, in the clock's time: open before the clock moves, and live jobs add nothing
    const [opened] = await disputesOf(gw, paid.transaction_id!);
    await runLiveJobs(gw);
    await advanceTo(gw, id, T0 + HOUR);
    expect(await disputesOf(gw, paid.transaction_id!)).toEqual([opened]);
    expect(opened).toMatchObject({ dispute_status: 'inquiry', opened_date: compact(T0) });
    await advanceTo(gw, id, T0 + DAY + HOUR);
    expect((await disputesOf(gw, paid.transaction_id!))[0]).toMatchObject({ dispute_status: 'needs_response' });
    await advanceTo(gw, id, T0 + 8 * DAY);
    const [lost] = await disputesOf(gw, paid.transaction_id!);
    expect(lost).toMatchObject({ dispute_status: 'lost', closed_date: lost!.due_date });
    expect(lost!.due_date).toBe(compact(T0 + 7 * DAY));
    const statuses = r.received.filter((n) => n.fields.notify_type === 'dispute');
    expect(statuses.map((n) => n.fields.dispute_status)).toEqual(['inquiry', 'needs_response', 'lost']);
    for (const n of r.received) expectSigned(n);
    // dated in the clock's time (2030), but signed at the attempt's real time: a receiver's 5-minute replay
    // window, in its own time, takes them
    for (const n of r.received) {
      const t = Number(/t=(\d+)/.exec(String(n.headers['x-signature']))![1]);
      expect(Math.abs(t - live.now() / 1000)).toBeLessThanOrEqual(300);
    }
  });

  it('when evidence is sent on the clock, then the decision comes 1 day later in the clock time', async () => {
    const gw = world.gateway('clocks-dispute-evidence', new ManualClock());
    const r = await receiver();
    const id = await newClock(gw.app, T0);
    const paid = await disputed(gw, id, CARDS.disputeFraud, r.url);
    await advanceTo(gw, id, T0 + HOUR);
    const [open] = await disputesOf(gw, paid.transaction_id!);
    expect(open).toMatchObject({ dispute_status: 'needs_response' });
    const sent = await disputeCall(gw.app, 'disputeEvidence', {
      dispute_id: open!.dispute_id,
      product_description: 'winning_evidence: delivered and signed for',
      submit: '1',
    });
    expect(sent.body, sent.text).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
    expect(sent.body.evidence_submitted_date).toBe(compact(T0 + HOUR));
    await advanceTo(gw, id, T0 + DAY);
    expect((await disputesOf(gw, paid.transaction_id!))[0]).toMatchObject({ dispute_status: 'under_review' });
    await advanceTo(gw, id, T0 + 2 * DAY);
    expect((await disputesOf(gw, paid.transaction_id!))[0]).toMatchObject({ dispute_status: 'won', closed_date: compact(T0 + DAY + HOUR) });
    for (const n of r.received) expectSigned(n);
  });
});

describe('the other dispute paths on a clock (docs/disputes.md driven by docs/test-clocks.md)', () => {
  /** the account's opening deposit balance (hundredths of USD): what a dispute debits and a won one credits */
  const OPENING = 100_000;

  async function disputesOf(gw: TestGateway, transactionId: string): Promise<Record<string, string>[]> {
    const res = await disputeCall(gw.app, 'retrievalDispute', { transaction_id: transactionId });
    expect(res.status, res.text).toBe(200);
    expect(answerSigned(res.body)).toBe(true);
    return res.body.dispute_orders as Record<string, string>[];
  }

  async function advanceTo(gw: TestGateway, id: string, at: number): Promise<void> {
    signedAnswer(await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(at) }));
    await runClockJobs([gw], id);
  }

  async function balance(gw: TestGateway): Promise<number> {
    return (await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'USD'))?.available ?? OPENING;
  }

  /** A clock, a receiver, and a payment on the clock with a dispute card, captured and disputed at the clock's next step. */
  async function openDispute(name: string, card: string) {
    const gw = world.gateway(name, new ManualClock(), { merchants: payoutMerchants({ USD: OPENING }) });
    const r = await receiver();
    const id = await newClock(gw.app, T0);
    const paid = await authorise(gw, { test_clock_id: id, card, notify_url: r.url });
    const order = { transaction_id: paid.transaction_id!, order_no: paid.order_no!, currency: 'USD', amount: '10.00' };
    expect((await postBatch(gw.app, 'capture', [order])).body.capture_orders[0].capture_status).toBe('1');
    await advanceTo(gw, id, T0 + HOUR);
    const [open] = await disputesOf(gw, paid.transaction_id!);
    expect(open).toMatchObject({ dispute_status: 'needs_response', opened_date: compact(T0) });
    return { gw, r, id, order, dispute: open! };
  }

  const notified = (r: NotificationReceiver) =>
    r.received.filter((n) => n.fields.notify_type === 'dispute').map((n) => n.fields.dispute_status);

  it('when losing evidence is sent, then the clock decides it lost 1 day later: the amount and the fee stay debited, a refund is refused while it was open', async () => {
    const { gw, r, id, order, dispute } = await openDispute('clocks-dispute-lost', CARDS.disputeFraud);
    expect(await balance(gw)).toBe(OPENING - 1000 - 1500);
    // refunds are refused while the dispute is open, naming it
    const refused = await postBatch(gw.app, 'refund', [{ ...order, refund_amount: '1.00', refund_reason: 'goodwill' }]);
    expect(refused.body.refund_orders[0].refund_message).toBe(
      `V2011:Transaction has an open dispute; no refund until it is closed: ${dispute.dispute_id}`,
    );
    const sent = await disputeCall(gw.app, 'disputeEvidence', {
      dispute_id: dispute.dispute_id,
      uncategorized_text: 'losing_evidence: no proof of delivery',
      submit: '1',
    });
    expect(sent.body, sent.text).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
    await advanceTo(gw, id, T0 + DAY + 2 * HOUR);
    expect((await disputesOf(gw, order.transaction_id))[0]).toMatchObject({
      dispute_status: 'lost',
      closed_date: compact(T0 + DAY + HOUR),
    });
    expect(await balance(gw)).toBe(OPENING - 1000 - 1500);
    expect(notified(r)).toEqual(['needs_response', 'under_review', 'lost']);
    for (const n of r.received) expectSigned(n);
  });

  it('when won by evidence, then the amount (not the fee) is credited back in the clock time', async () => {
    const { gw, r, id, order, dispute } = await openDispute('clocks-dispute-won-credit', CARDS.disputeNotReceived);
    expect(await balance(gw)).toBe(OPENING - 1000 - 1500);
    const sent = await disputeCall(gw.app, 'disputeEvidence', {
      dispute_id: dispute.dispute_id,
      shipping_tracking: 'winning_evidence: tracked and delivered',
      submit: '1',
    });
    expect(sent.body, sent.text).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
    await advanceTo(gw, id, T0 + 2 * DAY);
    expect((await disputesOf(gw, order.transaction_id))[0]).toMatchObject({ dispute_status: 'won' });
    expect(await balance(gw)).toBe(OPENING - 1500);
    expect(notified(r)).toEqual(['needs_response', 'under_review', 'won']);
    for (const n of r.received) expectSigned(n);
  });

  it('when the merchant accepts, then it is lost at once, dated in the clock time, and evidence after that is refused', async () => {
    const { gw, r, id, order, dispute } = await openDispute('clocks-dispute-accepted', CARDS.disputeFraud);
    const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: dispute.dispute_id });
    expect(accepted.body, accepted.text).toMatchObject({ return_status: '1', dispute_status: 'lost', closed_date: compact(T0 + HOUR) });
    const late = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: dispute.dispute_id, uncategorized_text: 'x', submit: '1' });
    expect(late.body).toMatchObject({ return_status: '0' });
    expect((await disputesOf(gw, order.transaction_id))[0]).toMatchObject({ dispute_status: 'lost' });
    // the clock's notifications go out in its time: the next advance delivers the acceptance's
    await advanceTo(gw, id, T0 + 2 * HOUR);
    expect(notified(r)).toEqual(['needs_response', 'lost']);
    for (const n of r.received) expectSigned(n);
  });

  it('when the cycle card’s dispute is accepted, then the clock reverses it 2 days later (won, credited) and charges it back 2 days after that (lost, debited), in the clock time; one advance crosses both', async () => {
    const { gw, r, id, order, dispute } = await openDispute('clocks-dispute-cycle', CARDS.disputeCycle);
    const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: dispute.dispute_id });
    expect(accepted.body, accepted.text).toMatchObject({ return_status: '1', dispute_status: 'lost' });
    await advanceTo(gw, id, T0 + 3 * DAY);
    expect((await disputesOf(gw, order.transaction_id))[0]).toMatchObject({
      dispute_status: 'won',
      closed_date: compact(T0 + HOUR + 2 * DAY),
    });
    expect(await balance(gw)).toBe(OPENING - 1500);
    const query = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: order.transaction_id });
    expect(query.body.orders_list[0].dispute_status).toBe('won');
    await advanceTo(gw, id, T0 + 30 * DAY);
    expect((await disputesOf(gw, order.transaction_id))[0]).toMatchObject({
      dispute_status: 'lost',
      closed_date: compact(T0 + HOUR + 4 * DAY),
    });
    expect(await balance(gw)).toBe(OPENING - 1000 - 1500);
    expect(notified(r).sort()).toEqual(['lost', 'lost', 'needs_response', 'won']);
    for (const n of r.received) expectSigned(n);
    // the live jobs never touch the clock's dispute
    await runLiveJobs(gw);
    expect((await disputesOf(gw, order.transaction_id))[0]!.dispute_status).toBe('lost');
  });

  it('when the clock is deleted, then the amount and fee of its dispute still open are given back to the deposit balance, and those of a decided one are not', async () => {
    const open = await openDispute('clocks-dispute-delete-open', CARDS.disputeFraud);
    expect(await balance(open.gw)).toBe(OPENING - 1000 - 1500);
    signedAnswer(await clockCall(open.gw.app, 'testClockDelete', { test_clock_id: open.id }));
    expect(await open.gw.deps.store.getDispute(MERCHANT_ID, open.dispute.dispute_id!)).toBeUndefined();
    expect(await balance(open.gw)).toBe(OPENING);

    const decided = await openDispute('clocks-dispute-delete-lost', CARDS.disputeFraud);
    const accepted = await disputeCall(decided.gw.app, 'disputeAccept', { dispute_id: decided.dispute.dispute_id });
    expect(accepted.body).toMatchObject({ return_status: '1', dispute_status: 'lost' });
    signedAnswer(await clockCall(decided.gw.app, 'testClockDelete', { test_clock_id: decided.id }));
    expect(await balance(decided.gw)).toBe(OPENING - 1000 - 1500);
  });

  it('when the clock passes due_date without evidence, then it is lost, and evidence sent after the deadline is refused saying why', async () => {
    const { gw, r, id, order, dispute } = await openDispute('clocks-dispute-late', CARDS.disputeNotReceived);
    expect(dispute.due_date).toBe(compact(T0 + 7 * DAY));
    await advanceTo(gw, id, T0 + 7 * DAY + HOUR);
    expect((await disputesOf(gw, order.transaction_id))[0]).toMatchObject({ dispute_status: 'lost', closed_date: dispute.due_date });
    const late = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: dispute.dispute_id, uncategorized_text: 'late', submit: '1' });
    expect(late.body).toMatchObject({ return_status: '0' });
    expect(String(late.body.return_message ?? late.body.message)).toMatch(/due|closed|lost/i);
    expect(notified(r)).toEqual(['needs_response', 'lost']);
    for (const n of r.received) expectSigned(n);
  });
});

describe('a hosted checkout on a clock', () => {
  it('when a checkout names a clock, then the card page pays in the clock time; an unknown clock is refused naming test_clock_id', async () => {
    const gw = world.gateway('clocks-checkout', new ManualClock());
    const id = await newClock(gw.app, T0);
    const body = checkoutBody({ test_clock_id: id }, SIGN_KEY);
    const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));
    expect(res.status, res.text).toBe(200);
    const card = new URL(String(res.body.checkout_url)).pathname;
    await request(gw.app)
      .post(`${card}/pay`)
      .type('form')
      .send({ cardholder: 'Ada Lovelace', card: CARDS.approved, expiration_month: '12', expiration_year: '2034', security_code: '737' });
    const paid = await paymentOf(gw, String(body.order_no));
    expect(paid).toMatchObject({ status: '3000', created_at: T0, test_clock_id: id });

    const unknown = checkoutBody({ test_clock_id: 'clock_unknown' }, SIGN_KEY);
    const refused = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(unknown));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^test_clock_id: names no test clock/);
  });
});

describe('a 3-D Secure challenge on a clock', () => {
  it('when the shopper answers the challenge of a clock payment, then it is settled in the clock time; an unanswered one fails at the clock’s expiry', async () => {
    const gw = world.gateway('clocks-challenge', new ManualClock());
    const id = await newClock(gw.app, T0);
    const answered = await authorise(gw, { test_clock_id: id, card: CARDS.challenge, open3d: 'do3DS' });
    expect(answered.order_status).toBe('2');
    await request(gw.app).post(new URL(answered.issuer_url!).pathname).type('form').send({ code: CHALLENGE_CODE });
    const settled = await paymentOf(gw, answered.order_no!);
    expect(settled!.status).toBe('3000');
    expect(settled!.history?.find((h) => h.to === '3000')?.at).toBe(T0);

    const left = await authorise(gw, { test_clock_id: id, card: CARDS.challenge, open3d: 'do3DS' });
    await runLiveJobs(gw);
    expect((await paymentOf(gw, left.order_no!))!.status).toBe('1000');
    await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + DAY) });
    await runClockJobs([gw], id);
    expect((await paymentOf(gw, left.order_no!))!.status).toBe('4300');
  });
});

describe('a payout on a clock', () => {
  const OPENING = 1_000_000;
  const payoutOf = async (gw: TestGateway, body: Record<string, unknown>) => {
    const res = await request(gw.app).post('/v1/payout').send(JSON.stringify(body));
    expect(res.status, res.text).toBe(200);
    return res.body as Record<string, string>;
  };
  const queried = async (gw: TestGateway, requestId: string) =>
    (
      await request(gw.app)
        .post('/v1/payout/query')
        .send(JSON.stringify(payoutQueryBody({ request_id: requestId })))
    ).body as Record<string, string>;
  const available = async (gw: TestGateway) => (await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'USD'))?.available ?? OPENING;

  it('when a payout names a clock, then its lifecycle runs in the clock time: submitted and completed as the clock moves, never by live time', async () => {
    const live = new ManualClock();
    const gw = world.gateway('clocks-payout', live, { merchants: payoutMerchants({ USD: OPENING }) });
    const r = await receiver();
    const id = await newClock(gw.app, T0);
    const body = payoutBody({ test_clock_id: id, payment_date: '2030-01-01', notify_url: r.url });
    const made = await payoutOf(gw, body);
    expect(made).toMatchObject({ status: 'PENDING', created_at: '2030-01-01T00:00:00+0000' });
    expect(made).not.toHaveProperty('test_clock_id');
    // a day of live time and the live jobs: the clock's payout does not move
    live.advance(DAY);
    await runLiveJobs(gw);
    expect(await queried(gw, String(body.request_id))).toMatchObject({ status: 'PENDING' });
    // ten minutes of the clock: submitted after 60 s, completed 5 minutes later, each dated in the clock time
    signedAnswer(await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + 10 * 60_000) }));
    await runClockJobs([gw], id);
    expect(await queried(gw, String(body.request_id))).toMatchObject({ status: 'COMPLETED', last_updated_at: '2030-01-01T00:06:00+0000' });
    expect(r.received.filter((n) => n.fields.notify_type === 'payout').map((n) => n.fields.status)).toEqual([
      'PENDING',
      'PROCESSING',
      'COMPLETED',
    ]);
  });

  it('when a payout names an unknown clock, then it is refused naming test_clock_id and nothing is debited', async () => {
    const gw = world.gateway('clocks-payout-refused', new ManualClock(), { merchants: payoutMerchants({ USD: OPENING }) });
    const res = await request(gw.app)
      .post('/v1/payout')
      .send(JSON.stringify(payoutBody({ test_clock_id: 'clock_nosuchclock' })));
    expect(res.status).toBe(400);
    expect(res.text).toContain('test_clock_id');
    expect(await available(gw)).toBe(OPENING);
  });

  it('when the clock is deleted, then its payouts are gone, and the debit of one not completed is credited back', async () => {
    const gw = world.gateway('clocks-payout-delete', new ManualClock(), { merchants: payoutMerchants({ USD: OPENING }) });
    const id = await newClock(gw.app, T0);
    const body = payoutBody({ test_clock_id: id, payment_date: '2030-01-01' });
    const made = await payoutOf(gw, body);
    expect(await available(gw)).toBeLessThan(OPENING);
    signedAnswer(await clockCall(gw.app, 'testClockDelete', { test_clock_id: id }));
    expect(await gw.deps.store.getPayout(MERCHANT_ID, made.transaction_id!)).toBeUndefined();
    expect(await available(gw)).toBe(OPENING);
    // its request_id is free again (a live payout now)
    expect((await payoutOf(gw, payoutBody({ request_id: body.request_id }))).status).toBe('PENDING');
  });
});

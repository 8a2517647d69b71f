import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import {
  ACCOUNT_ID,
  AUTO_ACCOUNT_ID,
  AUTO_SIGN_KEY,
  MERCHANT_ID,
  authoriseBody,
  makeGateway,
  type TestGateway,
} from '../../support/gateway.js';
import { pay, postBatch, ref, type Paid } from '../../support/operations.js';
import { jobOf } from '../../support/jobs.js';
import { StripeStub } from '../../support/acquirers/stripe-stub.js';
import { AdyenStub } from '../../support/acquirers/adyen-stub.js';
import { ADYEN_ENV, ADYEN_HMAC, STRIPE_ENV, acquirerMerchants } from '../../support/acquirers/accounts.js';
import { stripeDelivery } from '../../support/acquirers/deliveries.js';
import { CHALLENGE_WINDOW_MS } from '../../../src/core/payments/settle.js';

/**
 * Acquirers as they really behave: a request still running at Stripe when the gateway's connection to it drops
 * (a proxy that forwards it seconds later), a Stripe intent answered `processing`, an Adyen payment answered
 * `Received`. The gateway settles such an operation only by the acquirer's definite word (the same request sent
 * again under its Idempotency-Key, or the acquirer's objects once they show it), never by the absence of a
 * refund or a capture in a read that races the request, and an authorisation decided later stays pending.
 */
const stripe = new StripeStub();
const adyen = new AdyenStub();
beforeAll(() => Promise.all([stripe.start(), adyen.start()]));
afterAll(() => Promise.all([stripe.stop(), adyen.stop()]));

function gateway(name: string): { gw: TestGateway; clock: ManualClock } {
  const clock = new ManualClock();
  const gw = makeGateway({
    name: `stripe-unknown-${name}`,
    clock,
    merchants: acquirerMerchants('stripe', stripe.baseUrl),
    env: STRIPE_ENV,
  });
  return { gw, clock };
}

const refundsAtStripe = (p: Paid): number[] => {
  const pi = stripe.intentFor(p.transaction_id)!;
  return [...stripe.refunds.values()].filter((r) => r.payment_intent === pi.id).map((r) => r.amount);
};
const capturesAtStripe = (p: Paid): number[] => {
  const pi = stripe.intentFor(p.transaction_id)!;
  return stripe.captures.filter(([id]) => id === pi.id).map(([, amount]) => amount);
};
/** Notifications are kept in the outbox (a closed loopback port: nothing is delivered during the test). */
const NOTIFY = { notify_url: 'http://127.0.0.1:9/notify' };
const stored = (gw: TestGateway, transactionId: string) => gw.deps.store.getPayment(MERCHANT_ID, transactionId);
const notes = async (gw: TestGateway, orderNo: string, type: string, account = ACCOUNT_ID) =>
  (await gw.deps.store.outboxOfOrder(MERCHANT_ID, account, orderNo, 50)).filter((n) => n.notify_type === type);

/** The claim goes stale and the recovery job runs, as it does every few seconds in a running gateway. */
async function recover(gw: TestGateway, clock: ManualClock): Promise<void> {
  clock.advance(gw.deps.pendingResolveMs + 1_000);
  await jobOf(gw, 'pending-resolve').runOnce();
}

/** Stripe's SDK sends a request whose connection closed once more by itself: both are held, and made later. */
const dropThenAct = (path: (p: string) => boolean) => stripe.server.fail('drop-then-act', (r) => r.method === 'POST' && path(r.path), 2);

describe('a Stripe operation still running at Stripe when the connection dropped', () => {
  it('when Stripe makes a refund after the gateway gave up on its answer, then the merchant is told V5002 (never "nothing was changed"), recovery records it once, and the merchant’s retry refunds nothing more', async () => {
    const { gw, clock } = gateway('refund');
    try {
      const paid = await pay(gw.app, { amount: '50.00', ...NOTIFY });
      expect((await postBatch(gw.app, 'capture', [ref(paid)])).body.capture_orders[0].capture_status).toBe('1');
      const order = ref(paid, { refund_amount: '20.00', refund_reason: 'returned' });

      dropThenAct((p) => p === '/v1/refunds');
      const first = await postBatch(gw.app, 'refund', [order]);
      expect(first.body.refund_orders[0].refund_message).toMatch(/^V5002:/);
      // the proxy forwards the request now: Stripe makes the refund under the reference the gateway sent
      expect(stripe.server.actDeferred()).toBe(2);
      expect(refundsAtStripe(paid)).toEqual([2000]);

      await recover(gw, clock);
      const settled = await stored(gw, paid.transaction_id);
      expect(settled?.claim).toBeUndefined();
      expect(settled?.refunds.map((r) => [r.refund_reference_id, r.refund_amount])).toEqual([[`${paid.transaction_id}-01`, 2000]]);
      expect(await notes(gw, paid.order_no, 'refund')).toHaveLength(1);

      // the merchant, told the outcome was being recorded, sends the same refund again: it names the one made
      const again = await postBatch(gw.app, 'refund', [order]);
      expect(again.body.refund_orders[0].refund_message).toBe(`V3005:Identical to a recent refund: ${paid.transaction_id}-01`);
      expect(refundsAtStripe(paid)).toEqual([2000]);
      expect((await stored(gw, paid.transaction_id))?.refunded).toBe(2000);
    } finally {
      await gw.close();
    }
  });

  it('when the merchant sends the refund again before recovery ran, then the retry waits for the first one’s outcome and Stripe refunds once', async () => {
    const { gw, clock } = gateway('refund-retry');
    try {
      const paid = await pay(gw.app, { amount: '50.00', ...NOTIFY });
      await postBatch(gw.app, 'capture', [ref(paid)]);
      const order = ref(paid, { refund_amount: '20.00', refund_reason: 'returned' });
      dropThenAct((p) => p === '/v1/refunds');
      expect((await postBatch(gw.app, 'refund', [order])).body.refund_orders[0].refund_message).toMatch(/^V5002:/);
      stripe.server.actDeferred();
      // the first refund's claim has gone stale by the time the retry arrives: the retry settles it first
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      const again = await postBatch(gw.app, 'refund', [order]);
      expect(again.body.refund_orders[0].refund_message).toBe(`V3005:Identical to a recent refund: ${paid.transaction_id}-01`);
      expect(refundsAtStripe(paid)).toEqual([2000]);
      const p = await stored(gw, paid.transaction_id);
      expect([p?.refunded, p?.refunds.length, p?.claim]).toEqual([2000, 1, undefined]);
    } finally {
      await gw.close();
    }
  });

  it('when a refund is still running at Stripe at recovery, then it is sent again under its reference: Stripe makes it once, and the gateway records it', async () => {
    const { gw, clock } = gateway('refund-resent');
    try {
      const paid = await pay(gw.app, { amount: '50.00', ...NOTIFY });
      await postBatch(gw.app, 'capture', [ref(paid)]);
      dropThenAct((p) => p === '/v1/refunds');
      const first = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '20.00', refund_reason: 'returned' })]);
      expect(first.body.refund_orders[0].refund_message).toMatch(/^V5002:/);
      // Stripe never got it: the claim stays, and recovery's repeat under the same key is the first Stripe sees
      await recover(gw, clock);
      expect(refundsAtStripe(paid)).toEqual([2000]);
      // the held requests arrive late, under the same Idempotency-Key: Stripe answers them the first result
      stripe.server.actDeferred();
      expect(refundsAtStripe(paid)).toEqual([2000]);
      const p = await stored(gw, paid.transaction_id);
      expect([p?.refunded, p?.refunds[0]?.refund_reference_id, p?.claim]).toEqual([2000, `${paid.transaction_id}-01`, undefined]);
    } finally {
      await gw.close();
    }
  });

  it('when Stripe makes a capture after the gateway gave up on its answer, then recovery records the capture Stripe made, and a capture of another amount is refused as captured (its reference never reused)', async () => {
    const { gw, clock } = gateway('capture');
    try {
      const paid = await pay(gw.app, { amount: '50.00', ...NOTIFY });
      dropThenAct((p) => p.endsWith('/capture'));
      const first = await postBatch(gw.app, 'capture', [ref(paid)]);
      expect(first.body.capture_orders[0].error_message).toMatch(/^V5002:/);
      stripe.server.actDeferred();
      expect(capturesAtStripe(paid)).toEqual([5000]);

      await recover(gw, clock);
      const p = await stored(gw, paid.transaction_id);
      expect([p?.status, p?.captured, p?.claim]).toEqual(['3100', 5000, undefined]);
      expect(await notes(gw, paid.order_no, 'capture')).toHaveLength(1);

      const other = await postBatch(gw.app, 'capture', [ref(paid, { amount: '30.00' })]);
      expect(other.body.capture_orders[0].error_message).toMatch(/^V2001:/);
      expect(capturesAtStripe(paid)).toEqual([5000]);
      // never expired over a payment the shopper paid
      clock.advance(8 * 86_400_000);
      await jobOf(gw, 'auth-expiry').runOnce();
      expect((await stored(gw, paid.transaction_id))?.status).toBe('3100');
    } finally {
      await gw.close();
    }
  });
});

describe('a Stripe intent answered processing', () => {
  const processing = async (gw: TestGateway, auto = false) => {
    stripe.processNext();
    const body = authoriseBody({ ...NOTIFY, ...(auto ? { account_id: AUTO_ACCOUNT_ID } : {}) }, auto ? AUTO_SIGN_KEY : undefined);
    const res = await request(gw.app)
      .post('/v1/authorise')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify(body));
    const transactionId = /<transaction_id>([^<]+)</.exec(res.text)![1]!;
    return { res, orderNo: String(body.order_no), transactionId, intent: stripe.intentFor(transactionId)! };
  };

  it('when Stripe answers processing, then the payment is pending (never declined), and Stripe’s approval event settles it with one notification', async () => {
    const { gw } = gateway('processing-approved');
    try {
      const { res, orderNo, transactionId, intent } = await processing(gw);
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/<order_status>2<\/order_status>/);
      expect(res.text).toMatch(/<result_info>2003:Processing<\/result_info>/);
      expect((await stored(gw, transactionId))?.status).toBe('1000');
      expect(await notes(gw, orderNo, 'payment')).toHaveLength(0);

      stripe.settleProcessing(intent.id, true);
      const event = stripe.pendingEvents().find((e) => e.data.object.id === intent.id)!;
      expect(event.type).toBe('payment_intent.amount_capturable_updated');
      expect((await stripeDelivery(gw, event.type, event.data.object, event.id)).status).toBe(200);
      const p = await stored(gw, transactionId);
      expect([p?.status, p?.claim, p?.connector_ref]).toEqual(['3000', undefined, intent.id]);
      expect((await notes(gw, orderNo, 'payment')).map((n) => n.fields.order_status)).toEqual(['1']);
      // the same order sent again answers the approval
      const again = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(authoriseBody({ order_no: orderNo, ...NOTIFY })));
      expect(again.text).toMatch(/<order_status>1<\/order_status>/);
      expect([...stripe.intents.values()].filter((pi) => pi.metadata.gateway_reference === transactionId)).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });

  it('when an automatic-capture intent is processing and Stripe’s event never comes, then recovery reads it and records it captured once Stripe has', async () => {
    const { gw, clock } = gateway('processing-auto');
    try {
      const { res, transactionId, intent } = await processing(gw, true);
      expect(res.text).toMatch(/<order_status>2<\/order_status>/);
      // still processing at Stripe: recovery leaves it pending, and reads it again later
      await recover(gw, clock);
      expect((await gw.deps.store.getPayment(MERCHANT_ID, transactionId))?.status).toBe('1000');
      stripe.settleProcessing(intent.id, true);
      clock.advance(gw.deps.pendingResolveMs * 2);
      await jobOf(gw, 'pending-resolve').runOnce();
      const p = await gw.deps.store.getPayment(MERCHANT_ID, transactionId);
      expect([p?.status, p?.captured, p?.claim]).toEqual(['3100', p?.amount, undefined]);
      expect((await gw.deps.store.outboxOfOrder(MERCHANT_ID, AUTO_ACCOUNT_ID, p!.order_no, 10)).map((n) => n.notify_type)).toEqual([
        'payment',
      ]);
    } finally {
      await gw.close();
    }
  });

  it('when Stripe declines an intent it answered processing, then the payment is declined when Stripe says so, not before', async () => {
    const { gw } = gateway('processing-declined');
    try {
      const { orderNo, transactionId, intent } = await processing(gw);
      stripe.settleProcessing(intent.id, false);
      const event = stripe.pendingEvents().find((e) => e.data.object.id === intent.id)!;
      expect(event.type).toBe('payment_intent.payment_failed');
      await stripeDelivery(gw, event.type, event.data.object, event.id);
      const p = await stored(gw, transactionId);
      expect([p?.status, p?.result_code, p?.claim]).toEqual(['4000', '3001', undefined]);
      expect((await notes(gw, orderNo, 'payment')).map((n) => n.fields.order_status)).toEqual(['0']);
    } finally {
      await gw.close();
    }
  });

  it('when the merchant cancels a payment still processing at Stripe, then it is refused as in process, and nothing is voided before Stripe decides', async () => {
    const { gw } = gateway('processing-cancel');
    try {
      const { transactionId } = await processing(gw);
      const p = (await stored(gw, transactionId))!;
      const cancel = await postBatch(gw.app, 'cancel', [
        { transaction_id: transactionId, order_no: p.order_no, currency: p.currency, amount: (p.amount / 100).toFixed(2) },
      ]);
      expect(cancel.body.cancel_orders[0].cancel_status).toBe('0');
      expect(cancel.body.cancel_orders[0].error_message).toMatch(/^V2005:/);
      expect((await stored(gw, transactionId))?.status).toBe('1000');
    } finally {
      await gw.close();
    }
  }, 40_000);
});

describe('an Adyen payment answered Received', () => {
  it('when Adyen answers Received, then the payment is pending, and its AUTHORISATION notification settles it once', async () => {
    const clock = new ManualClock();
    const gw = makeGateway({ name: 'adyen-received', clock, merchants: acquirerMerchants('adyen', adyen.baseUrl), env: ADYEN_ENV });
    try {
      adyen.receiveNext();
      const body = authoriseBody(NOTIFY);
      const res = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(body));
      expect(res.text).toMatch(/<order_status>2<\/order_status>/);
      const transactionId = /<transaction_id>([^<]+)</.exec(res.text)![1]!;
      // recovery has nothing to decide on yet: Adyen has not said
      await recover(gw, clock);
      expect((await stored(gw, transactionId))?.status).toBe('1000');
      adyen.decideReceived(transactionId, true);
      const item = adyen.notification('AUTHORISATION', transactionId, ADYEN_HMAC);
      const hook = await request(gw.app)
        .post(`/connectors/adyen/webhook/${ACCOUNT_ID}`)
        .send({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
      expect(hook.status).toBe(200);
      const p = await stored(gw, transactionId);
      expect([p?.status, p?.claim]).toEqual(['3000', undefined]);
      expect((await notes(gw, String(body.order_no), 'payment')).map((n) => n.fields.order_status)).toEqual(['1']);
      expect([...adyen.payments.values()].filter((x) => x.reference === transactionId)).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });
});

describe('a Stripe request that Stripe carries out after the gateway settled without it', () => {
  /** A Stripe stub of its own on the gateway's clock, whose search trails its intents by `searchLagMs`. */
  async function onClock(name: string, searchLagMs = 0) {
    const clock = new ManualClock();
    const stub = await new StripeStub({ searchLagMs: () => searchLagMs }).start();
    stub.useClock(() => clock.now());
    const gw = makeGateway({
      name: `stripe-acted-later-${name}`,
      clock,
      merchants: acquirerMerchants('stripe', stub.baseUrl),
      env: STRIPE_ENV,
    });
    return { gw, clock, stub, close: () => Promise.all([gw.close(), stub.stop()]) };
  }
  const postAuthorise = (gw: TestGateway, body: Record<string, unknown>) =>
    request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));

  it('when Stripe authorises an intent after recovery recorded the payment "never sent" (its search still empty), then Stripe’s approval event voids it, and the order sent again answers the decline', async () => {
    const { gw, clock, stub, close } = await onClock('late-approval', 90_000);
    try {
      const body = authoriseBody(NOTIFY);
      // Stripe takes the request, the answer is lost, and Stripe creates the intent 45 s later
      stub.server.fail('act-later', (r) => r.method === 'POST' && r.path === '/v1/payment_intents', 1, 45_000);
      const first = await postAuthorise(gw, body);
      expect(first.text).not.toMatch(/<order_status>1<\/order_status>/);
      const transactionId = (await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no)))!.transaction_id;
      // recovery: Stripe's search, trailing by 90 s, shows nothing past the connector's lag: "no record"
      await recover(gw, clock);
      await recover(gw, clock);
      expect(await stored(gw, transactionId)).toMatchObject({ status: '4000', result_code: '5001' });
      const intent = stub.intentFor(transactionId)!;
      expect(intent.status).toBe('requires_capture');

      // Stripe's event of the authorisation it made arrives: the shopper, told "not charged", is not
      for (const e of stub.pendingEvents()) await stripeDelivery(gw, e.type, e.data.object, e.id);
      expect(stub.intentFor(transactionId)?.status).toBe('canceled');
      expect(await stored(gw, transactionId)).toMatchObject({ status: '4000' });
      // the merchant sends the order again: Stripe's first answer (the approval it has voided) records nothing
      const again = await postAuthorise(gw, body);
      expect(again.text).toMatch(/<order_status>0<\/order_status>/);
      expect(await stored(gw, transactionId)).toMatchObject({ status: '4000' });
      expect([...stub.intents.values()].filter((pi) => pi.metadata.gateway_reference === transactionId)).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('when Stripe charges an automatic-capture intent after recovery recorded the payment "never sent", then its void is refused and the charge the shopper paid is recorded (3100), with its notification', async () => {
    const { gw, clock, stub, close } = await onClock('late-charge');
    try {
      const body = authoriseBody({ ...NOTIFY, account_id: AUTO_ACCOUNT_ID }, AUTO_SIGN_KEY);
      // the answer is lost and Stripe charges 150 s later: after recovery gave up on it
      stub.server.fail('act-later', (r) => r.method === 'POST' && r.path === '/v1/payment_intents', 1, 150_000);
      await postAuthorise(gw, body);
      const transactionId = (await gw.deps.store.findPaymentByOrder(MERCHANT_ID, AUTO_ACCOUNT_ID, String(body.order_no)))!.transaction_id;
      await recover(gw, clock);
      await recover(gw, clock);
      expect(await stored(gw, transactionId)).toMatchObject({ status: '4000', never_sent: true });
      clock.advance(30_000);
      stub.settle();
      expect(stub.intentFor(transactionId)?.status).toBe('succeeded');

      for (const e of stub.pendingEvents()) await stripeDelivery(gw, e.type, e.data.object, e.id, undefined, AUTO_ACCOUNT_ID);
      const p = await stored(gw, transactionId);
      expect([p?.status, p?.captured, p?.claim, p?.never_sent]).toEqual(['3100', p?.amount, undefined, undefined]);
      expect((await notes(gw, String(body.order_no), 'payment', AUTO_ACCOUNT_ID)).map((n) => n.fields.order_status).sort()).toEqual([
        '0',
        '1',
      ]);
      expect(stub.intentFor(transactionId)?.status).toBe('succeeded');
      expect(stub.captures).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('when the cancel that ends an expired challenge is still running at Stripe while the shopper passes there, then the gateway waits for the cancel’s own answer and records the challenge failed, never an approval Stripe voids', async () => {
    const { gw, clock, stub, close } = await onClock('late-cancel');
    try {
      const res = await postAuthorise(gw, authoriseBody({ card: '4000002500003155', open3d: 'do3DS', ...NOTIFY }));
      const transactionId = /<transaction_id>([^<]+)</.exec(res.text)![1]!;
      const intent = stub.intentFor(transactionId)!;
      // the expiry sweep cancels the intent at Stripe: the cancel's answer is lost, and Stripe makes it 90 s later
      stub.server.fail('act-later', (r) => r.method === 'POST' && r.path.endsWith('/cancel'), 1, 90_000);
      clock.advance(CHALLENGE_WINDOW_MS + 60_000);
      await jobOf(gw, 'threeds-challenge-expiry').runOnce();
      expect(await stored(gw, transactionId)).toMatchObject({ status: '1000' });
      // meanwhile the shopper passes Stripe's challenge: Stripe authorises the intent, then carries out the cancel
      stub.finishChallenge(intent.id, true);
      await recover(gw, clock);
      expect((await stored(gw, transactionId))?.status).not.toBe('3000');
      clock.advance(90_000);
      await recover(gw, clock);
      expect(stub.intentFor(transactionId)?.status).toBe('canceled');
      expect(await stored(gw, transactionId)).toMatchObject({ status: '4300', claim: undefined });
    } finally {
      await close();
    }
  });
});

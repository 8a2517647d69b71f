import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, MERCHANT_ID, authoriseBody, makeGateway, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref } from '../../support/operations.js';
import { authorise, dailyPlan, jobOf } from '../../support/jobs.js';
import { faultyStore } from '../../support/faults.js';
import { CHALLENGE_WINDOW_MS } from '../../../src/core/payments/settle.js';
import { ADYEN_ENV, ADYEN_HMAC, acquirerMerchants } from '../../support/acquirers/accounts.js';
import { stripeDelivery } from '../../support/acquirers/deliveries.js';
import { acquirerStubs } from '../../support/acquirers/stubs-world.js';

/**
 * The /v1 money flows with the account routed to Stripe and to Adyen (docs/connectors.md), each against its stub:
 * what the merchant sees, and what the acquirer's own records show (never two charges or captures).
 */
const { stripe, adyen, gateway } = acquirerStubs('acquirer');

/** A direct payment on the 3-D Secure test card: the answer, its issuer_url and its transaction. */
async function challenged(gw: TestGateway): Promise<{ res: request.Response; issuer: URL; transactionId: string }> {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(JSON.stringify(authoriseBody({ card: '4000002500003155', open3d: 'do3DS' })));
  return {
    res,
    issuer: new URL(/<issuer_url>([^<]+)<\/issuer_url>/.exec(res.text)![1]!.replace(/&amp;/g, '&')),
    transactionId: /<transaction_id>([^<]+)</.exec(res.text)![1]!,
  };
}

/**
 * The shopper on the acquirer's own challenge page: the gateway's page hands them over, they pass or fail there,
 * and the acquirer answers the address it sends them back to (the challenge's return route).
 */
async function answeredAtAcquirer(gw: TestGateway, issuer: URL, result: 'pass' | 'fail'): Promise<URL> {
  const handOff = await request(gw.app).get(issuer.pathname);
  const answered = await fetch(handOff.headers.location!, { method: 'POST', body: new URLSearchParams({ result }), redirect: 'manual' });
  return new URL(answered.headers.get('location')!);
}

const payment = (gw: TestGateway, orderNo: string) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, orderNo);

describe.each(['stripe', 'adyen'] as const)('the /v1 money flows routed to %s', (code) => {
  const acquirerCharges = (reference: string): number =>
    code === 'stripe'
      ? [...stripe.intents.values()].filter((pi) => pi.metadata.gateway_reference === reference).length
      : [...adyen.payments.values()].filter((p) => p.reference === reference).length;
  const acquirerCaptures = (reference: string): number[] => {
    if (code === 'stripe') {
      const pi = stripe.intentFor(reference);
      return stripe.captures.filter(([id]) => id === pi?.id).map(([, amount]) => amount);
    }
    const psp = adyen.paymentFor(reference)?.pspReference;
    return adyen.modifications.filter((m) => m.kind === 'capture' && m.paymentPspReference === psp).map((m) => m.amount!.value);
  };

  it('when paid, captured in part and refunded twice, then the merchant sees each result and the acquirer moved each amount once', async () => {
    const { gw } = gateway(code, 'flows');
    try {
      const paid = await pay(gw.app, { amount: '50.00', currency: 'EUR' });
      expect(paid.order_status).toBe('1');
      expect((await payment(gw, paid.order_no))?.status).toBe('3000');
      const captured = await postBatch(gw.app, 'capture', [ref(paid, { amount: '30.00' })]);
      expect(captured.status).toBe(200);
      expect((await payment(gw, paid.order_no))?.status).toBe('3100');
      expect(acquirerCaptures(paid.transaction_id)).toEqual([3000]);
      for (const amount of ['10.00', '15.00']) {
        const refunded = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: amount, refund_reason: 'returned' })]);
        expect(refunded.status).toBe(200);
      }
      const p = await payment(gw, paid.order_no);
      expect(p?.refunds.map((r) => [r.refund_status, r.refund_amount])).toEqual([
        ['1', 1000],
        ['1', 1500],
      ]);
      expect(acquirerCharges(paid.transaction_id)).toBe(1);

      const voided = await pay(gw.app);
      const cancelled = await postBatch(gw.app, 'cancel', [ref(voided)]);
      expect(cancelled.status).toBe(200);
      expect((await payment(gw, voided.order_no))?.status).toBe('4100');
    } finally {
      await gw.close();
    }
  });

  it('when the acquirer asks for 3-D Secure, then the payment waits on the challenge page and the acquirer’s result settles it', async () => {
    const { gw } = gateway(code, '3ds');
    try {
      const { res, issuer, transactionId } = await challenged(gw);
      expect(res.text).toMatch(/<order_status>2<\/order_status>/);
      // the shopper passes the acquirer's challenge; the acquirer's return data is the answer
      let answer = '';
      if (code === 'stripe') stripe.finishChallenge(stripe.intentFor(transactionId)!.id, true);
      else answer = adyen.redirectResult(adyen.paymentFor(transactionId)!.pspReference, true);
      const done = await request(gw.app).post(issuer.pathname).type('form').send({ code: answer });
      expect(done.status).toBe(200);
      const p = await gw.deps.store.getPayment(MERCHANT_ID, transactionId);
      expect(p).toMatchObject({ status: '3000', threeds: { challenge_pending: false } });
      expect(acquirerCharges(transactionId)).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('when the acquirer runs its own 3-D Secure page, then /v1/authorise answers issuer_url on the gateway, which hands the shopper over, and the return settles the payment once', async () => {
    const { gw } = gateway(code, '3ds-handoff');
    try {
      const { res, issuer, transactionId } = await challenged(gw);
      // docs/api.md: pending (2) with issuer_url, the gateway's hosted challenge page (a GET address)
      expect(res.text).toMatch(/<order_status>2<\/order_status>/);
      expect(issuer.origin).toBe('http://gateway.test');
      // the hosted challenge page hands the shopper to the acquirer's own page, keeping the addresses the
      // merchant appended to issuer_url (the shopper comes back through the acquirer, not through a form)
      const appended = new URLSearchParams({ notify_url: 'https://merchant.example/notify', return_url: 'https://shop.example/back' });
      const handOff = await request(gw.app).get(`${issuer.pathname}?${appended}`);
      expect(handOff.status).toBe(303);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({
        notify_url: 'https://merchant.example/notify',
        return_url: 'https://shop.example/back',
      });
      const challenge = new URL(handOff.headers.location!);
      const stub = code === 'stripe' ? stripe : adyen;
      expect(challenge.origin).toBe(stub.baseUrl);
      // the shopper passes it there; the acquirer sends them back to the challenge's return address
      const passed = await fetch(challenge, { method: 'POST', body: new URLSearchParams({ result: 'pass' }), redirect: 'manual' });
      expect(passed.status).toBe(303);
      const back = new URL(passed.headers.get('location')!);
      expect(back.pathname).toBe(`${issuer.pathname}/return`);
      expect(back.searchParams.get(code === 'stripe' ? 'payment_intent' : 'redirectResult')).toBeTruthy();
      const returned = await request(gw.app).get(`${back.pathname}${back.search}`);
      expect(returned.status).toBe(200);
      expect(returned.text).toContain('Payment successful');
      // the same return again (a reload) answers the same result: settled once, charged once
      const again = await request(gw.app).get(`${back.pathname}${back.search}`);
      expect(again.text).toContain('Payment successful');
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({
        status: '3000',
        threeds: { challenge_pending: false },
      });
      expect(acquirerCharges(transactionId)).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('when the shopper fails the acquirer’s own challenge, then the return records 3-D Secure failed (4300)', async () => {
    const { gw } = gateway(code, '3ds-handoff-fail');
    try {
      const { issuer, transactionId } = await challenged(gw);
      const back = await answeredAtAcquirer(gw, issuer, 'fail');
      const returned = await request(gw.app).get(`${back.pathname}${back.search}`);
      expect(returned.text).toContain('3-D Secure authentication failed');
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
      // a return naming another intent, or to an unknown address, changes nothing
      const stranger = await request(gw.app).get(`${issuer.pathname}/return?payment_intent=pi_other`);
      expect(stranger.status).toBe(404);
    } finally {
      await gw.close();
    }
  });

  it('when a subscription’s period is due, then its stored card is charged at the acquirer once, as a recurring charge', async () => {
    const { gw, clock } = gateway(code, 'subscription');
    try {
      const answer = await authorise(gw, { subscription: dailyPlan() });
      expect(answer.order_status).toBe('1');
      const scheduler = jobOf(gw, 'subscription-charges');
      clock.advance(86_400_000 + 60_000);
      await scheduler.runOnce();
      await scheduler.runOnce();
      const charge = await payment(gw, `${answer.recurring_id}-2`);
      expect(charge).toMatchObject({ status: '3000', source: 'recurring', amount: 2500 });
      expect(acquirerCharges(charge!.transaction_id)).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('when the account captures automatically, then the acquirer captures with the authorisation, once', async () => {
    const { gw } = gateway(code, 'auto');
    try {
      const paid = await pay(gw.app, {}, true);
      const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, AUTO_ACCOUNT_ID, paid.order_no);
      expect(p).toMatchObject({ status: '3100', captured: 1000 });
      if (code === 'stripe') expect(stripe.intentFor(p!.transaction_id)).toMatchObject({ status: 'succeeded', amount_received: 1000 });
      else expect(adyen.paymentFor(p!.transaction_id)).toMatchObject({ captured: 1000 });
      // and the manual account's payment is only authorised
      const manual = await pay(gw.app);
      expect(acquirerCaptures(manual.transaction_id)).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('when the acquirer declines, then the merchant gets the decline with its reason', async () => {
    const { gw } = gateway(code, 'declines');
    try {
      const res = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(authoriseBody({ card: '4000000000009995' })));
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/<order_status>0<\/order_status>/);
      expect(res.text).toMatch(/<result_info>3002:Insufficient funds<\/result_info>/);
      const fraud = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(authoriseBody({ card: '4100000000000019' })));
      expect(fraud.text).toMatch(/<result_info>3010:Declined as suspected fraud<\/result_info>/);
    } finally {
      await gw.close();
    }
  });

  it('when the acquirer acts but its answer is lost, then the merchant gets 503 (outcome unknown) and recovery settles it, charged once', async () => {
    const { gw, clock } = gateway(code, 'lost-answer');
    try {
      const body = authoriseBody();
      const server = code === 'stripe' ? stripe.server : adyen.server;
      // the answer is lost (Stripe's SDK tries a closed connection once more: two drops), and so is the status
      server.fail('act-then-drop', (r) => r.method === 'POST', code === 'stripe' ? 2 : 1);
      if (code === 'stripe') server.fail('drop', (r) => r.method === 'GET', 2);
      const res = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(body));
      expect(res.status).toBe(503);
      expect(res.text).toMatch(/OUTCOME_UNKNOWN/);
      const pending = await payment(gw, String(body.order_no));
      expect(pending?.status).toBe('1000');
      expect(pending?.claim).toBeDefined();
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      if (code === 'adyen') {
        // Adyen cannot be asked by reference: the claim waits for its notification, which settles it
        await jobOf(gw, 'pending-resolve').runOnce();
        expect((await payment(gw, String(body.order_no)))?.status).toBe('1000');
        const item = adyen.notification('AUTHORISATION', pending!.transaction_id, ADYEN_HMAC);
        const hook = await request(gw.app)
          .post(`/connectors/adyen/webhook/${ACCOUNT_ID}`)
          .send({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
        expect(hook.status).toBe(200);
      } else {
        await jobOf(gw, 'pending-resolve').runOnce();
      }
      const settled = await payment(gw, String(body.order_no));
      expect(settled?.status).toBe('3000');
      expect(settled?.claim).toBeUndefined();
      expect(acquirerCharges(settled!.transaction_id)).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('when the acquirer cannot be reached at all, then the merchant gets 503 and the same order sent again is authorised once', async () => {
    const { gw, clock } = gateway(code, 'unreachable');
    try {
      const body = authoriseBody();
      const send = () =>
        request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));
      const server = code === 'stripe' ? stripe.server : adyen.server;
      server.down();
      try {
        expect((await send()).status).toBe(503);
      } finally {
        server.down(false);
      }
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      const again = await send();
      const p = await payment(gw, String(body.order_no));
      // Stripe is asked (its search); Adyen cannot be asked by reference, so the retry, sent again under the
      // same Idempotency-Key, is the probe: Adyen answers its first answer, or acts now, once
      expect(again.status).toBe(200);
      expect(again.text).toMatch(/<order_status>1<\/order_status>/);
      expect(p?.status).toBe('3000');
      expect(acquirerCharges(p!.transaction_id)).toBe(1);
    } finally {
      await gw.close();
    }
  });
});

describe('a challenge on the acquirer’s own page that the gateway ends (its expiry, or the shopper’s cancel)', () => {
  /** The challenged payment's time runs out and the expiry sweep runs. */
  async function expire(gw: TestGateway, clock: ManualClock): Promise<void> {
    clock.advance(CHALLENGE_WINDOW_MS + 60_000);
    await jobOf(gw, 'threeds-challenge-expiry').runOnce();
  }

  it('when the shopper passed Stripe’s challenge but never came back, then the expiry records the approval Stripe holds, never 4300', async () => {
    const { gw, clock } = gateway('stripe', 'expiry-passed');
    try {
      const { transactionId } = await challenged(gw);
      // the shopper passed on Stripe's page and closed the tab there: Stripe has authorised, no return came
      const intent = stripe.intentFor(transactionId)!;
      stripe.finishChallenge(intent.id, true);
      await expire(gw, clock);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({
        status: '3000',
        threeds: { challenge_pending: false },
      });
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'requires_capture' });
    } finally {
      await gw.close();
    }
  });

  it('when the shopper has not answered Stripe’s challenge at the expiry, then the intent is cancelled at Stripe, so a late answer there cannot authorise it', async () => {
    const { gw, clock } = gateway('stripe', 'expiry-waiting');
    try {
      const { issuer, transactionId } = await challenged(gw);
      const handOff = await request(gw.app).get(issuer.pathname);
      const stripePage = new URL(handOff.headers.location!);
      await expire(gw, clock);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'canceled' });
      // the shopper finishes on Stripe's page after all: Stripe has nothing left to authorise
      const late = await fetch(stripePage, { method: 'POST', body: new URLSearchParams({ result: 'pass' }), redirect: 'manual' });
      expect(late.status).toBe(404);
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'canceled' });
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
    } finally {
      await gw.close();
    }
  });

  it('when the shopper passes Stripe’s challenge and Stripe’s event arrives before their return (or instead of it), then the event records the approval at once, and the return finds it', async () => {
    const { gw } = gateway('stripe', 'event-passed');
    try {
      const { issuer, transactionId } = await challenged(gw);
      const intent = stripe.intentFor(transactionId)!;
      // still waiting at Stripe: its event settles nothing
      expect((await stripeDelivery(gw, 'payment_intent.requires_action', intent, 'evt_waiting')).status).toBe(200);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({
        status: '1000',
        threeds: { challenge_pending: true },
      });
      stripe.finishChallenge(intent.id, true);
      expect((await stripeDelivery(gw, 'payment_intent.amount_capturable_updated', intent, 'evt_passed')).status).toBe(200);
      const settled = await gw.deps.store.getPayment(MERCHANT_ID, transactionId);
      expect(settled).toMatchObject({ status: '3000', threeds: { challenge_pending: false }, connector_ref: intent.id });
      // sent again, and the shopper's return after all: both find it settled, nothing moves
      expect((await stripeDelivery(gw, 'payment_intent.amount_capturable_updated', intent, 'evt_passed')).status).toBe(200);
      const back = await request(gw.app).get(`${issuer.pathname}/return`).query({ payment_intent: intent.id });
      expect(back.status).toBeLessThan(400);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '3000', version: settled!.version });
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'requires_capture' });
    } finally {
      await gw.close();
    }
  });

  it('when the shopper fails Stripe’s challenge and Stripe’s event arrives first, then the event records 3-D Secure failed (4300)', async () => {
    const { gw } = gateway('stripe', 'event-failed');
    try {
      const { transactionId } = await challenged(gw);
      const intent = stripe.intentFor(transactionId)!;
      stripe.finishChallenge(intent.id, false);
      expect((await stripeDelivery(gw, 'payment_intent.payment_failed', intent, 'evt_failed')).status).toBe(200);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({
        status: '4300',
        threeds: { challenge_pending: false },
      });
    } finally {
      await gw.close();
    }
  });

  it('when the shopper gives up on the gateway’s challenge page, then the Stripe intent is cancelled too', async () => {
    const { gw } = gateway('stripe', 'abandoned');
    try {
      const { issuer, transactionId } = await challenged(gw);
      const cancelled = await request(gw.app).post(`${issuer.pathname}/cancel`).type('form').send({});
      expect(cancelled.status).toBeLessThan(400);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'canceled' });
    } finally {
      await gw.close();
    }
  });

  it('when Stripe cannot be reached at the expiry, then the payment is not failed over an unknown: it waits, and the next sweep ends it', async () => {
    const { gw, clock } = gateway('stripe', 'expiry-unreachable');
    try {
      const { transactionId } = await challenged(gw);
      await stripe.server.refuse(true);
      try {
        await expire(gw, clock);
      } finally {
        await stripe.server.refuse(false);
      }
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '1000' });
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'requires_action' });
      // Stripe answers again: the claim left is resolved by recovery, which ends the challenge the same way
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      await jobOf(gw, 'pending-resolve').runOnce();
      await jobOf(gw, 'threeds-challenge-expiry').runOnce();
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
      expect(stripe.intentFor(transactionId)).toMatchObject({ status: 'canceled' });
    } finally {
      await gw.close();
    }
  });

  it('when the merchant cancels an Adyen payment waiting on its challenge, then it is cancelled (4100) without a void Adyen would refuse, and a return after it authorises nothing', async () => {
    const { gw } = gateway('adyen', 'cancel-waiting');
    try {
      const { res, issuer, transactionId } = await challenged(gw);
      const field = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(res.text)![1]!;
      const back = await answeredAtAcquirer(gw, issuer, 'pass');
      const order = { transaction_id: transactionId, order_no: field('order_no'), currency: field('currency'), amount: field('amount') };
      const cancelled = await postBatch(gw.app, 'cancel', [order]);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.cancel_orders[0]).toMatchObject({ transaction_id: transactionId, cancel_status: '1' });
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4100' });
      const psp = adyen.paymentFor(transactionId)!.pspReference;
      expect(adyen.modifications.filter((m) => m.paymentPspReference === psp)).toEqual([]);
      // the shopper's return from Adyen's page after the cancel: no details call, nothing authorised
      await request(gw.app).get(`${back.pathname}${back.search}`);
      expect(adyen.paymentFor(transactionId)?.resultCode).toBe('RedirectShopper');
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4100' });
    } finally {
      await gw.close();
    }
  });

  it('when the shopper passed Adyen’s challenge but never came back, then the expiry fails it and Adyen authorised nothing (Adyen authorises only on the gateway’s details call)', async () => {
    const { gw, clock } = gateway('adyen', 'expiry-passed');
    try {
      const { issuer, transactionId } = await challenged(gw);
      const back = await answeredAtAcquirer(gw, issuer, 'pass');
      await expire(gw, clock);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
      // the shopper's return arrives after the expiry: the failed payment stays failed, nothing is authorised
      const returned = await request(gw.app).get(`${back.pathname}${back.search}`);
      expect(returned.text).toContain('3-D Secure authentication failed');
      expect(adyen.paymentFor(transactionId)?.resultCode).toBe('RedirectShopper');
      expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status: '4300' });
    } finally {
      await gw.close();
    }
  });
});

describe('an Adyen payment that never reached Adyen', () => {
  it('when every connection to Adyen was refused and the outcome was not recorded, then recovery finds no record, and the order sent again is authorised once under its transaction', async () => {
    const clock = new ManualClock();
    const faulty = faultyStore(undefined);
    const gw = makeGateway({
      name: 'acquirer-adyen-never-reached',
      clock,
      store: faulty.store,
      merchants: acquirerMerchants('adyen', adyen.baseUrl),
      env: ADYEN_ENV,
    });
    try {
      const body = authoriseBody();
      const send = () =>
        request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));
      // Adyen refuses every connection, and the gateway cannot record what came of it: the claim stays
      faulty.fail({ when: (c) => (c.payments ?? []).some((p) => !p.next.claim && p.expected > 0), mode: 'before', times: 4 });
      await adyen.server.refuse();
      try {
        expect((await send()).status).toBe(503);
      } finally {
        await adyen.server.refuse(false);
      }
      const pending = await payment(gw, String(body.order_no));
      expect(pending).toMatchObject({ status: '1000', claim: { op: 'authorise' } });
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      await jobOf(gw, 'pending-resolve').runOnce();
      // Adyen definitely has nothing under the reference: the order waits for the merchant's retry (grace)
      expect(await payment(gw, String(body.order_no))).toMatchObject({ status: '1000', claim: { grace: true } });
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.text).toMatch(/<order_status>1<\/order_status>/);
      expect(await payment(gw, String(body.order_no))).toMatchObject({ status: '3000', transaction_id: pending!.transaction_id });
      expect([...adyen.payments.values()].filter((p) => p.reference === pending!.transaction_id)).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });
});

describe('acquirer settings at start (docs/connectors.md)', () => {
  it('when an environment variable an account names is missing, then the start is refused naming the account and the variable', () => {
    expect(() =>
      makeGateway({
        name: 'acquirer-missing-env',
        merchants: acquirerMerchants('stripe', 'http://127.0.0.1:9'),
        env: { STRIPE_KEY_SHOP1: 'sk_test_x' },
      }),
    ).toThrow(`account ${MERCHANT_ID}/${ACCOUNT_ID}: environment variable STRIPE_WHSEC_SHOP1`);
  });

  it('when an Adyen account has no merchant_account, then the start is refused naming the account and the field', () => {
    const merchants = acquirerMerchants('adyen', '');
    delete (merchants.merchants[0]!.accounts[0]!.routing as Record<string, unknown>).merchant_account;
    expect(() => makeGateway({ name: 'acquirer-missing-field', merchants, env: ADYEN_ENV })).toThrow(
      new RegExp(`account ${MERCHANT_ID}/${ACCOUNT_ID}: routing.merchant_account`),
    );
  });
});

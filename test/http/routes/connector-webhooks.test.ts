import { describe, expect, it } from 'vitest';
import request from 'supertest';
import Stripe from 'stripe';
import { ACCOUNT_ID, MERCHANT_ID, authoriseBody, type TestGateway } from '../../support/gateway.js';
import { CARDS } from '../../support/cards.js';
import { jobOf } from '../../support/jobs.js';
import { ADYEN_HMAC, STRIPE_ENV } from '../../support/acquirers/accounts.js';
import type { AcquirerJournal } from '../../../src/core/acquirers/journal.js';
import type { StripeConnector } from '../../../src/connectors/stripe/connector.js';
import { acquirerStubs } from '../../support/acquirers/stubs-world.js';

/**
 * POST /connectors/stripe/webhook and /connectors/adyen/webhook (docs/connectors.md): verified by the SDKs' own
 * checks, a forged signature refused with 400, an event applied once however often it is sent, an unknown
 * type acknowledged, and a late authorisation result settling the payment's claim.
 */
const { stripe, adyen, gateway } = acquirerStubs('webhook');

const account = (gw: TestGateway) => gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;

/** A payment authorised at the acquirer's stub through /v1/authorise: its transaction id. */
async function authoriseAt(gw: TestGateway): Promise<string> {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(JSON.stringify(authoriseBody()));
  expect(res.status).toBe(200);
  return /<transaction_id>([^<]+)</.exec(res.text)![1]!;
}

function stripeDelivery(gw: TestGateway, event: Record<string, unknown>, secret = STRIPE_ENV.STRIPE_WHSEC_SHOP1) {
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return request(gw.app)
    .post(`/connectors/stripe/webhook/${ACCOUNT_ID}`)
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', header)
    .send(payload);
}

const adyenDelivery = (gw: TestGateway, items: unknown[]) =>
  request(gw.app)
    .post(`/connectors/adyen/webhook/${ACCOUNT_ID}`)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ live: 'false', notificationItems: items.map((i) => ({ NotificationRequestItem: i })) }));

describe('Stripe webhook', () => {
  it('when an event is signed with the account’s secret, then it is applied once, however often it is sent', async () => {
    const { gw } = gateway('stripe', 'once');
    try {
      const paid = await authoriseAt(gw);
      const intent = stripe.intentFor(paid)!;
      const event = {
        id: 'evt_once_1',
        object: 'event',
        type: 'payment_intent.amount_capturable_updated',
        data: { object: { id: intent.id, object: 'payment_intent', metadata: { gateway_reference: paid } } },
      };
      const first = await stripeDelivery(gw, event);
      expect([first.status, first.text]).toEqual([200, 'applied']);
      const again = await stripeDelivery(gw, event);
      expect([again.status, again.text]).toEqual([200, 'duplicate']);
      const journal = (gw.deps.connectors.get('stripe', account(gw)) as StripeConnector).journal as AcquirerJournal;
      expect(await journal.object(paid)).toBe(intent.id);
      // an event naming no payment of the account is acknowledged, and nothing of it is kept
      const stranger = {
        ...event,
        id: 'evt_once_2',
        data: { object: { id: 'pi_x', object: 'payment_intent', metadata: { gateway_reference: 'T1' } } },
      };
      expect((await stripeDelivery(gw, stranger)).text).toBe('ignored');
      expect(await journal.object('T1')).toBeUndefined();
    } finally {
      await gw.close();
    }
  });

  it('when the signature is forged, missing or made with another secret, then it is refused with 400 and nothing changes', async () => {
    const { gw } = gateway('stripe', 'forged');
    try {
      const event = {
        id: 'evt_forged',
        object: 'event',
        type: 'payment_intent.succeeded',
        data: { object: { id: 'pi_y', metadata: { gateway_reference: 'T2' } } },
      };
      const forged = await stripeDelivery(gw, event, 'whsec_someone_else');
      expect(forged.status).toBe(400);
      expect(forged.body).toMatchObject({ code: 'INVALID_FIELD', field: 'signature' });
      const missing = await request(gw.app)
        .post(`/connectors/stripe/webhook/${ACCOUNT_ID}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(event));
      expect(missing.status).toBe(400);
      const tampered = await request(gw.app)
        .post(`/connectors/stripe/webhook/${ACCOUNT_ID}`)
        .set('Content-Type', 'application/json')
        .set(
          'Stripe-Signature',
          Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify(event), secret: STRIPE_ENV.STRIPE_WHSEC_SHOP1 }),
        )
        .send(JSON.stringify({ ...event, id: 'evt_other' }));
      expect(tampered.status).toBe(400);
      const journal = (gw.deps.connectors.get('stripe', account(gw)) as StripeConnector).journal;
      expect(await journal.object('T2')).toBeUndefined();
    } finally {
      await gw.close();
    }
  });

  it('when an event is of a type the gateway does not use, then it is acknowledged', async () => {
    const { gw } = gateway('stripe', 'unknown');
    try {
      const res = await stripeDelivery(gw, {
        id: 'evt_unknown',
        object: 'event',
        type: 'customer.created',
        data: { object: { id: 'cus_1' } },
      });
      expect([res.status, res.text]).toEqual([200, 'ignored']);
    } finally {
      await gw.close();
    }
  });

  it('when an authorisation’s answer was lost and its event arrives after the claim went stale, then the event settles the payment', async () => {
    const { gw, clock } = gateway('stripe', 'late');
    try {
      const body = authoriseBody();
      // the answer lost (two drops: the SDK's own retry) and the status unreadable
      stripe.server.fail('act-then-drop', (r) => r.method === 'POST', 2);
      stripe.server.fail('drop', (r) => r.method === 'GET', 2);
      const res = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(body));
      expect(res.status).toBe(503);
      const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      const pi = stripe.intentFor(p!.transaction_id)!;
      const hook = await stripeDelivery(gw, {
        id: 'evt_late',
        object: 'event',
        type: 'payment_intent.amount_capturable_updated',
        data: { object: pi },
      });
      expect([hook.status, hook.text]).toEqual([200, 'applied']);
      const settled = await gw.deps.store.getPayment(MERCHANT_ID, p!.transaction_id);
      expect(settled?.status).toBe('3000');
      expect(settled?.connector_ref).toBe(pi.id);
      expect(settled?.claim).toBeUndefined();
    } finally {
      await gw.close();
    }
  });
});

describe('Adyen webhook', () => {
  it('when an AUTHORISATION is sent twice, then it is applied once and settles the claim Adyen’s lost answer left', async () => {
    const { gw, clock } = gateway('adyen', 'late');
    try {
      const body = authoriseBody({ currency: 'EUR' });
      adyen.server.fail('act-then-drop', (r) => r.path === '/v72/payments');
      const res = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(body));
      expect(res.status).toBe(503);
      const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      await jobOf(gw, 'pending-resolve').runOnce();
      expect((await gw.deps.store.getPayment(MERCHANT_ID, p!.transaction_id))?.status).toBe('1000');
      const item = adyen.notification('AUTHORISATION', p!.transaction_id, ADYEN_HMAC);
      const first = await adyenDelivery(gw, [item]);
      expect([first.status, first.text]).toEqual([200, '[accepted]']);
      const settled = await gw.deps.store.getPayment(MERCHANT_ID, p!.transaction_id);
      expect(settled).toMatchObject({ status: '3000', connector_ref: item.pspReference });
      const again = await adyenDelivery(gw, [item]);
      expect([again.status, again.text]).toEqual([200, '[accepted]']);
      expect((await gw.deps.store.getPayment(MERCHANT_ID, p!.transaction_id))?.written_by).toBe(settled?.written_by);
    } finally {
      await gw.close();
    }
  });

  it('when Adyen’s RedirectShopper answer was lost and Adyen closes the offer (OFFER_CLOSED), then the payment fails, notified, never left pending', async () => {
    const { gw, clock } = gateway('adyen', 'offer-closed');
    try {
      const body = authoriseBody({
        currency: 'EUR',
        card: CARDS.challenge,
        open3d: 'do3DS',
        notify_url: 'https://merchant.example/notify',
      });
      adyen.server.fail('act-then-drop', (r) => r.path === '/v72/payments');
      const res = await request(gw.app)
        .post('/v1/authorise')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(JSON.stringify(body));
      expect(res.status).toBe(503);
      const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
      // the shopper never got Adyen's page, so nothing answers the challenge, and Adyen sends no AUTHORISATION
      clock.advance(gw.deps.pendingResolveMs + 1_000);
      await jobOf(gw, 'pending-resolve').runOnce();
      expect((await gw.deps.store.getPayment(MERCHANT_ID, p!.transaction_id))?.status).toBe('1000');
      expect(adyen.paymentFor(p!.transaction_id)?.resultCode).toBe('RedirectShopper');
      // Adyen closes the open offer (cards: after 12 hours)
      clock.advance(12 * 3_600_000);
      const closed = await adyenDelivery(gw, [adyen.notification('OFFER_CLOSED', p!.transaction_id, ADYEN_HMAC)]);
      expect([closed.status, closed.text]).toEqual([200, '[accepted]']);
      const settled = await gw.deps.store.getPayment(MERCHANT_ID, p!.transaction_id);
      expect(settled).toMatchObject({ status: '4300' });
      expect(settled?.claim).toBeUndefined();
      const notes = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no), 10);
      expect(notes.map((n) => [n.notify_type, n.fields.payment_status])).toEqual([['payment', '4300']]);
    } finally {
      await gw.close();
    }
  });

  it('when an item’s HMAC signature is wrong, then the whole notification is refused with 400', async () => {
    const { gw } = gateway('adyen', 'forged');
    try {
      const good = adyen.notification('AUTHORISATION', 'X1', ADYEN_HMAC);
      const forged = { ...adyen.notification('AUTHORISATION', 'X2', ADYEN_HMAC), amount: { value: 1, currency: 'EUR' } };
      const res = await adyenDelivery(gw, [good, forged]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'signature' });
      const journal = (gw.deps.connectors.get('adyen', account(gw)) as unknown as { journal: AcquirerJournal }).journal;
      expect(await journal.answer('X1')).toBeUndefined();
      expect(
        (await request(gw.app).post(`/connectors/adyen/webhook/${ACCOUNT_ID}`).set('Content-Type', 'application/json').send('not json'))
          .status,
      ).toBe(400);
    } finally {
      await gw.close();
    }
  });

  it('when an event code is one the gateway does not use, then it is acknowledged and changes nothing', async () => {
    const { gw } = gateway('adyen', 'unknown');
    try {
      const res = await adyenDelivery(gw, [adyen.notification('REPORT_AVAILABLE', 'report-1', ADYEN_HMAC)]);
      expect([res.status, res.text]).toEqual([200, '[accepted]']);
    } finally {
      await gw.close();
    }
  });
});

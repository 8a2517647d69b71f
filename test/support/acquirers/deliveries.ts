import request from 'supertest';
import Stripe from 'stripe';
import { ACCOUNT_ID, type TestGateway } from '../gateway.js';
import { STRIPE_ENV } from './accounts.js';

/**
 * A Stripe webhook delivery of one event (`type`, its `object`, its id, and when Stripe made it: `created`, unix
 * seconds, as every Stripe event has) to an account's own address, signed with the account's secret.
 */
export function stripeDelivery(gw: TestGateway, type: string, object: unknown, id: string, created?: number, account = ACCOUNT_ID) {
  const payload = JSON.stringify({ id, object: 'event', type, ...(created !== undefined ? { created } : {}), data: { object } });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_ENV.STRIPE_WHSEC_SHOP1 });
  return request(gw.app)
    .post(`/connectors/stripe/webhook/${account}`)
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', header)
    .send(payload);
}

/** An Adyen notification of one item to an account's own address (the item carries its own HMAC signature). */
export const adyenDelivery = (gw: TestGateway, item: unknown, account = ACCOUNT_ID) =>
  request(gw.app)
    .post(`/connectors/adyen/webhook/${account}`)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] }));

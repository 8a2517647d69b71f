import request from 'supertest';
import Stripe from 'stripe';
import { ACCOUNT_ID, type TestGateway } from '../gateway.js';
import { STRIPE_ENV } from './accounts.js';

/**
 * A Stripe webhook delivery of one event (`type`, its `object`, its id) to an account's own address, signed with
 * the account's secret.
 */
export function stripeDelivery(gw: TestGateway, type: string, object: unknown, id: string, account = ACCOUNT_ID) {
  const payload = JSON.stringify({ id, object: 'event', type, data: { object } });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_ENV.STRIPE_WHSEC_SHOP1 });
  return request(gw.app)
    .post(`/connectors/stripe/webhook/${account}`)
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', header)
    .send(payload);
}

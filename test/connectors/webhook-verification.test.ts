import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { stripeWebhooks } from '../../src/connectors/stripe/webhooks.js';
import { adyenWebhooks } from '../../src/connectors/adyen/webhooks.js';
import { adyenLibrary } from '../../src/connectors/adyen/library.js';

const SECRET = 'whsec_verification';
const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const stripe = new Stripe('sk_test_verification', { telemetry: false });
const payload = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1', metadata: {} } } });
const headers = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()];
const nowS = () => Math.floor(Date.now() / 1000);

const stripeVerify = (signature?: string) =>
  stripeWebhooks(stripe, SECRET).verify(Buffer.from(payload), headers(signature ? { 'stripe-signature': signature } : {}));

function adyenBody(merchantAccount: string, key: string): Buffer {
  const item: Record<string, unknown> = {
    eventCode: 'AUTHORISATION',
    pspReference: 'PSP1',
    merchantReference: 'T1',
    merchantAccountCode: merchantAccount,
    success: 'true',
    amount: { value: 1000, currency: 'EUR' },
  };
  item.additionalData = { hmacSignature: new (adyenLibrary().hmacValidator)().calculateHmac(item as never, key) };
  return Buffer.from(JSON.stringify({ notificationItems: [{ NotificationRequestItem: item }] }));
}

describe('acquirer webhook verification', () => {
  it('when a Stripe webhook is signed with the account’s secret, then its one event is verified and readable', () => {
    const verified = stripeVerify(stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: nowS() }));
    expect(verified).toMatchObject({ ok: true, events: [{ id: 'evt_1', type: 'payment_intent.succeeded' }] });
    expect(verified.ok && verified.acknowledgement).toBeFalsy();
  });

  it('when a Stripe webhook is unsigned, signed with another secret or older than 300 s, then the refusal says which', () => {
    expect(stripeVerify()).toMatchObject({ ok: false, refusal: { reason: 'no-signature' } });
    const other = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other', timestamp: nowS() });
    expect(stripeVerify(other)).toMatchObject({ ok: false, refusal: { reason: 'bad-signature' } });
    const old = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: nowS() - 301 });
    expect(stripeVerify(old)).toMatchObject({ ok: false, refusal: { reason: 'too-old', message: expect.stringContaining('300 s') } });
  });

  it('when an Adyen notification is the account’s, another account’s, wrongly signed or not JSON, then the refusal says which', () => {
    const webhooks = adyenWebhooks('ShopECOM', HMAC_KEY);
    expect(webhooks.verify(adyenBody('ShopECOM', HMAC_KEY), headers({}))).toMatchObject({
      ok: true,
      acknowledgement: '[accepted]',
      events: [{ id: 'PSP1', type: 'AUTHORISATION' }],
    });
    expect(webhooks.verify(adyenBody('OtherECOM', HMAC_KEY), headers({}))).toMatchObject({
      ok: false,
      refusal: { reason: 'other-account' },
    });
    expect(webhooks.verify(adyenBody('ShopECOM', 'AB'.repeat(32)), headers({}))).toMatchObject({
      ok: false,
      refusal: { reason: 'bad-signature' },
    });
    expect(webhooks.verify(Buffer.from('not json'), headers({}))).toMatchObject({ ok: false, refusal: { reason: 'malformed' } });
  });
});

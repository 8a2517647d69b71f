import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { authoriseBody, makeGateway, MERCHANT_ID, type TestGateway } from '../../support/gateway.js';
import { NotificationReceiver } from '../../support/receiver.js';
import { jobOf } from '../../support/jobs.js';
import { checkoutBody } from '../../support/checkout.js';
import { payoutBody, payoutMerchants } from '../../support/payout.js';

let gw: TestGateway;
beforeAll(() => {
  gw = makeGateway({ name: 'notify-url-policy', clock: new ManualClock(), env: { NOTIFY_ALLOW_PRIVATE: '0' } });
});
afterAll(async () => {
  await gw?.close();
});

describe('when NOTIFY_ALLOW_PRIVATE is off and notify_url points at a private address', () => {
  it.each([
    'http://127.0.0.1:8080/notify',
    'http://10.0.0.8/notify',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/notify',
    'http://localhost:3000/notify',
    'ftp://shop.example/notify',
  ])('then /v1/authorise refuses %s with a 400 naming notify_url and charges nothing', async (url) => {
    const body = authoriseBody({ notify_url: url });
    const res = await request(gw.app).post('/v1/authorise').set('Accept', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'notify_url' });
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, body.account_id as string, body.order_no as string)).toBeUndefined();
  });
});

describe('when NOTIFY_ALLOW_PRIVATE is off and an authorise return_url points at a private address', () => {
  it.each(['http://127.0.0.1:8080/return', 'http://localhost/return', 'https://user:pw@shop.example/return'])(
    'then /v1/authorise refuses %s with a 400 naming return_url, like notify_url',
    async (url) => {
      const body = authoriseBody({ return_url: url });
      const res = await request(gw.app).post('/v1/authorise').set('Accept', 'application/json').send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'return_url' });
    },
  );
});

describe('when NOTIFY_ALLOW_PRIVATE is off and a checkout names a private notify_url', () => {
  it('then /v1/checkout refuses it with a 400 naming notify_url, before any session or card page exists', async () => {
    const res = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ notify_url: 'http://10.0.0.8/notify' })));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'notify_url' });
    expect(res.body.checkout_url).toBeUndefined();
  });
});

describe('when NOTIFY_ALLOW_PRIVATE is off and a payout names a private notify_url', () => {
  it('then /v1/payout refuses it with a 400 naming notify_url, and neither the payout nor the debit happens', async () => {
    const payouts = makeGateway({
      name: 'notify-url-policy-payout',
      clock: new ManualClock(),
      merchants: payoutMerchants(),
      env: { NOTIFY_ALLOW_PRIVATE: '0' },
    });
    try {
      const body = payoutBody({ notify_url: 'http://169.254.169.254/latest/meta-data' });
      const res = await request(payouts.app).post('/v1/payout').send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'notify_url' });
      expect(
        await payouts.deps.store.findPayoutByRequest(MERCHANT_ID, body.account_id as string, body.request_id as string),
      ).toBeUndefined();
      expect(await payouts.deps.store.getBalance(MERCHANT_ID, body.account_id as string, 'USD')).toBeUndefined();
    } finally {
      await payouts.close();
    }
  });
});

describe('when a stored notification points at a loopback receiver and NOTIFY_ALLOW_PRIVATE is off', () => {
  it('then the delivery worker checks again and does not send it', async () => {
    const receiver = await new NotificationReceiver([200]).start();
    try {
      // a gateway that allowed it writes the notification; one that does not tries to deliver it
      const lax = makeGateway({ name: 'notify-url-policy-lax', clock: new ManualClock() });
      const strict = makeGateway({
        name: 'notify-url-policy-strict',
        clock: new ManualClock(),
        store: lax.deps.store,
        env: { NOTIFY_ALLOW_PRIVATE: '0' },
      });
      const body = authoriseBody({ notify_url: receiver.url });
      expect((await request(lax.app).post('/v1/authorise').send(JSON.stringify(body))).status).toBe(200);
      await jobOf(strict, 'notification-delivery').runOnce();
      expect(receiver.received).toHaveLength(0);
      await jobOf(lax, 'notification-delivery').runOnce();
      expect(receiver.received).toHaveLength(0); // not yet due again: the refusal counted as a failed attempt
      await lax.close();
    } finally {
      await receiver.stop();
    }
  });
});

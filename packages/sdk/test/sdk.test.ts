import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { paymentResult, resultRedirect } from '../../../src/core/checkout/result.js';
import { redisWorld } from '../../../test/support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../../../test/support/gateway.js';
import { payoutMerchants, samplePayout } from '../../../test/support/payout.js';
import { CARDS, TEST_SECURITY_CODE } from '../../../test/support/cards.js';
import {
  AnswerSignatureError,
  GatewayApiError,
  GatewayClient,
  verifyAnswer,
  verifyReturnQuery,
  type AuthoriseRequest,
} from '../src/index.js';

const world = redisWorld('sdk');
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** A gateway on this file's Redis, listening on a loopback port as merchants reach it. */
export async function listening(world: ReturnType<typeof redisWorld>, name: string): Promise<{ gw: TestGateway; url: string }> {
  const gw = world.gateway(name, new ManualClock(Date.now()), { merchants: payoutMerchants() });
  const server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return { gw, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const client = (url: string, extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
  new GatewayClient({ baseUrl: url, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, ...extra });

const order = (extra: Partial<AuthoriseRequest> = {}): AuthoriseRequest => ({
  order_no: `SDK-${randomUUID()}`,
  currency: 'USD',
  amount: '10.00',
  first_name: 'Ada',
  last_name: 'Lovelace',
  shopper_email: 'ada@example.com',
  card: CARDS.approved,
  expiration_month: '12',
  expiration_year: '2034',
  security_code: TEST_SECURITY_CODE,
  open3d: 'no3DS',
  token_flag: 'NO',
  billing_country: 'GB',
  ...extra,
});

describe('the SDK against a running gateway', () => {
  it('when every /v1 call is made through the client, then each answer comes back typed and its signature verified', async () => {
    const { gw, url } = await listening(world, 'sdk-calls');
    const c = client(url);

    const paid = await c.authorise(order());
    expect(paid).toMatchObject({ order_status: '1', result_info: '0000:Success', amount: '10.00' });
    expect(paid.encryption_data).toMatch(/^[0-9A-F]{64}$/); // the respon document's upper-case hex
    const ref = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '10.00' };

    expect((await c.capture([ref])).capture_orders[0]).toMatchObject({ capture_status: '1' });
    const refund = await c.refund([{ ...ref, refund_amount: '2.50', refund_reason: 'returned' }]);
    expect(refund.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${paid.transaction_id}-01` });
    const query = await c.retrievalTrans({ order_no: paid.order_no });
    expect(query.orders_list[0]).toMatchObject({ transaction_id: paid.transaction_id, payment_status: '3200' });
    expect((await c.retrievalRefund({ transaction_id: paid.transaction_id })).refund_orders).toHaveLength(1);

    const held = await c.authorise(order({ shopper_email: 'ada+review@example.com' }));
    expect(held.order_status).toBe('2');
    const review = await c.review([
      { transaction_id: held.transaction_id, order_no: held.order_no, currency: 'USD', amount: '10.00', review_flag: '1' },
    ]);
    expect(review.review_orders[0]).toMatchObject({ review_status: '1' });
    const toCancel = await c.authorise(order());
    const cancel = await c.cancel([
      { transaction_id: toCancel.transaction_id, order_no: toCancel.order_no, currency: 'USD', amount: '10.00' },
    ]);
    expect(cancel.cancel_orders[0]).toMatchObject({ cancel_status: '1' });

    const subscribed = await c.authorise(
      order({
        subscription: { contract_name: 'Gold plan', contract_amount: '10.00', interval: 'month', interval_count: '1', billing_cycle: 12 },
      }),
    );
    expect(subscribed.recurring_id).not.toBe('');
    const stop = await c.cancelSubscription({ recurring_id: subscribed.recurring_id, contract_name: 'Gold plan' });
    expect(stop.cancel_status).toBe('1');

    const withNotify = await c.authorise(order({ notify_url: 'http://127.0.0.1:9/notify' }));
    const resend = await c.resendNotifications({ order_no: withNotify.order_no });
    expect(resend.return_status).toBe('1');

    const checkout = await c.checkout({
      order_no: `SDK-${randomUUID()}`,
      currency: 'USD',
      amount: '5.00',
      return_url: 'https://shop.example/thanks',
    });
    expect(checkout.checkout_url).toMatch(/^http:\/\/gateway\.test\/v1\/checkout\//);

    const { merchant_id: _m, account_id: _a, ...payoutFields } = samplePayout();
    const payout = await c.payout({
      ...(payoutFields as Parameters<GatewayClient['payout']>[0]),
      request_id: randomUUID(),
      payment_date: new Date().toISOString().slice(0, 10),
    });
    expect(payout.transaction_id).not.toBe('');
    const payoutStatus = await c.payoutQuery({ transaction_id: payout.transaction_id });
    expect(payoutStatus.request_id).toBe(payout.request_id);

    const methods = await c.optimise({
      request_id: randomUUID(),
      currency: 'USD',
      amount: '10.00',
      billing_country: 'GB',
      card_bin: '424242',
    });
    expect(methods.payment_methods[0]).toMatchObject({ pm_id: 'card' });

    // the signed result on the shopper's return address, as the hosted result page writes it
    const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
    const payment = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    const returned = resultRedirect('https://shop.example/return?cart=7', paymentResult(account, payment));
    const accountKeys = { merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY };
    expect(verifyReturnQuery(returned, accountKeys)).toMatchObject({ ok: true, fields: { order_no: paid.order_no } });
    const tampered = verifyReturnQuery(returned.replace('amount=10.00', 'amount=1.00'), accountKeys);
    expect(tampered).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
  });

  it('when signing in the as-sent form (spaces kept), then the gateway accepts it too', async () => {
    const { url } = await listening(world, 'sdk-as-sent');
    const answer = await client(url, { signatureForm: 'as-sent' }).authorise(order({ first_name: 'Ada Augusta' }));
    expect(answer.order_status).toBe('1');
  });

  it('when a call is refused, then the error carries the status, the code and the field, from XML or JSON answers', async () => {
    const { url } = await listening(world, 'sdk-refused');
    const c = client(url);
    const xmlRefusal = await c.authorise(order({ card: '4242424242424241' })).catch((e: unknown) => e);
    expect(xmlRefusal).toBeInstanceOf(GatewayApiError);
    expect((xmlRefusal as GatewayApiError).status).toBe(400);
    expect((xmlRefusal as GatewayApiError).message).toMatch(/card/);
    const jsonRefusal = await c.capture([]).catch((e: unknown) => e);
    expect(jsonRefusal).toMatchObject({ status: 400, field: 'capture_orders' });
    const wrongKey = await client(url, { signKey: 'not-the-key' })
      .optimise({ request_id: 'r', currency: 'USD', amount: '1.00', billing_country: 'GB' })
      .catch((e: unknown) => e);
    expect(wrongKey).toMatchObject({ status: 401, code: 'AUTHENTICATION_FAILED' });
  });

  it('when an answer was changed on the way, then the client refuses it and verifyAnswer says why', async () => {
    const { url } = await listening(world, 'sdk-tampered');
    const changing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = (await res.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, return_status: '0' }), { status: res.status, headers: res.headers });
    };
    const err = await client(url, { fetch: changing })
      .optimise({ request_id: 'r', currency: 'USD', amount: '1.00', billing_country: 'GB' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnswerSignatureError);
    expect((err as Error).message).toMatch(/merchant_id, account_id, return_status/);
    expect(verifyAnswer('capture', { merchant_id: MERCHANT_ID }, SIGN_KEY)).toEqual({ ok: false, reason: 'encryption_data is missing' });
  });
});

import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { GatewayStore } from '../../../src/core/ports/store.js';
import { authoriseBody, makeGateway } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';

/** The gateway store's reads and writes of a checkout, in order (the real store, only counted). */
function countCalls(store: GatewayStore): string[] {
  const calls: string[] = [];
  for (const name of ['commit', 'findPaymentByOrder', 'checkoutOfOrder', 'getCheckoutSession'] as const) {
    const real = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls.push(name);
      return real(...args);
    };
  }
  return calls;
}

const open = (gw: ReturnType<typeof makeGateway>, body: Record<string, unknown>) =>
  request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));

describe('opening a checkout session (core/checkout/hosted.ts openCheckout)', () => {
  it('when the order is new, then the session is stored in one step, without the lookups; when it was seen, then the lookups decide as before', async () => {
    const gw = makeGateway({ name: 'open-checkout-steps' });
    const calls = countCalls(gw.deps.store);
    const body = checkoutBody();
    const first = await open(gw, body);
    expect(first.status).toBe(200);
    expect(calls).toEqual(['commit']);

    // the same signed request again: the conditional step refuses (the order has a session), the lookups find it
    calls.length = 0;
    const again = await open(gw, body);
    expect(again.status).toBe(200);
    expect(again.body.checkout_url).toBe(first.body.checkout_url);
    expect(calls).toEqual(['commit', 'findPaymentByOrder', 'checkoutOfOrder', 'getCheckoutSession']);

    // other content for that order while its session is open: refused, nothing stored
    const other = await open(
      gw,
      checkoutBody({ order_no: body.order_no, amount: '12.00', item_total: '12.00', items: 'T-shirt#,#SKU-1#,#6.00#,#2' }),
    );
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      code: 'ORDER_CONFLICT',
      field: 'order_no',
      message: 'order_no: has an open checkout session with different content',
    });
    await gw.close();
  });

  it('when the order was paid by /v1/authorise with other content, then the checkout is refused and no session is stored for it', async () => {
    const gw = makeGateway({ name: 'open-checkout-paid' });
    const paid = authoriseBody();
    const res = await request(gw.app).post('/v1/authorise').set('Accept', 'application/json').send(JSON.stringify(paid));
    expect(res.status).toBe(200);
    const refused = await open(gw, checkoutBody({ order_no: paid.order_no }));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'ORDER_CONFLICT', message: 'order_no: was already used for a different payment request' });
    expect(await gw.deps.store.checkoutOfOrder(String(paid.merchant_id), String(paid.account_id), String(paid.order_no))).toBeUndefined();
    await gw.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { appRoutes } from '../../src/http/route-table.js';
import { ACCOUNT_ID, authoriseBody, makeGateway, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../support/gateway.js';
import { checkoutBody } from '../support/checkout.js';
import { batchBody, pay, ref, type Call } from '../support/operations.js';
import { payoutMerchants, samplePayout } from '../support/payout.js';
import { FIELDS, sign, signBody } from '../support/sign.js';

/**
 * docs/api.md#bodies, issue 36 finding 4: a member named `__proto__`, `constructor` or `prototype`, at any depth of a
 * JSON or form body, is refused with 400 naming it. What the signature covered is exactly what the gateway
 * reads: before, a JSON `"__proto__"` member became the prototype of the copy the schemas read, so signed
 * fields sent empty were read from it.
 */
const clock = new ManualClock(Date.now());
let gw: TestGateway;

beforeAll(() => {
  gw = makeGateway({ name: 'reserved-members', clock, merchants: payoutMerchants() });
});
afterAll(async () => {
  await gw.close();
});

const RESERVED = ['__proto__', 'constructor', 'prototype'] as const;

/** A copy of `body` with an own member `name` (a literal `__proto__:` would set the prototype instead). */
function withMember(body: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const copy = { ...body };
  Object.defineProperty(copy, name, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** The signature of every call whose signed fields but merchant_id and account_id are sent empty. */
const querySignature = (): string => sign([MERCHANT_ID, ACCOUNT_ID], SIGN_KEY);

const postJson = (path: string, text: string) =>
  request(gw.app).post(path).set('Content-Type', 'application/x-www-form-urlencoded').set('Accept', 'application/json').send(text);

describe('when a body carries a "__proto__" member over signed fields sent empty (finding 4)', () => {
  it("then capturing and refunding another payment with the account's query signature is refused, and the payment is untouched", async () => {
    const victim = await pay(gw.app);
    // every transaction_id left out of the signed array: the signature is the one a retrievalTrans carries
    for (const call of ['capture', 'refund'] as const) {
      const order = call === 'refund' ? ref(victim, { refund_amount: '10.00', refund_reason: '' }) : ref(victim);
      const attack = withMember(
        { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, encryption_data: querySignature(), [`${call}_orders`]: '' },
        '__proto__',
        { [`${call}_orders`]: [order] },
      );
      const res = await postJson(`/v1/${call}`, JSON.stringify(attack));
      expect(res.status, call).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_FIELD', return_status: '0' });
      expect(res.body.message).toMatch(/^__proto__: /);
    }
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, victim.transaction_id);
    expect(stored).toMatchObject({ captured: 0, refunded: 0 });
    expect(stored?.status).toBe('3000');
  });
});

/** A correctly signed body of each signed call; the calls a merchant makes, one per POST route of /v1. */
function signedBodies(
  paid: { transaction_id: string; order_no: string; currency: string; amount: string; order_status: string },
  clockId: string,
) {
  const batch = (call: Call) => {
    const extra = call === 'refund' ? { refund_amount: '1.00', refund_reason: 'r' } : call === 'review' ? { review_flag: '1' } : {};
    return batchBody(call, [ref(paid, extra)]);
  };
  const payout = {
    ...samplePayout(),
    request_id: randomUUID(),
    payment_date: new Date(clock.now() + 86_400_000).toISOString().slice(0, 10),
  };
  return {
    '/v1/authorise': authoriseBody(),
    '/v1/checkout': checkoutBody(),
    '/v1/capture': batch('capture'),
    '/v1/cancel': batch('cancel'),
    '/v1/review': batch('review'),
    '/v1/refund': batch('refund'),
    '/v1/cancelsubscription': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, recurring_id: 'SUB-NONE' },
      FIELDS.cancelsubscription,
      SIGN_KEY,
    ),
    '/v1/retrievalTrans': signBody({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }, FIELDS.retrieval, SIGN_KEY),
    '/v1/retrievalRefund': signBody({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }, FIELDS.retrieval, SIGN_KEY),
    '/v1/payout': signBody(payout, FIELDS.payout, SIGN_KEY),
    '/v1/payout/query': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, request_id: payout.request_id },
      FIELDS.payoutQuery,
      SIGN_KEY,
    ),
    '/v1/optimise': signBody(
      {
        merchant_id: MERCHANT_ID,
        account_id: ACCOUNT_ID,
        request_id: randomUUID(),
        currency: 'USD',
        amount: '10.00',
        billing_country: 'GB',
        shopper_email: 'a@example.com',
      },
      ['merchant_id', 'account_id', 'request_id', 'currency', 'amount', 'shopper_email'],
      SIGN_KEY,
    ),
    '/v1/notifications/resend': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: 'NOTIFY-NONE', order_no: paid.order_no },
      ['merchant_id', 'account_id', 'notify_id', 'order_no'],
      SIGN_KEY,
    ),
    '/v1/retrievalCards': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, shopper_id: 'shopper-42' },
      ['merchant_id', 'account_id', 'shopper_id'],
      SIGN_KEY,
    ),
    '/v1/deleteCard': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, shopper_id: 'shopper-42', card_id: 'card_NONE0000' },
      ['merchant_id', 'account_id', 'shopper_id', 'card_id'],
      SIGN_KEY,
    ),
    '/v1/retrievalDispute': signBody({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }, ['merchant_id', 'account_id'], SIGN_KEY),
    '/v1/disputeEvidence': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, dispute_id: `${paid.transaction_id}-D01`, uncategorized_text: 'x', submit: '0' },
      ['merchant_id', 'account_id', 'dispute_id'],
      SIGN_KEY,
    ),
    '/v1/disputeAccept': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, dispute_id: `${paid.transaction_id}-D01` },
      ['merchant_id', 'account_id', 'dispute_id'],
      SIGN_KEY,
    ),
    '/v1/testClock': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, request_id: randomUUID(), frozen_time: '20260101000000' },
      ['merchant_id', 'account_id', 'request_id'],
      SIGN_KEY,
    ),
    '/v1/testClockAdvance': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, test_clock_id: clockId, frozen_time: '20270101000000' },
      ['merchant_id', 'account_id', 'test_clock_id', 'frozen_time'],
      SIGN_KEY,
    ),
    '/v1/retrievalTestClock': signBody({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }, ['merchant_id', 'account_id'], SIGN_KEY),
    '/v1/testClockDelete': signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, test_clock_id: clockId },
      ['merchant_id', 'account_id', 'test_clock_id'],
      SIGN_KEY,
    ),
  } as Record<string, Record<string, unknown>>;
}

/** Where a nested reserved member goes in each call's body: inside an order, the beneficiary's address, or a new object. */
function nested(path: string, body: Record<string, unknown>, name: string): { body: Record<string, unknown>; at: string } {
  const array = Object.keys(body).find((k) => k.endsWith('_orders'));
  if (array) {
    const orders = body[array] as Record<string, unknown>[];
    return { body: { ...body, [array]: [withMember(orders[0]!, name, { amount: '0.01' })] }, at: `${array}.0.${name}` };
  }
  if (path === '/v1/payout') {
    const beneficiary = body.beneficiary as Record<string, unknown>;
    const address = withMember(beneficiary.address as Record<string, unknown>, name, { country_code: 'US' });
    return { body: { ...body, beneficiary: { ...beneficiary, address } }, at: `beneficiary.address.${name}` };
  }
  return { body: { ...body, shipping: { lines: [withMember({}, name, { polluted: 'yes' })] } }, at: `shipping.lines.0.${name}` };
}

describe('when any signed call carries a reserved member name (docs/api.md#bodies)', () => {
  it('then the call is served without it, and refused with 400 naming the member at the top level and nested, as JSON and as a form', async () => {
    const paid = await pay(gw.app);
    // a test clock the clock calls name (one that does not exist is refused with 400, as docs/test-clocks.md says)
    const made = await postJson(
      '/v1/testClock',
      JSON.stringify(
        signBody(
          { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, request_id: randomUUID(), frozen_time: '20260101000000' },
          ['merchant_id', 'account_id', 'request_id'],
          SIGN_KEY,
        ),
      ),
    );
    expect(made.status, made.text).toBe(200);
    const bodies = signedBodies(paid, made.body.test_clock_id as string);
    // every fixed POST route under /v1 of the app is here: a new call cannot be left out of this test
    const routes = appRoutes(gw.app)
      .filter((r) => r.method === 'POST' && /^\/v1\/[\w/]+$/.test(r.path))
      .map((r) => r.path);
    expect(Object.keys(bodies).sort()).toEqual([...new Set(routes)].sort());

    for (const [path, body] of Object.entries(bodies)) {
      const served = await postJson(path, JSON.stringify(body));
      expect(served.status, `${path} without a reserved member: ${served.text}`).not.toBe(400);
      expect(served.status, path).toBeLessThan(500);
      for (const name of RESERVED) {
        const top = await postJson(path, JSON.stringify(withMember(body, name, { amount: '0.01' })));
        expect(top.status, `${path} ${name}`).toBe(400);
        expect(top.body, `${path} ${name}`).toMatchObject({ code: 'INVALID_FIELD', message: `${name}: is a reserved name, not a field` });

        const deep = nested(path, body, name);
        const inner = await postJson(path, JSON.stringify(deep.body));
        expect(inner.status, `${path} ${deep.at}`).toBe(400);
        expect(inner.body.message, path).toBe(`${deep.at}: is a reserved name, not a field`);

        const fields = Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
        const form = await request(gw.app)
          .post(path)
          .type('form')
          .set('Accept', 'application/json')
          .send(new URLSearchParams([...fields, [name, 'x']]).toString());
        expect(form.status, `${path} form ${name}`).toBe(400);
        expect(form.body.message, path).toBe(`${name}: is a reserved name, not a field`);
      }
    }
  });

  it('then a name hidden behind a JSON escape ("\\u005f_proto__") is refused as well', async () => {
    const text = JSON.stringify(authoriseBody()).replace(/}$/, ',"\\u005f_proto__":{"amount":"0.01"},"x":{"\\u0063onstructor":1}}');
    const res = await postJson('/v1/authorise', text);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('__proto__: is a reserved name, not a field');
  });

  it('then /v1/authorise answers its refusal as a respon document naming the member', async () => {
    const res = await request(gw.app)
      .post('/v1/authorise')
      .type('form')
      .send(JSON.stringify(withMember(authoriseBody(), '__proto__', { amount: '0.01' })));
    expect(res.status).toBe(400);
    expect(res.text).toContain('<order_status>0</order_status>');
    expect(res.text).toMatch(/<result_info>[^<]*__proto__: is a reserved name, not a field<\/result_info>/);
  });
});

describe('when a page or a form of the shopper or the portal is posted with a reserved member name', () => {
  it('then each POST route answers 400, never 500', async () => {
    const routes = appRoutes(gw.app).filter((r) => r.method === 'POST' && !/^\/v1\/[\w/]+$/.test(r.path));
    expect(routes.length).toBeGreaterThan(5);
    for (const { path } of routes) {
      const url = path.replace(/:\w+/g, 'x');
      for (const name of RESERVED) {
        const json = await postJson(url, `{"a":{"${name}":{"b":1}}}`);
        expect(json.status, `${url} ${name}`).toBe(400);
        // an acquirer's webhook finds its address's account, then checks its signature over the raw bytes, before
        // it reads anything: refused there (this gateway has no account on an acquirer: by its address)
        if (url.startsWith('/connectors/')) expect(json.body.field, url).toBe('account_id');
        else expect(json.text, url).toContain(`a.${name}`);
        const form = await request(gw.app)
          .post(url)
          .type('form')
          .send(`${encodeURIComponent(name)}=1`);
        expect(form.status, `${url} form ${name}`).toBe(400);
      }
    }
  });
});

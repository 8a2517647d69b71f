import { describe, expect, it } from 'vitest';
import request from 'supertest';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { formerMask, maskCardNumbers, maskIdentifier } from '../../src/core/kernel/cards.js';
import { maskFreeText } from '../../src/http/schemas/free-text.js';
import { authorisePayment } from '../../src/core/authorisation/authorise.js';
import { openCheckout } from '../../src/core/checkout/hosted.js';
import { requestFingerprint } from '../../src/core/kernel/fingerprint.js';
import { paymentOrder } from '../../src/http/schemas/payment-order.js';
import { parseOrThrow } from '../../src/http/schemas/common.js';
import { authoriseSchema, checkoutSchema } from '../../src/http/schemas/payment-request.js';
import { ACCOUNT_ID, authoriseBody, MERCHANT_ID, SIGN_KEY, type TestGateway } from '../support/gateway.js';
import { checkoutBody } from '../support/checkout.js';
import { postBatch, postQuery } from '../support/operations.js';
import { signBody } from '../support/sign.js';
import { CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { redisWorld } from '../support/redis-world.js';

const world = redisWorld('identifier-order-no');
const clock = new ManualClock();
const xml = new XMLParser({ parseTagValue: false });

/** An order number whose UUID holds a card-shaped run across a dash: `a631-968875783f8f` reads 631968875783. */
const UUID_ORDER = 'ORD-a6c52a93-1dd4-4390-a631-968875783f8f';
const FORMER = 'ORD-a6c52a93-1dd4-4390-a631968***5783f8f';
/** A database id (24 hexadecimal digits) whose run `494450341495` touches the letter before it. */
const HEX_ORDER = 'f2d17b98e8ba494450341495';
const HEX_FORMER = 'f2d17b98e8ba494450***1495';

describe('when an order number is built from a UUID', () => {
  it('then it is kept as sent, while a card number beside it, or in any other form, is still masked', () => {
    expect(formerMask(UUID_ORDER)).toBe(FORMER);
    expect(maskCardNumbers(UUID_ORDER)).toBe(UUID_ORDER);
    expect(maskCardNumbers(`${UUID_ORDER} 4242424242424242`)).toBe(`${UUID_ORDER} 424242***4242`);
    expect(maskCardNumbers(`4000-0566-5566-5556-${UUID_ORDER}`)).toBe(`400005***5556-${UUID_ORDER}`);
    expect(maskCardNumbers('ORD-4242424242424242')).toBe('ORD-424242***4242');
    // the same digits, not inside a UUID's 8-4-4-4-12 shape, are a card-shaped run
    expect(maskCardNumbers('ref a631-968875783 f8f')).toBe('ref a631968***5783 f8f');
  });

  it('then no UUID, in any case or place, is masked (fast-check, 20,000 UUIDs, about 30 of which the former rule masked)', () => {
    let formerlyMasked = 0;
    fc.assert(
      fc.property(fc.uuid(), fc.constantFrom('', 'ORD-', 'order ', 'x'), fc.boolean(), (uuid, prefix, upper) => {
        const text = `${prefix}${upper ? uuid.toUpperCase() : uuid}`;
        if (formerMask(text) !== text) formerlyMasked++;
        expect(maskCardNumbers(text)).toBe(text);
      }),
      { numRuns: 20_000 },
    );
    // the property is not vacuous: generated UUIDs do hold card-shaped runs across their dashes
    expect(formerlyMasked).toBeGreaterThan(5);
  });

  it('then an order number that is a hexadecimal id or hash keeps its digits, while a card number glued to a name is still masked', () => {
    expect(formerMask(HEX_ORDER)).toBe(HEX_FORMER);
    expect(maskIdentifier(HEX_ORDER)).toBe(HEX_ORDER);
    expect(maskFreeText({ order_no: HEX_ORDER, shopper_id: `u-${HEX_ORDER}`, first_name: 'Ade4111111111111111' })).toEqual({
      order_no: HEX_ORDER,
      shopper_id: `u-${HEX_ORDER}`,
      first_name: 'Ade411111***1111',
    });
    // an identifier is still masked where its run stands alone
    expect(maskIdentifier('ORD-4242424242424242')).toBe('ORD-424242***4242');
    expect(maskIdentifier(`${UUID_ORDER} 4000 0566 5566 5556`)).toBe(`${UUID_ORDER} 400005***5556`);
  });

  it('then no hexadecimal id or hash of 16 to 40 digits is masked as an order number (fast-check, 20,000 ids)', () => {
    let formerlyMasked = 0;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 8, maxLength: 20 }),
        fc.constantFrom('', 'ORD-', 'order '),
        fc.boolean(),
        (bytes, prefix, upper) => {
          const hex = Buffer.from(bytes).toString('hex');
          const text = `${prefix}${upper ? hex.toUpperCase() : hex}`;
          if (formerMask(text) !== text) formerlyMasked++;
          // a hex text made only of digits is a number, not an id: it stays under the card rule
          if (/[a-f]/i.test(hex)) expect(maskIdentifier(text)).toBe(text);
        },
      ),
      { numRuns: 20_000 },
    );
    expect(formerlyMasked).toBeGreaterThan(5);
  });

  it("then the former form of the text as masked now is the former form of the text as sent (what an old order's lookup relies on)", () => {
    const piece = fc.oneof(
      fc.uuid(),
      fc.constantFrom('4242424242424242', '4000 0566 5566 5556', '5105-1051-0510-5100', '-', ' ', 'ORD', '12'),
      fc.stringMatching(/^[0-9a-f -]{0,20}$/),
      fc.uint8Array({ minLength: 8, maxLength: 20 }).map((b) => Buffer.from(b).toString('hex')),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join('');
        expect(formerMask(maskCardNumbers(text))).toBe(formerMask(text));
        expect(formerMask(maskIdentifier(text))).toBe(formerMask(text));
      }),
      { numRuns: 20_000 },
    );
  });
});

/** What a gateway before this change stored: the same request, its order_no masked by the former rule. */
async function formerPayment(gw: TestGateway, body: Record<string, unknown>) {
  const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
  const input = parseOrThrow(authoriseSchema, body);
  return authorisePayment(gw.deps, {
    account,
    order: { ...paymentOrder(input), order_no: formerMask(body.order_no as string) },
    source: 'direct',
    fingerprint: requestFingerprint(gw.deps, body),
    card: { pan: input.card!, expMonth: input.expiration_month!, expYear: input.expiration_year!, securityCode: TEST_SECURITY_CODE },
  });
}

describe.each([
  ['a UUID', UUID_ORDER, FORMER],
  ['a hexadecimal id', HEX_ORDER, HEX_FORMER],
])('when a merchant names an order stored under the former masked form of its order number, %s', (_kind, ORDER, STORED) => {
  it('then a retry is answered with the same payment and charges nothing more, and other content is refused with 409', async () => {
    const gw = world.gateway(`order-retry-${ORDER.length}`, clock);
    const body = authoriseBody({ order_no: ORDER, items: undefined, item_total: undefined, card: CARDS.approved });
    const first = await formerPayment(gw, body);
    expect(first.payment.order_no).toBe(STORED);

    const retry = await request(gw.app).post('/v1/authorise').send(JSON.stringify(body));
    expect(retry.status).toBe(200);
    const doc = xml.parse(retry.text).respon;
    expect(doc.transaction_id).toBe(first.payment.transaction_id);
    expect(doc.order_no).toBe(STORED);
    // nothing was stored under the order number as sent: no second payment, no second charge
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, ORDER)).toBeUndefined();

    const other = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody({ order_no: ORDER, amount: '11.00', items: undefined, item_total: undefined })));
    expect(other.status).toBe(409);
    expect(other.text).toContain('order_no');
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, ORDER)).toBeUndefined();
  });

  it('then a capture, a query and a resend that name it by the order number as sent find it', async () => {
    const gw = world.gateway(`order-ops-${ORDER.length}`, clock);
    const body = authoriseBody({
      order_no: ORDER,
      items: undefined,
      item_total: undefined,
      notify_url: 'https://merchant.example/notify',
    });
    const { payment } = await formerPayment(gw, body);

    const query = await postQuery(gw.app, '/v1/retrievalTrans', { order_no: ORDER });
    expect(query.status).toBe(200);
    expect(query.body.orders_list).toHaveLength(1);
    expect(query.body.orders_list[0].transaction_id).toBe(payment.transaction_id);

    const capture = await postBatch(gw.app, 'capture', [
      { transaction_id: payment.transaction_id, order_no: ORDER, currency: 'USD', amount: '10.00' },
    ]);
    expect(capture.status).toBe(200);
    expect(capture.body.capture_orders[0]).toMatchObject({ transaction_id: payment.transaction_id, capture_status: '1' });

    const resend = await request(gw.app)
      .post('/v1/notifications/resend')
      .send(
        JSON.stringify(
          signBody(
            { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, notify_id: '', order_no: ORDER },
            ['merchant_id', 'account_id', 'notify_id', 'order_no'],
            SIGN_KEY,
          ),
        ),
      );
    expect(resend.status).toBe(200);
    expect(resend.body.notifications[0].order_no).toBe(STORED);
  });

  it('then a checkout request repeated for it answers the session already open, not a second one', async () => {
    const gw = world.gateway(`order-checkout-${ORDER.length}`, clock);
    const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
    const body = checkoutBody({ order_no: ORDER });
    const input = parseOrThrow(checkoutSchema, body);
    const open = await openCheckout(gw.deps, {
      account,
      order: { ...paymentOrder(input), order_no: STORED },
      request: { ...body, order_no: STORED },
      fingerprint: requestFingerprint(gw.deps, body),
      returnUrl: input.return_url,
      cancelUrl: input.cancel_url,
      sourceIp: '',
    });
    const again = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));
    expect(again.status).toBe(200);
    expect(JSON.stringify(again.body)).toContain(open.session_id);
    const other = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ order_no: ORDER, amount: '12.00' })));
    expect(other.status).toBe(409);
    // once that session has expired, the order opens a new one, indexed under the order number as sent
    clock.advance(31 * 60_000);
    const renewed = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ order_no: ORDER })));
    expect(renewed.status).toBe(200);
    expect(JSON.stringify(renewed.body)).not.toContain(open.session_id);
    expect(await gw.deps.store.checkoutOfOrder(MERCHANT_ID, ACCOUNT_ID, ORDER)).toBeDefined();
  });

  it('then a new order numbered so is stored, answered and found under the order number as sent', async () => {
    const gw = world.gateway(`order-new-${ORDER.length}`, clock);
    const res = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody({ order_no: ORDER })));
    expect(res.status).toBe(200);
    expect(xml.parse(res.text).respon.order_no).toBe(ORDER);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, ORDER)).toBeDefined();
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, STORED)).toBeUndefined();
  });
});

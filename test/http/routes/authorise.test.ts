import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, AUTO_SIGN_KEY, MERCHANT_ID, SIGN_KEY, authoriseBody } from '../../support/gateway.js';
import { CARDS } from '../../support/cards.js';
import { FIELDS, sign } from '../../support/sign.js';
import { requestFingerprint } from '../../../src/core/kernel/fingerprint.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const xml = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'risk_reasons' });

const gw = gatewayOnRedis('authorise');

async function authorise(body: Record<string, unknown>, contentType = 'application/x-www-form-urlencoded') {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', contentType)
    .set('Accept', 'application/json')
    .send(JSON.stringify(body));
  return { res, doc: res.status === 200 ? xml.parse(res.text).respon : undefined };
}

const SPEC_ELEMENTS = [
  'merchant_id',
  'account_id',
  'order_no',
  'amount',
  'currency',
  'transaction_id',
  'card',
  'order_status',
  'result_info',
  'contract_name',
  'recurring_id',
  'recurring_deduction_period',
  'recurring_deduction_time',
  'note',
  'token_id',
  'connector',
  'threeds_result',
  'risk_action',
  'risk_score',
  'risk_reasons',
  'encryption_data',
];

describe('POST /v1/authorise, a note with characters XML 1.0 cannot carry', () => {
  it('when the note holds control characters, then the payment is answered by a well-formed document without them', async () => {
    const body = authoriseBody({ note: 'gift\u0001 wrap\u000b \u{1F381} \ud800!' });
    const { res, doc } = await authorise(body);
    expect(res.status).toBe(200);
    // eslint-disable-next-line no-control-regex -- matching these characters is the point
    expect(res.text).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(doc.note).toBe('gift wrap \u{1F381} !');
    expect(doc.order_status).toBe('1');
    expect(doc.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => doc[f]),
        SIGN_KEY,
      ).toUpperCase(),
    );
  });
});

describe('POST /v1/authorise, approved card', () => {
  it('when the approved card pays, then the respon document has every spec element in order, signed in upper case', async () => {
    const body = authoriseBody({ note: 'gift wrap' });
    const { res, doc } = await authorise(body);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    const order = [...res.text.matchAll(/^ {2}<(\w+)>/gm)].map((m) => m[1]);
    expect([...new Set(order)]).toEqual(SPEC_ELEMENTS);
    expect(doc).toMatchObject({
      merchant_id: MERCHANT_ID,
      account_id: ACCOUNT_ID,
      order_no: body.order_no,
      amount: '10.00',
      currency: 'USD',
    });
    expect(doc.card).toBe('424242***4242');
    expect(doc.order_status).toBe('1');
    expect(doc.result_info).toBe('0000:Success');
    expect(doc.note).toBe('gift wrap');
    expect(doc.connector).toBe('Sandbox');
    expect(doc.risk_action).toBe('ACCEPT');
    expect(doc.risk_reasons.length).toBeGreaterThan(0);
    expect(doc.risk_reasons[0]).toHaveProperty('name');
    expect(doc.risk_reasons[0]).toHaveProperty('status');
    expect(doc.encryption_data).toMatch(/^[0-9A-F]{64}$/);
    expect(doc.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => doc[f]),
        SIGN_KEY,
      ).toUpperCase(),
    );
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(stored?.status).toBe('3000');
    expect(stored?.amount).toBe(1000);
  });

  it('when the account captures automatically, then the payment is captured at once (3100)', async () => {
    const { doc } = await authorise(authoriseBody({ account_id: AUTO_ACCOUNT_ID, currency: 'GBP' }, AUTO_SIGN_KEY));
    expect(doc.order_status).toBe('1');
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(stored?.status).toBe('3100');
    expect(stored?.captured).toBe(1000);
  });

  it('when a JSON body is declared as application/json or application/xml, then it is read the same', async () => {
    expect((await authorise(authoriseBody(), 'application/json')).doc.order_status).toBe('1');
    expect((await authorise(authoriseBody(), 'application/xml')).doc.order_status).toBe('1');
  });
});

describe('POST /v1/authorise, test cards decide the outcome', () => {
  it.each([
    [CARDS.declined, '0', '3001:Card declined', '4000'],
    [CARDS.insufficientFunds, '0', '3002:Insufficient funds', '4000'],
    [CARDS.expiredCard, '0', '3003:Expired card', '4000'],
    [CARDS.processingError, '0', '5001:Processing error at the connector', '4000'],
    [CARDS.approvedMastercard, '1', '0000:Success', '3000'],
  ])('when card %s pays, then order_status is %s with %s (HTTP 200)', async (card, orderStatus, resultInfo, paymentStatus) => {
    const { res, doc } = await authorise(authoriseBody({ card }));
    expect(res.status).toBe(200);
    expect(doc.order_status).toBe(orderStatus);
    expect(doc.result_info).toBe(resultInfo);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id))?.status).toBe(paymentStatus);
  });

  it('when the challenge card pays with do3DS, then it is pending (2) with an issuer_url', async () => {
    const { doc } = await authorise(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS' }));
    expect(doc.order_status).toBe('2');
    expect(doc.result_info).toBe('2001:Pending 3-D Secure authentication');
    expect(doc.issuer_url).toMatch(new RegExp(`^http://gateway\\.test/v1/3ds/${MERCHANT_ID}/${doc.transaction_id}/[\\w-]{20,}$`));
    expect(doc.threeds_result).toBe('challenge required');
  });

  it('when the challenge card pays with no3DS, then it is authorised without a challenge', async () => {
    const { doc } = await authorise(authoriseBody({ card: CARDS.challenge, open3d: 'no3DS' }));
    expect(doc.order_status).toBe('1');
    expect(doc.threeds_result).toBe('not performed');
    expect(doc.issuer_url).toBeUndefined();
  });
});

describe('POST /v1/authorise, risk', () => {
  it('when the shopper email ends in +review, then the payment is held for review (2000)', async () => {
    const { doc } = await authorise(authoriseBody({ shopper_email: 'ada+review@example.com' }));
    expect(doc.order_status).toBe('2');
    expect(doc.result_info).toBe('2002:Held for risk review');
    expect(doc.risk_action).toBe('REVIEW');
    expect(doc.risk_reasons).toContainEqual({ name: 'email_test_trigger', status: 'REVIEW' });
    expect((await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id))?.status).toBe('2000');
  });

  it('when the shopper email ends in +reject, then the payment is refused by risk (4200)', async () => {
    const { doc } = await authorise(authoriseBody({ shopper_email: 'ada+reject@example.com' }));
    expect(doc.order_status).toBe('0');
    expect(doc.result_info).toBe('3005:Rejected by risk control');
    expect(doc.risk_action).toBe('REJECT');
    expect(Number(doc.risk_score)).toBe(100);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id))?.status).toBe('4200');
  });
});

describe('POST /v1/authorise, tokens and subscriptions', () => {
  it('when token_flag is YES, then a token_id is returned and a later payment with only that token is charged to the same card', async () => {
    const first = await authorise(authoriseBody({ token_flag: 'YES', card: CARDS.approvedVisa2 }));
    expect(first.doc.token_id).toMatch(/^tok_/);
    const second = await authorise(
      authoriseBody({
        token_id: first.doc.token_id,
        card: undefined,
        expiration_month: undefined,
        expiration_year: undefined,
        security_code: undefined,
      }),
    );
    expect(second.doc.order_status).toBe('1');
    expect(second.doc.card).toBe('444433***1111');
    expect(second.doc.transaction_id).not.toBe(first.doc.transaction_id);
  });

  it('when token_flag is NO, then no token is returned', async () => {
    expect((await authorise(authoriseBody())).doc.token_id).toBe('');
  });

  it('when a token of an unknown card is used, then it is a 400 naming token_id', async () => {
    const { res } = await authorise(
      authoriseBody({
        token_id: 'tok_UNKNOWN',
        card: undefined,
        expiration_month: undefined,
        expiration_year: undefined,
        security_code: undefined,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('token_id');
  });

  it('when a declined payment asked for a token, then no token is returned and no card is kept', async () => {
    const cards = () => gw.redis.client().keys(`gw:{${MERCHANT_ID}}:card:*`);
    const before = (await cards()).length;
    const { doc } = await authorise(authoriseBody({ token_flag: 'YES', card: CARDS.declined }));
    expect(doc.order_status).toBe('0');
    expect(doc.token_id).toBe('');
    expect((await cards()).length).toBe(before);
  });

  it('when a subscription block is sent, then the contract is created and the schedule is in the answer', async () => {
    const { doc } = await authorise(
      authoriseBody({
        subscription: {
          contract: 'c-1',
          contract_name: 'Gold plan',
          contract_amount: '5.00',
          interval: 'month',
          interval_count: '1',
          billing_cycle: 12,
          promotion_cycle: 1,
          contract_start: '2026-11-21',
          contract_end: '2027-12-31',
          price_id: 'price_1',
        },
      }),
    );
    expect(doc.order_status).toBe('1');
    expect(doc.contract_name).toBe('Gold plan');
    expect(doc.recurring_id).toMatch(/^RC/);
    expect(doc.recurring_deduction_period).toBe('1 month');
    expect(doc.recurring_deduction_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const contract = await gw.deps.store.getContract(MERCHANT_ID, doc.recurring_id);
    expect(contract).toMatchObject({ status: 'Active', contract_amount: 500, promotion_amount: 1000, billing_cycle: 12, charges_made: 1 });
  });
});

describe('POST /v1/authorise, idempotency on order_no', () => {
  it('when the same request is sent again, then the original answer comes back and nothing is charged twice', async () => {
    const body = authoriseBody();
    const a = await authorise(body);
    const b = await authorise(body);
    expect(b.doc.transaction_id).toBe(a.doc.transaction_id);
    expect(b.res.text).toBe(a.res.text);
  });

  it('when other content is sent under a used order_no, then it is refused (409) and no transaction is made', async () => {
    const body = authoriseBody();
    const first = await authorise(body);
    const before = (await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`)).length;
    const other = authoriseBody({ order_no: body.order_no, amount: '20.00', item_total: '20.00', items: 'T#,#1#,#20.00#,#1' });
    const { res } = await authorise(other);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'ORDER_CONFLICT', field: 'order_no' });
    expect((await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`)).length).toBe(before);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, first.doc.transaction_id))?.amount).toBe(1000);
  });

  it('when the same order comes again with optional fields sent empty, or its amount with fewer fraction digits, then it is the same request: the original answer, one transaction', async () => {
    const body = authoriseBody();
    const first = await authorise(body);
    expect(first.res.status).toBe(200);
    const before = (await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`)).length;
    const forms = [
      authoriseBody({ order_no: body.order_no, note: '', subscription: {}, cart_items: [], token_id: '' }),
      authoriseBody({ order_no: body.order_no, amount: '10' }),
      authoriseBody({ order_no: body.order_no, amount: '10.0', item_total: '10.00', note: '' }),
    ];
    for (const again of forms) {
      const { res, doc } = await authorise(again);
      expect(res.status, res.text).toBe(200);
      expect(doc.transaction_id).toBe(first.doc.transaction_id);
    }
    // other content is still other content
    const other = await authorise(authoriseBody({ order_no: body.order_no, note: 'gift wrap' }));
    expect(other.res.status).toBe(409);
    expect((await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`)).length).toBe(before);
  });

  it('when a payment kept by an earlier version (its fingerprint over the body as sent, empty fields and all) is sent again, then it is still the same request', async () => {
    const body = authoriseBody({ note: '', amount: '10' });
    const first = await authorise(body);
    expect(first.res.status).toBe(200);
    const kept = (await gw.deps.store.getPayment(MERCHANT_ID, first.doc.transaction_id))!;
    const asSent = requestFingerprint(gw.deps, body);
    expect(kept.fingerprint).not.toBe(asSent);
    expect(
      await gw.deps.store.commit({
        merchantId: MERCHANT_ID,
        payments: [{ next: { ...kept, fingerprint: asSent }, expected: kept.version }],
      }),
    ).toBe(true);
    const again = await authorise(body);
    expect(again.res.status, again.res.text).toBe(200);
    expect(again.doc.transaction_id).toBe(first.doc.transaction_id);
  });
});

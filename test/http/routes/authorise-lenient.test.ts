import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { MERCHANT_ID, SIGN_KEY, authoriseBody } from '../../support/gateway.js';
import { FIELDS, sign } from '../../support/sign.js';
import { createHash } from 'node:crypto';
import { postBatch, ref } from '../../support/operations.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

/** docs/api.md#bodies: liberal in what existing integrations send (empty optional fields, short amounts). */
const xml = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'risk_reasons' });

const gw = gatewayOnRedis('authorise-lenient');

async function authorise(body: Record<string, unknown>) {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .set('Accept', 'application/json, application/xml;q=0.5')
    .send(JSON.stringify(body));
  return { res, doc: res.status === 200 ? xml.parse(res.text).respon : undefined };
}

const contracts = async () => (await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:contract:*`)).length;

describe('POST /v1/authorise, optional fields sent empty count as absent', () => {
  it('when a token payment sends card, expiry and security code as empty strings, then it is charged to the token', async () => {
    const first = await authorise(authoriseBody({ token_flag: 'YES' }));
    expect(first.doc.token_id).toMatch(/^tok_/);
    const { res, doc } = await authorise(
      authoriseBody({ token_id: first.doc.token_id, card: '', expiration_month: '', expiration_year: '', security_code: '' }),
    );
    expect(res.status, res.text).toBe(200);
    expect(doc.order_status).toBe('1');
    expect(doc.card).toBe(first.doc.card);
  });

  it('when subscription is {} or holds only empty values, then the payment is made and no contract is created', async () => {
    const before = await contracts();
    const empty = {
      contract: '',
      contract_name: '',
      contract_amount: '',
      interval: '',
      interval_count: '',
      billing_cycle: '',
      promotion_cycle: '',
      contract_start: '',
      contract_end: '',
      price_id: '',
    };
    for (const subscription of [{}, empty]) {
      const { res, doc } = await authorise(authoriseBody({ subscription }));
      expect(res.status, res.text).toBe(200);
      expect(doc.order_status).toBe('1');
      expect(doc.recurring_id).toBe('');
    }
    expect(await contracts()).toBe(before);
  });

  it('when checkout_time, cart_items and additional_information are sent empty, then the payment is made', async () => {
    const { res, doc } = await authorise(
      authoriseBody({
        checkout_time: '',
        cart_items: [],
        account_owner: [{}],
        additional_information: [{ mpi_info: { eci: '', cavv: '' } }],
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(doc.order_status).toBe('1');
  });

  it('when a required field is sent empty, then it is still refused as missing', async () => {
    const { res } = await authorise(authoriseBody({ order_no: '' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'MISSING_FIELD', field: 'order_no' });
  });
});

describe('POST /v1/authorise, amounts with fewer fraction digits', () => {
  it.each([
    ['10', '10.00'],
    ['10.5', '10.50'],
  ])('when amount is %j (signed as sent), then it is charged as %s, which the answer writes and signs', async (sent, written) => {
    const body = authoriseBody({
      amount: sent,
      item_total: sent === '10' ? '10' : undefined,
      items: sent === '10' ? 'T-shirt#,#SKU-1#,#5#,#2' : undefined,
    });
    expect(body.encryption_data).toBe(
      sign(
        FIELDS.authorise.map((f) => (body as Record<string, unknown>)[f]),
        SIGN_KEY,
      ),
    );
    const { res, doc } = await authorise(body);
    expect(res.status, res.text).toBe(200);
    expect(doc.amount).toBe(written);
    expect(doc.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => doc[f]),
        SIGN_KEY,
      ).toUpperCase(),
    );
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(stored!.amount).toBe(Number(written.replace('.', '')));
  });

  it('when a zero-decimal amount is sent whole ("1000" JPY), then it is charged; with a fraction it is refused naming amount', async () => {
    const whole = await authorise(authoriseBody({ currency: 'JPY', amount: '1000', item_total: undefined, items: undefined }));
    expect(whole.res.status, whole.res.text).toBe(200);
    expect(whole.doc.amount).toBe('1000.00');
    const fraction = await authorise(authoriseBody({ currency: 'JPY', amount: '1000.5', item_total: undefined, items: undefined }));
    expect(fraction.res.status).toBe(400);
    expect(fraction.res.body.field).toBe('amount');
  });

  it('when a capture names its amount as "10", then the order is captured and its amount is answered as "10.00"', async () => {
    const { doc } = await authorise(authoriseBody({ amount: '10' }));
    const res = await postBatch(gw.app, 'capture', [ref(doc, { amount: '10' })]);
    expect(res.status).toBe(200);
    expect(res.body.capture_orders[0]).toMatchObject({ amount: '10.00', capture_status: '1' });
  });
});

/** The other form of docs/api.md#signatures: the values exactly as sent, spaces kept. */
const signAsSent = (body: Record<string, unknown>, key = SIGN_KEY) =>
  createHash('sha256')
    .update(FIELDS.authorise.map((f) => (body[f] === undefined ? '' : String(body[f]))).join('') + key, 'utf8')
    .digest('hex');

describe('POST /v1/authorise, request signatures in both forms', () => {
  it('when a last_name "De Morgan" is signed with its space kept, then the payment is accepted', async () => {
    const body = authoriseBody({ first_name: 'Augustus', last_name: 'De Morgan' });
    const asSent = { ...body, encryption_data: signAsSent(body) };
    expect(asSent.encryption_data).not.toBe(body.encryption_data);
    const { res, doc } = await authorise(asSent);
    expect(res.status, res.text).toBe(200);
    expect(doc.order_status).toBe('1');
    // our own signature keeps the spaces-removed form
    expect(doc.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => doc[f]),
        SIGN_KEY,
      ).toUpperCase(),
    );
  });

  it('when the same values are signed with the spaces removed, then that is accepted too', async () => {
    const { res } = await authorise(authoriseBody({ first_name: 'Augustus', last_name: 'De Morgan' }));
    expect(res.status).toBe(200);
  });

  it('when the signature matches neither form (another key), then 401', async () => {
    const body = authoriseBody({ last_name: 'De Morgan' });
    const { res } = await authorise({ ...body, encryption_data: signAsSent(body, 'not-the-key') });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTHENTICATION_FAILED');
  });
});

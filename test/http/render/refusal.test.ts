import { bodyLimitFor } from '../../../src/http/middleware/body.js';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, authoriseBody, makeGateway, testMerchants } from '../../support/gateway.js';
import { FIELDS, sign } from '../../support/sign.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

/** docs/api.md#bodies: /v1/authorise answers refusals as a respon document unless the caller prefers JSON. */
const xml = new XMLParser({ parseTagValue: false });

const gw = gatewayOnRedis('refusal');

const post = (body: unknown, accept?: string, app = gw.app) => {
  const r = request(app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded');
  if (accept !== undefined) r.set('Accept', accept);
  return r.send(typeof body === 'string' ? body : JSON.stringify(body));
};

/** The refusal as an XML-only client reads it: a well-formed respon document. */
function respon(res: { status: number; text: string; headers: Record<string, string> }) {
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  expect(XMLValidator.validate(res.text)).toBe(true);
  return xml.parse(res.text).respon as Record<string, string>;
}

const signed = (doc: Record<string, string>) =>
  sign(
    FIELDS.answerPayment.map((f) => doc[f]),
    SIGN_KEY,
  ).toUpperCase();

describe('POST /v1/authorise refusals as respon documents', () => {
  it('when a signed request has a bad card number, then 400 answers order_status 0, result_info naming the field, the identifiers, signed', async () => {
    const body = authoriseBody({ card: '4242424242424241', amount: '10', item_total: undefined, items: undefined });
    const res = await post(body);
    expect(res.status).toBe(400);
    const doc = respon(res);
    expect(doc).toMatchObject({
      merchant_id: MERCHANT_ID,
      account_id: ACCOUNT_ID,
      order_no: body.order_no,
      amount: '10.00',
      currency: 'USD',
      order_status: '0',
      transaction_id: '',
      result_info: 'INVALID_FIELD:card: is not a valid card number (Luhn check)',
    });
    expect(doc.request_id).toBe(res.headers['x-request-id']);
    expect(doc.encryption_data).toBe(signed(doc));
    expect(res.text).not.toContain('4242424242424241');
  });

  it('when the signature is wrong, then 401 answers a respon document with no signature of ours', async () => {
    const res = await post({ ...authoriseBody(), encryption_data: 'ab'.repeat(32) });
    expect(res.status).toBe(401);
    const doc = respon(res);
    expect(doc.result_info).toBe('AUTHENTICATION_FAILED:merchant_id, account_id or encryption_data is not valid');
    expect(doc.order_status).toBe('0');
    expect(doc.encryption_data).toBe('');
  });

  it('when an order_no is reused with other content, then 409 answers ORDER_CONFLICT as a respon document', async () => {
    const first = authoriseBody();
    expect((await post(first)).status).toBe(200);
    const res = await post(authoriseBody({ order_no: first.order_no, amount: '11.00', item_total: undefined, items: undefined }));
    expect(res.status).toBe(409);
    expect(respon(res).result_info).toMatch(/^ORDER_CONFLICT:order_no: /);
  });

  it('when an Idempotency-Key is reused with another body, then 409 comes as a signed respon document', async () => {
    const key = `idem-${Date.now()}`;
    const first = await post(authoriseBody()).set('Idempotency-Key', key);
    expect(first.status).toBe(200);
    const res = await post(authoriseBody()).set('Idempotency-Key', key);
    expect(res.status).toBe(409);
    const doc = respon(res);
    expect(doc.result_info).toMatch(/^IDEMPOTENCY_CONFLICT:/);
    expect(doc.encryption_data).toBe(signed(doc));
  });

  it('when the body is not JSON or is over its limit, then 400 and 413 come as respon documents', async () => {
    const bad = await post('{"merchant_id": "1000001",');
    expect(bad.status).toBe(400);
    expect(respon(bad).result_info).toMatch(/^INVALID_BODY:body: is not valid JSON/);
    const big = await post(authoriseBody({ note: 'x'.repeat(bodyLimitFor('/v1/authorise')) }));
    expect(big.status).toBe(413);
    expect(respon(big).result_info).toMatch(/^BODY_TOO_LARGE:/);
  });

  it('when the account is over its rate limit, then 429 comes as a respon document with Retry-After', async () => {
    const merchants = testMerchants();
    (merchants.merchants[0]!.accounts[0] as unknown as Record<string, unknown>).rate_limit_per_second = 1;
    const limited = makeGateway({ name: 'refusal-rate', redisUrl: gw.redis.url, merchants, clock: new ManualClock() });
    try {
      expect((await post(authoriseBody(), undefined, limited.app)).status).toBe(200);
      const res = await post(authoriseBody(), undefined, limited.app);
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
      expect(respon(res).result_info).toMatch(/^RATE_LIMITED:/);
    } finally {
      await limited.close();
    }
  });

  it.each([
    ['application/json', 'json'],
    ['application/json, application/xml;q=0.5', 'json'],
    ['application/xml, application/json;q=0.9', 'xml'],
    ['text/xml', 'xml'],
    ['*/*', 'xml'],
    [undefined, 'xml'],
  ])('when Accept is %s, then the refusal is %s', async (accept, kind) => {
    const res = await post(authoriseBody({ card: '12' }), accept);
    expect(res.status).toBe(400);
    if (kind === 'json') expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'card' });
    else expect(respon(res).result_info).toMatch(/^INVALID_FIELD:card: /);
  });

  it('when another call is refused, then it stays a JSON error', async () => {
    const res = await request(gw.app).post('/v1/capture').send('{"merchant_id":"1000001"}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('MISSING_FIELD');
  });
});

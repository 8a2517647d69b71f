import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, authoriseBody } from '../../support/gateway.js';
import { CARDS, CHALLENGE_CODE } from '../../support/cards.js';
import { attributeOf } from '../../support/checkout.js';
import { FIELDS, sign } from '../../support/sign.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

/** docs/api.md: /v1/authorise takes return_url from its signed body; an address appended to issuer_url counts only without it. */
const xml = new XMLParser({ parseTagValue: false });

const gw = gatewayOnRedis('threeds-return');

const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

async function challenged(overrides: Record<string, unknown>) {
  const res = await request(gw.app)
    .post('/v1/authorise')
    .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS', ...overrides })));
  expect(res.status, res.text).toBe(200);
  const doc = xml.parse(res.text).respon;
  expect(doc.order_status).toBe('2');
  return doc as Record<string, string> & { transaction_id: string; issuer_url: string };
}

describe('POST /v1/authorise with return_url in its body', () => {
  it('when the challenge is passed, then the shopper goes to the body return_url with the signed result, whatever was appended', async () => {
    const doc = await challenged({ return_url: 'https://shop.example/signed-return' });
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(stored?.return_url).toBe('https://shop.example/signed-return');
    const issuer = new URL(doc.issuer_url!);
    issuer.searchParams.set('return_url', 'https://evil.example/phish');
    const page = await request(gw.app).get(local(issuer.toString()));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('evil.example');
    const done = await request(gw.app)
      .post(issuer.pathname)
      .type('form')
      .send({ code: CHALLENGE_CODE, return_url: 'https://evil.example/phish' });
    expect(done.status).toBe(200);
    const redirect = new URL(attributeOf(done.text, 'result', 'data-redirect')!);
    expect(redirect.origin + redirect.pathname).toBe('https://shop.example/signed-return');
    const q: Record<string, string> = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...Object.fromEntries(redirect.searchParams) };
    expect(q.order_status).toBe('1');
    expect(q.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => q[f]),
        SIGN_KEY,
      ),
    );
    expect((await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id))?.return_url).toBe('https://shop.example/signed-return');
  });

  it('when the body carries no return_url, then an appended one still counts', async () => {
    const doc = await challenged({});
    const issuer = new URL(doc.issuer_url!);
    issuer.searchParams.set('return_url', 'https://shop.example/appended');
    const page = await request(gw.app).get(local(issuer.toString()));
    expect(page.text).toContain('name="return_url" value="https://shop.example/appended"');
  });

  it('when return_url is not an http(s) URL, then 400 names return_url and nothing is charged', async () => {
    const body = authoriseBody({ return_url: 'javascript:alert(1)' });
    const res = await request(gw.app).post('/v1/authorise').set('Accept', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'return_url' });
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, body.order_no as string)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { createHash, randomUUID } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../support/gateway.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';
import { attributeOf } from '../support/checkout.js';
import { gatewayOnRedis } from '../support/gateway-on-redis.js';

/**
 * Plays an existing merchant integration of this API family end to end, as the public PHP client does it:
 * real form bodies (http_build_query), values signed as they are sent (spaces kept) or with spaces removed,
 * every answer of /v1/authorise read as XML with fast-xml-parser, docs/api.md's examples taken literally.
 * The client's signing is written here from the documentation, not imported from the gateway.
 */
const xml = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'risk_reasons' });
const AUTHORISE_FIELDS = [
  'merchant_id',
  'account_id',
  'order_no',
  'currency',
  'amount',
  'first_name',
  'last_name',
  'card',
  'expiration_year',
  'expiration_month',
  'security_code',
  'shopper_email',
];
const ANSWER_FIELDS = ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'order_status'];

const gw = gatewayOnRedis('compat');

type Form = Record<string, string>;

/** The client's signature: SHA-256 of the values in order, then the key; `keepSpaces` as that client does by default. */
function clientSign(form: Form, fields: string[], keepSpaces: boolean): string {
  const text = fields.map((f) => (keepSpaces ? (form[f] ?? '') : (form[f] ?? '').replaceAll(' ', ''))).join('');
  return createHash('sha256')
    .update(text + SIGN_KEY, 'utf8')
    .digest('hex');
}

/** Every field the client's payment form has, empty unless set (form-built requests send them all). */
function paymentForm(values: Form): Form {
  const all = [
    ...AUTHORISE_FIELDS,
    'item_total',
    'items',
    'note',
    'website',
    'shopper_ip',
    'open3d',
    'token_flag',
    'token_id',
    'notify_url',
    'return_url',
    'birth_date',
    'billing_country',
    'checkout_time',
    'installments',
    'challenge_window_size',
    'subscription',
  ];
  const form: Form = Object.fromEntries(all.map((f) => [f, '']));
  return { ...form, merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: `PHP-${randomUUID()}`, currency: 'USD', ...values };
}

/** Posts a real form body and reads the answer as the XML-only client does; every answer must parse. */
async function authorise(form: Form, keepSpaces = true) {
  const signed = { ...form, encryption_data: clientSign(form, AUTHORISE_FIELDS, keepSpaces) };
  const res = await request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .set('Accept', 'application/xml, text/xml, */*')
    .send(new URLSearchParams(signed).toString());
  expect(res.headers['content-type'], res.text).toMatch(/^application\/xml/);
  expect(XMLValidator.validate(res.text)).toBe(true);
  const doc = xml.parse(res.text).respon as Record<string, string>;
  return { status: res.status, doc };
}

/** The client checks our signature over the answer (spaces removed, upper case in XML). */
function answerSigned(doc: Record<string, string>): boolean {
  const text = ANSWER_FIELDS.map((f) => (doc[f] ?? '').replaceAll(' ', '')).join('');
  return (
    doc.encryption_data ===
    createHash('sha256')
      .update(text + SIGN_KEY, 'utf8')
      .digest('hex')
      .toUpperCase()
  );
}

const card = { card: CARDS.approved, expiration_month: '12', expiration_year: '2034', security_code: TEST_SECURITY_CODE };

describe('an existing PHP integration pointed at the gateway', () => {
  it('pays with the sample amount "10" and a last_name with a space, signed both ways, and reads XML answers', async () => {
    for (const keepSpaces of [true, false]) {
      const { status, doc } = await authorise(
        paymentForm({
          ...card,
          amount: '10',
          first_name: 'Augustus',
          last_name: 'De Morgan',
          shopper_email: 'adm@example.com',
          open3d: 'no3DS',
        }),
        keepSpaces,
      );
      expect(status).toBe(200);
      expect(doc).toMatchObject({ order_status: '1', amount: '10.00', result_info: '0000:Success' });
      expect(answerSigned(doc)).toBe(true);
    }
  });

  it('saves a card, then pays by token with card, expiry and security code sent as empty strings', async () => {
    const first = await authorise(paymentForm({ ...card, amount: '25.5', token_flag: 'YES', open3d: 'no3DS' }));
    expect(first.doc.order_status).toBe('1');
    expect(first.doc.amount).toBe('25.50');
    expect(first.doc.token_id).toMatch(/^tok_/);
    const byToken = await authorise(paymentForm({ amount: '12', token_id: first.doc.token_id!, token_flag: 'NO', open3d: 'no3DS' }));
    expect(byToken.status).toBe(200);
    expect(byToken.doc).toMatchObject({ order_status: '1', amount: '12.00', card: first.doc.card });
  });

  it('reads a refusal as XML: order_status 0 and result_info naming the field, with the request identifiers', async () => {
    const form = paymentForm({ ...card, card: '4242424242424241', amount: '10' });
    const { status, doc } = await authorise(form);
    expect(status).toBe(400);
    expect(doc).toMatchObject({ order_no: form.order_no, order_status: '0', amount: '10.00' });
    expect(doc.result_info).toMatch(/^INVALID_FIELD:card: /);
    expect(answerSigned(doc)).toBe(true);
    const tooPrecise = await authorise(paymentForm({ ...card, amount: '10.005' }));
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.doc.result_info).toMatch(/^INVALID_FIELD:amount: /);
  });

  it('queries transactions exactly as docs/api.md shows (merchant_id, account_id, encryption_data as form fields)', async () => {
    const paid = await authorise(paymentForm({ ...card, amount: '7', open3d: 'no3DS' }));
    const query: Form = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID };
    query.encryption_data = clientSign(query, ['merchant_id', 'account_id'], true);
    const res = await request(gw.app).post('/v1/retrievalTrans').type('form').send(new URLSearchParams(query).toString());
    expect(res.status, res.text).toBe(200);
    expect(res.body.return_status).toBe('1');
    expect(res.body.orders_list[0]).toMatchObject({ transaction_id: paid.doc.transaction_id, amount: '7.00', query_result: '1' });
  });

  it('sends a 3-D Secure payment with return_url in the form and gets the shopper back there with a signed result', async () => {
    const form = paymentForm({
      ...card,
      card: CARDS.challenge,
      amount: '30',
      open3d: 'do3DS',
      return_url: 'https://shop.example/php-return',
    });
    const { status, doc } = await authorise(form);
    expect(status).toBe(200);
    expect(doc.order_status).toBe('2');
    const issuer = new URL(doc.issuer_url!);
    // anyone may append a return_url; the one the merchant signed wins
    issuer.searchParams.set('return_url', 'https://evil.example/');
    const page = await request(gw.app).get(issuer.pathname + issuer.search);
    expect(page.status).toBe(200);
    const done = await request(gw.app).post(issuer.pathname).type('form').send({ code: CHALLENGE_CODE });
    const back = new URL(attributeOf(done.text, 'result', 'data-redirect')!);
    expect(back.origin + back.pathname).toBe('https://shop.example/php-return');
    const result: Record<string, string> = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...Object.fromEntries(back.searchParams) };
    expect(result).toMatchObject({ order_no: form.order_no, order_status: '1', amount: '30.00' });
    const text = ANSWER_FIELDS.map((f) => (result[f] ?? '').replaceAll(' ', '')).join('');
    expect(result.encryption_data).toBe(
      createHash('sha256')
        .update(text + SIGN_KEY, 'utf8')
        .digest('hex'),
    );
  });
});

import { bodyLimitFor } from '../../../src/http/middleware/body.js';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { authoriseBody, makeGateway, MERCHANT_ID, testMerchants } from '../../support/gateway.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { FIELDS, sign } from '../../support/sign.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const gw = gatewayOnRedis('authorise-errors');

const post = (body: unknown, type = 'application/x-www-form-urlencoded') =>
  request(gw.app)
    .post('/v1/authorise')
    .set('Content-Type', type)
    .set('Accept', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));

const paymentCount = async () => (await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`)).length;

describe('POST /v1/authorise, invalid fields get a 400 that names the field', () => {
  it.each([
    ['amount', { amount: '10.001' }],
    ['amount', { amount: '-10' }],
    ['amount', { amount: '1e1' }],
    ['amount', { amount: '10.' }],
    ['amount', { amount: 10 }],
    ['amount', { amount: '0.00' }],
    ['currency', { currency: 'XXX' }],
    ['currency', { currency: 'CHF' }],
    ['item_total', { item_total: '10.500' }],
    ['items', { items: 'Shirt#,#1#,#5.00#,#3' }],
    ['items', { items: 'Shirt#,#1#,#5.00' }],
    ['birth_date', { birth_date: '31-02-2000' }],
    ['birth_date', { birth_date: '2000-01-01' }],
    ['card', { card: '4242424242424241' }],
    ['card', { card: '42424242abcd' }],
    ['expiration_month', { expiration_month: '13' }],
    ['expiration_year', { expiration_year: '2020' }],
    ['expiration_year', { expiration_year: '20x1' }],
    ['security_code', { security_code: '12' }],
    ['card', { card: undefined }],
    ['security_code', { security_code: undefined }],
    ['open3d', { open3d: 'maybe' }],
    ['token_flag', { token_flag: 'yes please' }],
    ['notify_url', { notify_url: 'ftp://merchant.example/notify' }],
    ['shopper_email', { shopper_email: 'not-an-email' }],
    ['shopper_ip', { shopper_ip: '999.1.1.1' }],
    ['checkout_time', { checkout_time: 'soon' }],
    ['challenge_window_size', { challenge_window_size: '09' }],
    ['billing_country', { billing_country: 'GBR' }],
    ['order_no', { order_no: 'has space' }],
    [
      'cart_items.0.basic_item_data.price.amount_usd',
      {
        cart_items: [
          { basic_item_data: { name: 'x', quantity: '1', price: { amount_usd: '1', amount_local_currency: 1, currency: 'USD' } } },
        ],
      },
    ],
    [
      'cart_items.0.basic_item_data.price.currency',
      {
        cart_items: [
          { basic_item_data: { name: 'x', quantity: '1', price: { amount_usd: 1, amount_local_currency: 1, currency: 'EURO' } } },
        ],
      },
    ],
    ['account_owner.0.past_orders_count', { account_owner: [{ first_name: 'a', past_orders_count: 1.5 }] }],
    // a 16-digit number where a date is meant would be kept as sent: it may be a card number
    ['account_owner.0.created', { account_owner: [{ first_name: 'a', created: -4057182473691699 }] }],
    ['account_owner.0.past_orders_sum', { account_owner: [{ first_name: 'a', past_orders_sum: 4057182473691699 }] }],
    ['total_discount', { total_discount: { coupon_code_used: 'x' } }],
    ['additional_information.0.mpi_info', { additional_information: [{ mpi: 'x' }] }],
    [
      'subscription.interval',
      { subscription: { contract_name: 'g', contract_amount: '1.00', interval: 'fortnight', interval_count: '1', billing_cycle: 3 } },
    ],
    [
      'subscription.contract_amount',
      { subscription: { contract_name: 'g', contract_amount: '1.001', interval: 'day', interval_count: '1', billing_cycle: 3 } },
    ],
    [
      'subscription.promotion_cycle',
      {
        subscription: {
          contract_name: 'g',
          contract_amount: '1.00',
          interval: 'day',
          interval_count: '1',
          billing_cycle: 3,
          promotion_cycle: 4,
        },
      },
    ],
    [
      'subscription.billing_cycle',
      { subscription: { contract_name: 'g', contract_amount: '1.00', interval: 'day', interval_count: '1', billing_cycle: 0 } },
    ],
    ['amount', { currency: 'JPY', amount: '1000.50', item_total: undefined, items: undefined }],
    ['shipping', { currency: 'JPY', amount: '1000.00', shipping: '0.50', item_total: undefined, items: undefined }],
    [
      'subscription.contract_amount',
      {
        currency: 'JPY',
        amount: '1000.00',
        item_total: undefined,
        items: undefined,
        subscription: { contract_name: 'g', contract_amount: '999.99', interval: 'day', interval_count: '1', billing_cycle: 3 },
      },
    ],
  ])('when %s is wrong (%j), then HTTP 400 names it and nothing is charged', async (field, overrides) => {
    const before = await paymentCount();
    const res = await post(authoriseBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
    expect(res.body.message).toContain(field);
    expect(res.body.code).toMatch(/^(INVALID_FIELD|MISSING_FIELD)$/);
    expect(res.body.request_id).toBeTruthy();
    expect(await paymentCount()).toBe(before);
  });

  it('when the body is not valid JSON, then HTTP 400 INVALID_BODY', async () => {
    const res = await post('{"merchant_id": "1000001",');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_BODY');
  });

  it('when the body is over its limit, then HTTP 413', async () => {
    const res = await post(authoriseBody({ note: 'x'.repeat(bodyLimitFor('/v1/authorise')) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('BODY_TOO_LARGE');
  });
});

describe('POST /v1/authorise, authentication', () => {
  it('when the signature is wrong, the merchant unknown or the account unknown, then one 401 message for all', async () => {
    const wrongSig = { ...authoriseBody(), encryption_data: 'a'.repeat(64) };
    const unknownMerchant = authoriseBody({ merchant_id: '9999999' });
    const unknownAccount = authoriseBody({ account_id: '9999999999' });
    const tampered = { ...authoriseBody(), amount: '99.00' };
    const answers = await Promise.all([wrongSig, unknownMerchant, unknownAccount, tampered].map((b) => post(b)));
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    }
    expect(new Set(answers.map((r) => r.body.message)).size).toBe(1);
  });

  it('when the signature is in upper case, then it is accepted', async () => {
    const body = authoriseBody();
    const res = await post({ ...body, encryption_data: body.encryption_data.toUpperCase() });
    expect(res.status).toBe(200);
  });

  it('when the signature is made over values with spaces, then the spaces are ignored as documented', async () => {
    const body = authoriseBody({ first_name: 'Ada Mary', last_name: 'King Lovelace' });
    expect(body.encryption_data).toBe(
      sign(
        FIELDS.authorise.map((f) => (body as Record<string, unknown>)[f]),
        'test-sign-key-0001',
      ),
    );
    expect((await post(body)).status).toBe(200);
  });

  it('when merchant_id or encryption_data is missing, then HTTP 400 names it', async () => {
    const { merchant_id: _m, ...noMerchant } = authoriseBody();
    expect((await post(noMerchant)).body).toMatchObject({ code: 'MISSING_FIELD', field: 'merchant_id' });
    const { encryption_data: _e, ...noSig } = authoriseBody();
    expect((await post(noSig)).body).toMatchObject({ code: 'MISSING_FIELD', field: 'encryption_data' });
  });
});

describe('whatever a client sends, the gateway never answers 500', () => {
  const junk: unknown[] = [
    null,
    0,
    -1,
    1e308,
    true,
    [],
    {},
    [[[]]],
    'x'.repeat(300),
    '\u0000',
    '😀',
    { $gt: '' },
    '../../etc/passwd',
    '<x/>',
  ];
  const fields = [
    'merchant_id',
    'account_id',
    'order_no',
    'currency',
    'amount',
    'card',
    'expiration_month',
    'expiration_year',
    'security_code',
    'items',
    'subscription',
    'cart_items',
    'token_id',
    'checkout_time',
    'birth_date',
    'notify_url',
    'additional_information',
  ];

  it('when every field in turn holds every kind of junk, then each answer is a 4xx with a code or a 200', async () => {
    const statuses = new Set<number>();
    for (const field of fields) {
      for (const value of junk) {
        const res = await post(authoriseBody({ [field]: value }));
        statuses.add(res.status);
        expect(res.status, `${field}=${JSON.stringify(value)}`).toBeLessThan(500);
        if (res.status !== 200) expect(res.body.code).toBeTruthy();
      }
    }
    expect(statuses.has(400)).toBe(true);
  });

  it('when the body is a form, garbage or empty, then the answer is a 4xx', async () => {
    for (const body of ['merchant_id=1&account_id=2', 'garbage', '', '[1]', '"text"']) {
      const res = await post(body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('the service around the calls', () => {
  it('when an unknown path is asked for, then a JSON 404', async () => {
    const res = await request(gw.app).post('/v1/nothing').send('{}');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('when any answer is sent, then helmet headers are on it', async () => {
    const res = await request(gw.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('when the store answers, then /readyz is 200', async () => {
    expect((await request(gw.app).get('/readyz')).status).toBe(200);
  });
});

describe('the account rate limit', () => {
  it('when an account sends more calls in a second than its rate_limit_per_second, then the extra calls get 429 with Retry-After', async () => {
    const merchants = testMerchants();
    (merchants.merchants[0]!.accounts[0] as unknown as Record<string, unknown>).rate_limit_per_second = 2;
    const clock = new ManualClock();
    const limited = makeGateway({ name: 'rate-limit', redisUrl: gw.redis.url, merchants, clock });
    try {
      const send = () => request(limited.app).post('/v1/authorise').set('Accept', 'application/json').send(JSON.stringify(authoriseBody()));
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      const third = await send();
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('RATE_LIMITED');
      expect(third.headers['retry-after']).toBe('1');
      clock.advance(1000);
      expect((await send()).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('Redis keys', () => {
  it('when the calls above have run, then every key carries its merchant as a hash tag (one Cluster slot per merchant)', async () => {
    const all = await gw.redis.client().keys('*');
    expect(all.length).toBeGreaterThan(10);
    // the sandbox acquirer's ledger too: its record of a payment sits in the payment's slot
    for (const key of all) expect(key).toMatch(/^(gw|acq):\{[^}]+\}:/);
    expect(all.some((k) => k.startsWith('gw:'))).toBe(true);
  });
});

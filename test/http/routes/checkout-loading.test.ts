import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ACCOUNT_ID, MERCHANT_ID, testMerchants } from '../../support/gateway.js';
import { attributeOf, checkoutBody, hiddenFields, unescapeHtml } from '../../support/checkout.js';
import { LANGUAGES, t } from '../../../src/i18n/index.js';
import { createApp } from '../../../src/app.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const BASE = 'http://gateway.test';

/** The test account with routing settings of its own, beside the defaults of the others. */
function merchants() {
  const file = testMerchants();
  const account = file.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>;
  account.routing = {
    connector_code: 'sandbox',
    gbc_id: 'GBC-77',
    descriptor: 'TESTSHOP*ONLINE',
    ordernumlength: '20',
    logo_name: 'test-shop.png',
  };
  return file;
}

const gw = gatewayOnRedis('checkout-loading', { merchants: merchants() });

/** Every request field of the direct payment (docs/api.md), minus card data, each with a value of its own. */
function fullRequest(): Record<string, unknown> {
  return checkoutBody({
    shipping: '1.00',
    handling: '0.50',
    tax_total: '0.75',
    insurance: '0.25',
    shipping_discount: '0.10',
    discount: '0.20',
    amount: '12.20',
    website: 'https://shop.example',
    note: 'gift wrap',
    custom: 'c-1',
    document: 'D-1',
    shopper_id: 'SH-1',
    shopper_phone: '+44 20 7946 0000',
    shopper_level: 'gold',
    token_flag: 'NO',
    token_id: '',
    notify_url: 'https://shop.example/notify',
    birth_date: '10-12-1990',
    billing_country: 'GB',
    billing_state: 'London',
    billing_city: 'London',
    billing_address: '1 High St',
    billing_postal_code: 'N1 1AA',
    os: 'Linux',
    browser: 'Chromium',
    browser_lang: 'en-GB',
    time_zone: '+00:00',
    resolution: '1920x1080',
    color_depth: '24',
    user_agent: 'Mozilla/5.0',
    cookie_new: 'a=1&b=2',
    cookie_old: 'c=3',
    challenge_window_size: '01',
    session_id: 'sess-1',
    device_fingerprint: 'fp-1',
    delivery_firstname: 'Grace',
    delivery_lastname: 'Hopper',
    delivery_country: 'US',
    delivery_state: 'NY',
    delivery_city: 'New York',
    delivery_address: '2 Broad St',
    delivery_postal_code: '10004',
    installments: '',
    installments_id: '',
    platform_source: 'web',
    device_type: 'PC',
    order_type: 'WEB',
    checkout_time: 1763719200,
    antifraud_token_cookie: '',
    price_id: 'P-1',
    quote_id: 'Q-1',
    quote_price: '1.00',
    storefront_domains: 'https://shop.example',
    default_lang: 'de',
    cart_items: [
      { basic_item_data: { name: 'T-shirt', quantity: '2', price: { amount_usd: 5, amount_local_currency: 5, currency: 'USD' } } },
    ],
  });
}

describe('when a merchant posts a signed checkout request', () => {
  it('then the loading page, titled as loading, submits itself by POST to {BASE_URL}/v1/checkout', async () => {
    const res = await request(gw.app).post('/v1/checkout').type('form').send(JSON.stringify(checkoutBody()));
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
    expect(res.text).toMatch(/<title>Loading[^<]*<\/title>/);
    expect(res.text).toContain(`<form id="checkout-form" method="post" action="${BASE}/v1/checkout">`);
    expect(res.text).toMatch(
      new RegExp(`<script src="${BASE}/public/loading.js" integrity="sha384-[A-Za-z0-9+/=]{64}" crossorigin="anonymous"></script>`),
    );
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('then the form holds every routing field, every request field and every alias with the expected values', async () => {
    const body = fullRequest();
    const res = await request(gw.app).post('/v1/checkout').type('form').send(JSON.stringify(body));
    expect(res.status).toBe(200);
    const pairs = hiddenFields(res.text);
    const names = pairs.map(([n]) => n);
    expect(new Set(names).size).toBe(names.length);
    const form = Object.fromEntries(pairs);
    const token = form.checkout_token!;
    expect(token).toMatch(/^cs_/);
    const result = `${BASE}/v1/checkout/${MERCHANT_ID}/${token}/result`;
    const cancel = `${BASE}/v1/checkout/${MERCHANT_ID}/${token}/cancel`;

    expect({
      gbc_id: form.gbc_id,
      connector_code: form.connector_code,
      account_name: form.account_name,
      website: form.website,
      pm_id: form.pm_id,
      apm_type: form.apm_type,
      descriptor: form.descriptor,
      orderprefix: form.orderprefix,
      rrtimezone: form.rrtimezone,
      ordernumlength: form.ordernumlength,
      sendbgoods: form.sendbgoods,
      replacename: form.replacename,
      send_bank_website: form.send_bank_website,
      replace_up_id: form.replace_up_id,
      replace_match_address: form.replace_match_address,
      to_pass_page: form.to_pass_page,
    }).toEqual({
      gbc_id: 'GBC-77',
      connector_code: 'sandbox',
      account_name: 'Test Shop',
      website: 'https://shop.example',
      pm_id: 'card',
      apm_type: 'CARD',
      descriptor: 'TESTSHOP*ONLINE',
      orderprefix: '',
      rrtimezone: 'UTC',
      ordernumlength: '20',
      sendbgoods: '1',
      replacename: '0',
      send_bank_website: '0',
      replace_up_id: '0',
      replace_match_address: '0',
      to_pass_page: '0',
    });

    // the merchant's signature never reaches the page: the form carries the session's own value instead
    expect(form.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(form.encryption_data).not.toBe(body.encryption_data);
    for (const [field, value] of Object.entries(body)) {
      if (field === 'return_url' || field === 'cancel_url' || field === 'encryption_data') continue;
      expect(form[field], field).toBe(typeof value === 'string' ? value : JSON.stringify(value));
    }

    const b = body as Record<string, string>;
    const expected: Record<string, string> = {
      signInfo: form.encryption_data!,
      merNo: MERCHANT_ID,
      gatewayNo: ACCOUNT_ID,
      orderNo: b.order_no!,
      orderCurrency: 'USD',
      orderAmount: '12.20',
      itemTotal: '10.00',
      taxTotal: '0.75',
      shipFee: '1.00',
      shippingDiscount: '0.10',
      goodsInfo: b.items!,
      shopperId: 'SH-1',
      shopperLevel: 'gold',
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'shopper@example.com',
      phone: '+44 20 7946 0000',
      address: '1 High St',
      city: 'London',
      state: 'London',
      zip: 'N1 1AA',
      country: 'GB',
      shipFirstName: 'Grace',
      shipLastName: 'Hopper',
      shipCountry: 'US',
      shipState: 'NY',
      shipCity: 'New York',
      shipAddress: '2 Broad St',
      shipZip: '10004',
      notifyUrl: 'https://shop.example/notify',
      returnUrl: result,
      cancelUrl: cancel,
      return_url: result,
      cancel_url: cancel,
      source_notify_url: 'https://shop.example/notify',
      default_lang: 'de',
      defaultLang: 'de',
      paymentToken: '',
      token: '',
      cardType: '',
      card_type: '',
      payment_method: 'card',
      APMType: 'CARD',
      verifyBillingAddress: '1',
      verify_billing_address: '1',
      merSendLogoNo: '',
      logo_name: 'test-shop.png',
      remark: 'gift wrap',
      isOpen3D: '1',
    };
    for (const [alias, value] of Object.entries(expected)) expect(form[alias], alias).toBe(value);
    expect(form.source_request_ip).toMatch(/127\.0\.0\.1$/);

    const all = new URLSearchParams(form.allParams);
    for (const [field, value] of Object.entries(body))
      if (field !== 'encryption_data')
        expect(all.get(field), `allParams ${field}`).toBe(typeof value === 'string' ? value : JSON.stringify(value));
    expect(all.get('encryption_data')).toBe(form.encryption_data);
    expect(all.get('return_url')).toBe('https://shop.example/return');
  });

  it('then a value such as "><script>alert(1)</script> stays inert text on the loading page and the card page', async () => {
    const evil = '"><script>alert(1)</script>';
    const body = checkoutBody({ first_name: evil, note: evil, items: `${evil}#,#SKU#,#10.00#,#1`, device_fingerprint: `'${evil}` });
    const res = await request(gw.app).post('/v1/checkout').type('form').send(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script>alert(1)');
    const form = Object.fromEntries(hiddenFields(res.text));
    expect(form.first_name).toBe(evil);
    expect(form.remark).toBe(evil);
    expect(form.device_fingerprint).toBe(`'${evil}`);

    const json = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ first_name: evil, items: `${evil}#,#SKU#,#10.00#,#1` })));
    const page = await request(gw.app).get(new URL(json.body.checkout_url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(attributeOf(page.text, 'cardholder', 'value')).toBe(`${evil} Lovelace`);
    expect(page.text).toContain('&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('then in every language, with values in any script, the page is Latin-1 text and its fields read back as sent', async () => {
    const values = { first_name: 'Zoë 李', last_name: 'Łukasiewicz 😀', billing_city: '東京…', note: 'a\u0085b <ÿ>' };
    for (const lang of LANGUAGES) {
      const res = await request(gw.app)
        .post('/v1/checkout')
        .type('form')
        .send(JSON.stringify(checkoutBody({ ...values, default_lang: lang })));
      expect(res.status, lang).toBe(200);
      // characters beyond Latin-1, in the texts and in the values, are character references (htmlText)
      expect(res.text, lang).not.toMatch(/[\u0100-\uffff]/);
      const heading = unescapeHtml(/<h1>([^<]*)<\/h1>/.exec(res.text)![1]!);
      expect(heading, lang).toBe(t(lang, 'loading.heading'));
      const form = Object.fromEntries(hiddenFields(res.text));
      for (const [field, value] of Object.entries(values)) expect(form[field], `${lang} ${field}`).toBe(value);
      expect(form.firstName).toBe(values.first_name);
    }
  });

  it('then a body field accept is not stored: the form and its allParams leave it out, the other fields stay', async () => {
    const res = await request(gw.app)
      .post('/v1/checkout')
      .type('form')
      .send(JSON.stringify(checkoutBody({ accept: 'text/html', note: 'kept' })));
    expect(res.status).toBe(200);
    const form = Object.fromEntries(hiddenFields(res.text));
    expect(form).not.toHaveProperty('accept');
    expect(form.note).toBe('kept');
    expect([...new URLSearchParams(form.allParams).keys()]).not.toContain('accept');
    expect(new URLSearchParams(form.allParams).get('note')).toBe('kept');
  });

  it('then a caller that asks for JSON gets checkout_url and expires_at (30 minutes by default)', async () => {
    const before = Date.now();
    const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(checkoutBody()));
    expect(res.status).toBe(200);
    expect(res.body.checkout_url).toMatch(new RegExp(`^${BASE}/v1/checkout/${MERCHANT_ID}/cs_\\w+$`));
    const expires = Date.parse(res.body.expires_at);
    expect(res.body.expires_at).toBe(new Date(expires).toISOString());
    expect(expires - before).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(30 * 60_000 + 5000);
    const keys = await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:checkout:*`);
    const ttl = await gw.redis.client().pttl(keys[0]!);
    // kept an hour past its expiry, for the page that says it expired
    expect(ttl).toBeGreaterThan(30 * 60_000);
    expect(ttl).toBeLessThanOrEqual(90 * 60_000);
  });

  it('then a wrong signature is refused with 401 and no session is stored', async () => {
    const sessions = async () => (await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:checkout:*`)).length;
    const before = await sessions();
    const body = { ...checkoutBody(), amount: '99.00' };
    const res = await request(gw.app).post('/v1/checkout').send(JSON.stringify(body));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    expect(res.text).not.toContain('checkout-form');
    expect(await sessions()).toBe(before);
  });

  it('then card data in the request is refused with 400 naming the field', async () => {
    const res = await request(gw.app)
      .post('/v1/checkout')
      .send(JSON.stringify(checkoutBody({ card: '4242424242424242' })));
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('card');
  });

  it('then an amount with a fraction in a zero-decimal currency is refused with 400 and no session is stored', async () => {
    const before = (await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:checkout:*`)).length;
    const res = await request(gw.app)
      .post('/v1/checkout')
      .send(JSON.stringify(checkoutBody({ currency: 'JPY', amount: '1000.50', item_total: undefined, items: undefined })));
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('amount');
    expect(res.body.message).toContain('JPY');
    expect((await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:checkout:*`)).length).toBe(before);
    const whole = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ currency: 'JPY', amount: '1000.00', item_total: undefined, items: undefined })));
    expect(whole.status).toBe(200);
  });

  it('then a malformed field is refused with 400 naming it, as /v1/authorise does', async () => {
    const res = await request(gw.app)
      .post('/v1/checkout')
      .send(JSON.stringify(checkoutBody({ return_url: 'javascript:alert(1)' })));
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('return_url');
  });
});

describe('when the example merchant shop is asked for', () => {
  it('then it is served only in development', async () => {
    expect((await request(gw.app).get('/examples/shop')).status).toBe(404);
    const dev = createApp(gw.deps, { development: true });
    const page = await request(dev).get('/examples/shop');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Pay 25.00 (redirect)');
  });
});

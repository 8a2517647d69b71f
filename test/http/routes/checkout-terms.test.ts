import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { authoriseBody, MERCHANT_ID, testMerchants } from '../../support/gateway.js';
import { checkoutBody, hiddenFields } from '../../support/checkout.js';
import { CARDS } from '../../support/cards.js';
import { redisWorld } from '../../support/redis-world.js';

const world = redisWorld('checkout-terms');
const clock = new ManualClock();

/** The test merchants, with settings of the first account changed. */
function merchants(settings: Record<string, unknown>) {
  const file = testMerchants();
  Object.assign(file.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>, settings);
  return file;
}

const sessionKeys = () => world.redis.client().keys(`gw:{${MERCHANT_ID}}:checkout:*`);

describe('when a shopper copies the loading form signature into a new checkout (finding 1)', () => {
  it('then the form carries no merchant signature, a re-signed order with other terms is 401, and nothing is stored', async () => {
    const gw = world.gateway('checkout-terms-resign', clock);
    const body = checkoutBody({ open3d: 'do3DS', notify_url: 'https://shop.example/notify' });
    const loading = await request(gw.app).post('/v1/checkout').type('form').send(JSON.stringify(body));
    expect(loading.status).toBe(200);
    const form = Object.fromEntries(hiddenFields(loading.text));
    expect(loading.text).not.toContain(body.encryption_data);
    expect(form.signInfo).toBe(form.encryption_data);

    const forged = {
      ...body,
      open3d: 'no3DS',
      subscription: { contract_name: 'x', contract_amount: '0.01', interval: 'year', interval_count: '1', billing_cycle: 1 },
      notify_url: 'https://evil.example/notify',
      return_url: 'https://evil.example/',
      encryption_data: form.signInfo,
    };
    const before = await sessionKeys();
    const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').type('form').send(JSON.stringify(forged));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    expect(await sessionKeys()).toEqual(before);
  });

  it('then the same signed order with other unsigned terms is 409 while the session is open, and nothing is stored', async () => {
    const gw = world.gateway('checkout-terms-conflict', clock);
    const body = checkoutBody({ open3d: 'do3DS' });
    const first = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').type('form').send(JSON.stringify(body));
    expect(first.status).toBe(200);
    const before = await sessionKeys();
    for (const terms of [{ open3d: 'no3DS' }, { notify_url: 'https://shop.example/other' }, { note: 'other' }]) {
      const res = await request(gw.app)
        .post('/v1/checkout')
        .set('Accept', 'application/json')
        .type('form')
        .send(JSON.stringify({ ...body, ...terms }));
      expect(res.status, JSON.stringify(terms)).toBe(409);
      expect(res.body).toMatchObject({ code: 'ORDER_CONFLICT', field: 'order_no' });
    }
    expect(await sessionKeys()).toEqual(before);
    const same = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').type('form').send(JSON.stringify(body));
    expect(same.body.checkout_url).toBe(first.body.checkout_url);

    // once the session has expired, the merchant may open the order again, with other terms
    clock.advance(31 * 60_000);
    const later = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .type('form')
      .send(JSON.stringify({ ...body, note: 'second try' }));
    expect(later.status).toBe(200);
    expect(later.body.checkout_url).not.toBe(first.body.checkout_url);
  });
});

describe('when checkouts are large or many (finding 5)', () => {
  it('then a session stores the order once: its record is about the size of the body sent', async () => {
    const gw = world.gateway('checkout-terms-size', clock);
    const cart = Array.from({ length: 150 }, (_, i) => ({
      basic_item_data: {
        name: `Item ${i} ${'n'.repeat(180)}`,
        quantity: '1',
        price: { amount_usd: 1, amount_local_currency: 1, currency: 'USD' },
      },
    }));
    const body = checkoutBody({ cart_items: cart, custom: 'c'.repeat(1024), cookie_new: 'k'.repeat(2048), user_agent: 'u'.repeat(512) });
    const text = JSON.stringify(body);
    expect(text.length).toBeGreaterThan(30_000);
    const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').type('form').send(text);
    expect(res.status).toBe(200);
    const [key] = await sessionKeys();
    const stored = await world.redis.client().hget(key!, 'd');
    expect(stored!.length).toBeLessThan(text.length * 1.3);
  });

  it('then undocumented fields are bounded: at most 32, each short text', async () => {
    const gw = world.gateway('checkout-terms-extras', clock);
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`extra_${i}`, 'x']));
    const tooMany = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody(many)));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('extra_32');
    const long = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ extra: 'x'.repeat(1025) })));
    expect(long.body).toMatchObject({ code: 'INVALID_FIELD', field: 'extra' });
    const nested = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ extra: { a: 'b' } })));
    expect(nested.body).toMatchObject({ code: 'INVALID_FIELD', field: 'extra' });
    expect(await sessionKeys()).toEqual([]);
  });

  it('then an account opens at most checkout_rate_per_minute sessions a minute (429 with Retry-After)', async () => {
    const gw = world.gateway('checkout-terms-rate', clock, { merchants: merchants({ checkout_rate_per_minute: 3 }) });
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(checkoutBody()));
      statuses.push(res.status);
      retryAfter ??= res.headers['retry-after'];
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(await sessionKeys()).toHaveLength(3);
  });
});

describe('when return addresses point off the account (finding 6)', () => {
  it('then a return_url or cancel_url on another origin is 400 naming it; return_domains widen the list', async () => {
    const gw = world.gateway('checkout-terms-return', clock, { merchants: merchants({ return_domains: ['https://pay-return.example'] }) });
    for (const field of ['return_url', 'cancel_url']) {
      for (const url of ['https://evil.example/', 'https://shop.example.evil.example/', 'http://shop.example/return']) {
        const res = await request(gw.app)
          .post('/v1/checkout')
          .set('Accept', 'application/json')
          .send(JSON.stringify(checkoutBody({ [field]: url })));
        expect(res.status, `${field} ${url}`).toBe(400);
        expect(res.body.field).toBe(field);
      }
    }
    expect(await sessionKeys()).toEqual([]);
    const ok = await request(gw.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({ return_url: 'https://pay-return.example/back', cancel_url: 'https://shop.example/cancel' })));
    expect(ok.status).toBe(200);
  });

  it('then return and notify addresses appended to an issuer_url are ignored unless allowed (findings 6 and 7)', async () => {
    const gw = world.gateway('checkout-terms-issuer', clock, { env: { NOTIFY_ALLOW_PRIVATE: '0' } });
    const xml = new XMLParser({ parseTagValue: false });
    const direct = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS', notify_url: undefined })));
    const issuer = new URL(xml.parse(direct.text).respon.issuer_url as string);
    const page = async (returnUrl: string, notifyUrl: string) => {
      const q = new URLSearchParams({ return_url: returnUrl, notify_url: notifyUrl });
      const res = await request(gw.app).get(`${issuer.pathname}?${q}`);
      expect(res.status).toBe(200);
      return Object.fromEntries([...res.text.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
    };
    const refused = await page('https://evil.example/', 'http://[::ffff:0:127.0.0.1]/');
    expect(refused.return_url).toBeUndefined();
    expect(refused.notify_url).toBeUndefined();
    for (const inner of ['http://[::127.0.0.1]/', 'http://[2002:7f00:1::1]/', 'http://169.254.169.254/'])
      expect((await page('https://shop.example/back', inner)).notify_url, inner).toBeUndefined();
    const allowed = await page('https://shop.example/back', 'https://93.184.215.14/notify');
    expect(allowed.return_url).toBe('https://shop.example/back');
    expect(allowed.notify_url).toBe('https://93.184.215.14/notify');
  });
});

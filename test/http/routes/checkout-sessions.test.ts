import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, AUTO_SIGN_KEY, authoriseBody, MERCHANT_ID, SIGN_KEY } from '../../support/gateway.js';
import { attributeOf, checkoutBody, hiddenFields } from '../../support/checkout.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../../support/cards.js';
import { FIELDS, sign } from '../../support/sign.js';
import { jobOf } from '../../support/jobs.js';
import { keys } from '../../../src/store/gateway-store.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

const clock = new ManualClock();

const gw = gatewayOnRedis('checkout-sessions', { clock });

const path = (url: unknown): string => {
  const u = new URL(String(url));
  return u.pathname + u.search;
};

async function openSession(overrides: Record<string, unknown> = {}, key = SIGN_KEY) {
  const body = checkoutBody(overrides, key);
  const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));
  expect(res.status).toBe(200);
  const card = path(res.body.checkout_url as string);
  return { body, card, pay: `${card}/pay`, cancel: `${card}/cancel`, result: `${card}/result` };
}

const cardForm = (card: string = CARDS.approved, extra: Record<string, string> = {}) => ({
  cardholder: 'Ada Lovelace',
  card,
  expiration_month: '12',
  expiration_year: '2034',
  security_code: TEST_SECURITY_CODE,
  ...extra,
});

async function paymentKeys(): Promise<string[]> {
  return gw.redis.client().keys(`gw:{${MERCHANT_ID}}:pay:*`);
}

/** The signed result in the result page's redirect, checked with the test's own signature rule. */
function signedRedirect(html: string, key = SIGN_KEY, account = ACCOUNT_ID): URL {
  const url = new URL(attributeOf(html, 'result', 'data-redirect')!);
  const q: Record<string, string> = { merchant_id: MERCHANT_ID, account_id: account, ...Object.fromEntries(url.searchParams) };
  const expected = sign(
    FIELDS.answerPayment.map((f) => q[f]),
    key,
  );
  expect(q.encryption_data).toBe(expected);
  return url;
}

describe('when the loading page form is posted', () => {
  it('then matching values open the card page, and values that disagree with the session get a clear page', async () => {
    const body = checkoutBody();
    const loading = await request(gw.app).post('/v1/checkout').send(JSON.stringify(body));
    const form = Object.fromEntries(hiddenFields(loading.text));
    const ok = await request(gw.app).post('/v1/checkout').type('form').send(new URLSearchParams(form).toString());
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toMatch(new RegExp(`/v1/checkout/${MERCHANT_ID}/${form.checkout_token}$`));
    const page = await request(gw.app).get(path(ok.headers.location));
    expect(page.status).toBe(200);
    expect(page.text).toContain('$10.00');

    const tampered = await request(gw.app)
      .post('/v1/checkout')
      .type('form')
      .send(new URLSearchParams({ ...form, amount: '0.01', orderAmount: '0.01' }).toString());
    expect(tampered.status).toBe(400);
    expect(tampered.text).toContain('Order details do not match');
    const unknown = await request(gw.app)
      .post('/v1/checkout')
      .type('form')
      .send(new URLSearchParams({ ...form, checkout_token: 'cs_NOSUCHSESSION0000000000' }).toString());
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('Checkout not found');

    // a field the page never rendered is not compared, whatever its name (none inherits a value); a
    // reserved member name is refused as in every body (docs/api.md#bodies)
    for (const extra of ['toString', 'hasOwnProperty', 'valueOf']) {
      const added = await request(gw.app)
        .post('/v1/checkout')
        .type('form')
        .send(new URLSearchParams({ ...form, [extra]: 'x' }).toString());
      expect(added.status, extra).toBe(303);
    }
    const reserved = await request(gw.app)
      .post('/v1/checkout')
      .type('form')
      .send(new URLSearchParams({ ...form, constructor: 'x' }).toString());
    expect(reserved.status).toBe(400);
  });
});

describe('when the shopper pays on the card page', () => {
  it('then an approved card leads to the result page, whose redirect carries a signed result to the merchant return_url', async () => {
    const s = await openSession();
    const paid = await request(gw.app).post(s.pay).type('form').send(cardForm());
    expect(paid.status).toBe(303);
    expect(path(paid.headers.location)).toBe(s.result);
    const result = await request(gw.app).get(s.result);
    expect(result.status).toBe(200);
    expect(result.text).toContain('Payment successful');
    const url = signedRedirect(result.text);
    expect(url.origin + url.pathname).toBe('https://shop.example/return');
    expect(url.searchParams.get('order_status')).toBe('1');
    expect(url.searchParams.get('result_info')).toBe('0000:Success');
    expect(url.searchParams.get('amount')).toBe('10.00');
    expect(url.searchParams.get('order_no')).toBe(s.body.order_no);
    expect(url.searchParams.get('transaction_id')).toMatch(/\w+/);
  });

  it('then an invalid card number is shown next to its field with the form kept (never the security code)', async () => {
    const s = await openSession();
    const res = await request(gw.app).post(s.pay).type('form').send(cardForm('4242424242424241'));
    expect(res.status).toBe(422);
    expect(res.text).toMatch(/<p class="field-error" id="card-error">This card number is not valid<\/p>/);
    expect(attributeOf(res.text, 'card', 'aria-invalid')).toBe('true');
    expect(attributeOf(res.text, 'cardholder', 'value')).toBe('Ada Lovelace');
    expect(attributeOf(res.text, 'expiration_year', 'value')).toBe('2034');
    expect(res.text).not.toContain(TEST_SECURITY_CODE + '"');
    expect(attributeOf(res.text, 'card', 'value')).toBe('4242424242424241');
    const expired = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(cardForm(CARDS.approved, { expiration_year: '2025', expiration_month: '01' }));
    expect(expired.status).toBe(422);
    expect(expired.text).toContain('This card has expired');
    // a valid card number never comes back in a page, whatever else was wrong
    expect(expired.text).not.toContain(CARDS.approved);
    expect(attributeOf(expired.text, 'card', 'value')).toBe('');
    const noName = await request(gw.app)
      .post(s.pay)
      .type('form')
      .send(cardForm(CARDS.approved, { cardholder: '', security_code: '1' }));
    expect(noName.status).toBe(422);
    expect(noName.text).toContain('Enter the name on the card');
    expect(noName.text).not.toContain(CARDS.approved);
    expect(
      await request(gw.app)
        .get(s.card)
        .then((r) => r.status),
    ).toBe(200);
  });

  it('then a second submit, even with another card, answers the first payment and charges nothing more', async () => {
    const s = await openSession();
    const before = (await paymentKeys()).length;
    const submits = await Promise.all(Array.from({ length: 8 }, () => request(gw.app).post(s.pay).type('form').send(cardForm())));
    for (const r of submits) expect(r.status).toBe(303);
    const again = await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.approvedMastercard));
    expect(path(again.headers.location)).toBe(s.result);
    expect((await paymentKeys()).length).toBe(before + 1);
    const payment = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string);
    expect(payment?.card?.last4).toBe('4242');
    expect(payment?.source).toBe('checkout');
  });

  it('then a declined card shows the decline and sends order_status 0', async () => {
    const s = await openSession();
    await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.declined));
    const result = await request(gw.app).get(s.result);
    expect(result.text).toContain('Payment declined');
    expect(signedRedirect(result.text).searchParams.get('order_status')).toBe('0');
  });
});

describe('when a session has expired or was cancelled', () => {
  it('then replaying the loading form after the payment shows its result and charges nothing', async () => {
    const loading = await request(gw.app).post('/v1/checkout').send(JSON.stringify(checkoutBody()));
    const form = Object.fromEntries(hiddenFields(loading.text));
    const first = await request(gw.app).post('/v1/checkout').type('form').send(new URLSearchParams(form).toString());
    await request(gw.app)
      .post(`${path(first.headers.location)}/pay`)
      .type('form')
      .send(cardForm());
    const before = (await paymentKeys()).length;
    const replay = await request(gw.app).post('/v1/checkout').type('form').send(new URLSearchParams(form).toString());
    const card = await request(gw.app).get(path(replay.headers.location));
    expect(card.status).toBe(303);
    expect(card.headers.location).toMatch(/\/result$/);
    const again = await request(gw.app)
      .post(`${path(replay.headers.location)}/pay`)
      .type('form')
      .send(cardForm(CARDS.approvedMastercard));
    expect(again.headers.location).toMatch(/\/result$/);
    expect((await paymentKeys()).length).toBe(before);
  });

  it('then the card page and a card submit after 30 minutes charge nothing and say the checkout expired', async () => {
    const s = await openSession();
    clock.advance(30 * 60_000 + 1);
    try {
      const page = await request(gw.app).get(s.card);
      expect(page.status).toBe(410);
      expect(page.text).toContain('Checkout expired');
      const before = (await paymentKeys()).length;
      const pay = await request(gw.app).post(s.pay).type('form').send(cardForm());
      expect(pay.status).toBe(410);
      // a card with a typing error gets the expired page too, not the card form again
      const mistyped = await request(gw.app).post(s.pay).type('form').send(cardForm('4242424242424241'));
      expect(mistyped.status).toBe(410);
      expect(mistyped.text).toContain('Checkout expired');
      expect((await paymentKeys()).length).toBe(before);
      expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string)).toBeUndefined();
    } finally {
      clock.advance(-(30 * 60_000 + 1));
    }
  });

  it('then the session is still stored an hour after it expires, so a shopper coming back is told it expired, not that it never was', async () => {
    const s = await openSession();
    const sessionId = s.card.split('/').pop()!;
    const stored = (await gw.deps.store.getCheckoutSession(MERCHANT_ID, sessionId))!;
    const lifeMs = stored.expires_at - stored.created_at;
    expect(lifeMs).toBe(30 * 60_000);
    const client = gw.redis.client();
    try {
      const ttl = await client.pttl(keys.checkout(MERCHANT_ID, sessionId));
      // Redis drops the key in real time: it must outlive the session's 30 minutes by the hour it is kept
      expect(ttl).toBeGreaterThan(lifeMs + 3_600_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(lifeMs + 3_600_000);
    } finally {
      client.disconnect();
    }
  });

  it('then a stored order that no longer passes the checks gets a page, not a JSON error, and charges nothing', async () => {
    const s = await openSession();
    const sessionId = s.card.split('/').pop()!;
    const stored = (await gw.deps.store.getCheckoutSession(MERCHANT_ID, sessionId))!;
    // as if a rule had become stricter after the session was opened
    const outdated = { ...stored, request: { ...stored.request, amount: '10.001' } };
    expect(
      await gw.deps.store.commit({
        merchantId: MERCHANT_ID,
        checkoutSessions: [{ next: outdated, expected: stored.version, ttlMs: 60_000 }],
      }),
    ).toBe(true);
    const pay = await request(gw.app).post(s.pay).type('form').send(cardForm());
    expect(pay.status).toBe(422);
    expect(pay.headers['content-type']).toMatch(/text\/html/);
    expect(pay.text).toContain('Checkout can no longer be paid');
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string)).toBeUndefined();
  });

  it('then a GET of the cancel address (a link, a prefetcher) only asks to confirm, and cancels nothing', async () => {
    const s = await openSession();
    const asked = await request(gw.app).get(s.cancel);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Cancel this payment?');
    expect(asked.text).toMatch(/<form method="post" action="[^"]*\/cancel">/);
    const stillOpen = await request(gw.app).get(s.result);
    expect(stillOpen.text).not.toContain('Payment cancelled');
    const pay = await request(gw.app).post(s.pay).type('form').send(cardForm());
    expect(path(pay.headers.location)).toBe(s.result);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string)).toMatchObject({ status: '3000' });
  });

  it('then cancel sends the signed cancel result to cancel_url, and a later card submit charges nothing', async () => {
    const s = await openSession();
    const cancelled = await request(gw.app).post(s.cancel).type('form').send('');
    expect(path(cancelled.headers.location)).toBe(s.result);
    const result = await request(gw.app).get(s.result);
    expect(result.text).toContain('Payment cancelled');
    const url = signedRedirect(result.text);
    expect(url.origin + url.pathname).toBe('https://shop.example/cancel');
    expect(url.searchParams.get('result_info')).toBe('3009:Cancelled by the shopper');
    const pay = await request(gw.app).post(s.pay).type('form').send(cardForm());
    expect(path(pay.headers.location)).toBe(s.result);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string)).toBeUndefined();
  });
});

describe('when a card needs a 3-D Secure challenge', () => {
  it('then the card page goes to the challenge page, 123456 passes and threeds_result is recorded', async () => {
    const s = await openSession();
    const pay = await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.challenge));
    expect(pay.headers.location).toMatch(/\/v1\/3ds\//);
    const page = await request(gw.app).get(path(pay.headers.location));
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/autocomplete="one-time-code"/);
    expect(page.headers['content-security-policy']).toContain('frame-ancestors https://shop.example');
    const answered = await request(gw.app).post(path(pay.headers.location)).type('form').send({ code: CHALLENGE_CODE });
    expect(path(answered.headers.location)).toBe(s.result);
    const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string);
    expect(p?.status).toBe('3000');
    expect(p?.threeds.result).toBe('authenticated (challenge passed)');
  });

  it('then with no3DS the challenge card is authorised without a challenge', async () => {
    const s = await openSession({ open3d: 'no3DS' });
    const pay = await request(gw.app).post(s.pay).type('form').send(cardForm(CARDS.challenge));
    expect(path(pay.headers.location)).toBe(s.result);
    const result = await request(gw.app).get(s.result);
    expect(result.text).toContain('Payment successful');
  });

  it('then a direct payment issuer_url takes appended return_url and notify_url only where the signed request had none', async () => {
    const xml = new XMLParser({ parseTagValue: false });
    const direct = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS', notify_url: 'https://shop.example/signed-notify' })));
    const answer = xml.parse(direct.text).respon;
    expect(answer.order_status).toBe('2');
    const issuer = new URL(answer.issuer_url);
    issuer.searchParams.set('return_url', 'https://shop.example/after-3ds');
    issuer.searchParams.set('notify_url', 'https://evil.example/notify');
    const page = await request(gw.app).get(path(issuer.toString()));
    expect(page.status).toBe(200);
    expect(attributeOf(page.text, 'code', 'autocomplete')).toBe('one-time-code');
    expect(page.text).toContain('name="return_url" value="https://shop.example/after-3ds"');
    expect(page.text).not.toContain('evil.example');
    const done = await request(gw.app)
      .post(issuer.pathname)
      .type('form')
      .send({ code: '000000', return_url: 'https://shop.example/after-3ds', notify_url: 'https://evil.example/notify' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('3-D Secure authentication failed');
    const url = signedRedirect(done.text);
    expect(url.origin + url.pathname).toBe('https://shop.example/after-3ds');
    const p = await gw.deps.store.getPayment(MERCHANT_ID, answer.transaction_id);
    expect(p?.status).toBe('4300');
    expect(p?.notify_url).toBe('https://shop.example/signed-notify');
    expect(p?.threeds.result).toBe('authentication failed (challenge)');
    const wrongSecret = await request(gw.app).get(issuer.pathname.replace(/[^/]+$/, 'x'.repeat(24)));
    expect(wrongSecret.status).toBe(404);
    // as many characters as the secret, more bytes: the same refusal, never a 500
    const wideSecret = issuer.pathname.replace(/[^/]+$/, '%C3%A9'.repeat(24));
    expect((await request(gw.app).get(wideSecret)).status).toBe(404);
    expect((await request(gw.app).post(wideSecret).type('form').send({ code: CHALLENGE_CODE })).status).toBe(404);
  });
});

describe('when the hosted pages are framed', () => {
  it('then frame-ancestors lists only the account storefront_domains, with no contradicting X-Frame-Options', async () => {
    const s = await openSession();
    const page = await request(gw.app).get(s.card);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toMatch(/frame-ancestors https:\/\/shop\.example(;|$)/);
    expect(csp).toMatch(/script-src 'self' http:\/\/gateway\.test(;|$)/);
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);

    const other = await openSession(
      { account_id: AUTO_ACCOUNT_ID, return_url: 'https://auto.example/return', cancel_url: 'https://auto.example/cancel' },
      AUTO_SIGN_KEY,
    );
    const denied = await request(gw.app).get(other.card);
    expect(denied.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(denied.headers['x-frame-options']).toBe('DENY');
  });
});

describe('when a hosted page address carries a percent-escape that does not decode', () => {
  it('then the card, pay, result and challenge addresses answer 404, never a 500', async () => {
    const s = await openSession();
    const broken = s.card.replace(/cs_/, 'cs_%E0');
    expect((await request(gw.app).get(broken)).status).toBe(404);
    expect((await request(gw.app).get(`/v1/checkout/%E0/${s.card.split('/').pop()}`)).status).toBe(404);
    expect((await request(gw.app).post(`${broken}/pay`).type('form').send(cardForm())).status).toBe(404);
    expect((await request(gw.app).get(`${broken}/result`)).status).toBe(404);
    expect((await request(gw.app).get('/v1/3ds/1000001/%E0/secret')).status).toBe(404);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, s.body.order_no as string)).toBeUndefined();
  });
});

describe('when the merchant posts the same signed order twice and the shopper pays', () => {
  it('then both answers name one session, which shows that payment afterwards and charges nothing more', async () => {
    const first = await openSession();
    const res = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(first.body));
    expect(res.status).toBe(200);
    expect(path(res.body.checkout_url as string)).toBe(first.card);
    const paid = await request(gw.app).post(first.pay).type('form').send(cardForm());
    expect(path(paid.headers.location)).toBe(first.result);
    const before = (await paymentKeys()).length;

    const again = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(first.body));
    expect(path(again.body.checkout_url as string)).toBe(first.card);
    const page = await request(gw.app).get(first.card);
    expect(page.status).toBe(303);
    expect(path(page.headers.location)).toBe(first.result);
    const result = await request(gw.app).get(first.result);
    expect(result.text).toContain('Payment successful');
    expect(signedRedirect(result.text).searchParams.get('order_status')).toBe('1');
    const repay = await request(gw.app).post(first.pay).type('form').send(cardForm(CARDS.approvedMastercard));
    expect(path(repay.headers.location)).toBe(first.result);
    expect((await paymentKeys()).length).toBe(before);
  });
});

describe('when the order_no of an open session is paid by another request (a direct payment)', () => {
  it('then the session shows a clear page (409) instead of the card form or a JSON error, and charges nothing', async () => {
    const session = await openSession();
    const direct = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody({ order_no: session.body.order_no, amount: '20.00', item_total: undefined, items: undefined })));
    expect(direct.status).toBe(200);
    const before = (await paymentKeys()).length;

    const page = await request(gw.app).get(session.card);
    expect(page.status).toBe(409);
    expect(page.type).toBe('text/html');
    expect(page.text).toContain('Order already paid');
    expect(page.text).not.toContain('card-form');
    const pay = await request(gw.app).post(session.pay).type('form').send(cardForm(CARDS.approvedMastercard));
    expect(pay.status).toBe(409);
    expect(pay.type).toBe('text/html');
    expect(pay.text).toContain('Nothing was charged');
    expect((await request(gw.app).get(session.result)).status).toBe(409);
    expect((await paymentKeys()).length).toBe(before);
    const paid = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, session.body.order_no as string);
    expect(paid?.amount).toBe(2000);
    expect(paid?.card?.last4).toBe('4242');
  });
});

describe('when the shopper never answers a 3-D Secure challenge', () => {
  it('then after 30 minutes the payment fails (4300) with its notification, and a late answer changes nothing', async () => {
    const xml = new XMLParser({ parseTagValue: false });
    const direct = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS', notify_url: 'https://shop.example/notify' })));
    const answer = xml.parse(direct.text).respon;
    expect(answer.order_status).toBe('2');
    const job = jobOf(gw, 'threeds-challenge-expiry');
    await job.runOnce();
    expect((await gw.deps.store.getPayment(MERCHANT_ID, answer.transaction_id))?.status).toBe('1000');

    clock.advance(30 * 60_000 + 1);
    try {
      expect(await job.runOnce()).toBeGreaterThanOrEqual(1);
      const p = await gw.deps.store.getPayment(MERCHANT_ID, answer.transaction_id);
      expect(p?.status).toBe('4300');
      expect(p?.threeds.challenge_pending).toBe(false);
      expect(p?.threeds.result).toBe('authentication not completed (challenge expired)');
      const outbox = await gw.redis.client().keys(`gw:{${MERCHANT_ID}}:order-outbox:${ACCOUNT_ID}:${answer.order_no}`);
      expect(outbox).toHaveLength(1);
      expect(await gw.redis.client().zcard(outbox[0]!)).toBe(1);

      const late = await request(gw.app).post(path(answer.issuer_url)).type('form').send({ code: CHALLENGE_CODE });
      expect(late.status).toBe(200);
      expect(late.text).toContain('3-D Secure authentication failed');
      expect((await gw.deps.store.getPayment(MERCHANT_ID, answer.transaction_id))?.status).toBe('4300');
      expect(await job.runOnce()).toBe(0);
    } finally {
      clock.advance(-(30 * 60_000 + 1));
    }
  });
});

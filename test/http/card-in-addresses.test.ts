import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { ACCOUNT_ID, authoriseBody, makeGateway, MERCHANT_ID } from '../support/gateway.js';
import { checkoutBody } from '../support/checkout.js';
import { payoutBody, payoutMerchants } from '../support/payout.js';
import { clockCall, compact } from '../support/clocks.js';
import { CARDS, CHALLENGE_CODE } from '../support/cards.js';

/**
 * Issue 55 finding 5: a card number in an address field (notify_url, return_url, cancel_url, website,
 * storefront_domains, a payout document's file_url) was stored as sent, or masked inside an address that then
 * led nowhere. Each is now refused with a 400 naming the field, and nothing is stored.
 */
const clock = new ManualClock(Date.UTC(2026, 10, 21));
const xml = new XMLParser({ parseTagValue: false });
/** a card number no other test types (Luhn-valid, a Visa prefix), so the scan after the suite would find it */
const PAN = '4000000000003063';

function gateway() {
  return makeGateway({ name: 'card-in-addresses', clock, merchants: payoutMerchants() });
}

/** The JSON error of a refused call (authorise is asked for JSON). */
const post = (app: Parameters<typeof request>[0], path: string, body: unknown) =>
  request(app).post(path).set('Accept', 'application/json').type('form').send(JSON.stringify(body));

describe('when a card number is sent in an address field', () => {
  it.each([
    ['/v1/authorise', 'notify_url', `https://shop.example/notify?pan=${PAN}`],
    ['/v1/authorise', 'return_url', `https://shop.example/return/${PAN}`],
    ['/v1/authorise', 'website', `https://shop.example/${PAN}`],
    ['/v1/authorise', 'storefront_domains', `https://shop.example,https://${PAN}.shop.example`],
    ['/v1/checkout', 'notify_url', `https://shop.example/notify?pan=${PAN.replace(/(\d{4})(?=\d)/g, '$1%20')}`],
    ['/v1/checkout', 'return_url', `https://shop.example/return?c=${PAN.replace(/(\d{4})(?=\d)/g, '$1-')}`],
    ['/v1/checkout', 'cancel_url', `https://shop.example/cancel#${PAN}`],
    ['/v1/checkout', 'website', PAN],
  ])('then %s refuses %s (400 INVALID_FIELD naming it) and stores no payment or session', async (path, field, value) => {
    const gw = gateway();
    const body = path === '/v1/authorise' ? authoriseBody({ [field]: value }) : checkoutBody({ [field]: value });
    const res = await post(gw.app, path, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', message: `${field}: must not hold a card number` });
    expect(res.text).not.toContain(PAN);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, body.order_no as string)).toBeUndefined();
    await gw.close();
  });

  it.each([
    ['notify_url', `https://payouts.example/notify/${PAN}`],
    ['beneficiary.person_documents.0.file_url', `https://files.example/${PAN}.pdf`],
  ])('then /v1/payout refuses %s and moves no money', async (field, value) => {
    const gw = gateway();
    const body = payoutBody({ [field]: value });
    const res = await post(gw.app, '/v1/payout', body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_FIELD', message: `${field}: must not hold a card number` });
    const query = await gw.deps.store.findPayoutByRequest(MERCHANT_ID, ACCOUNT_ID, body.request_id as string);
    expect(query).toBeUndefined();
    await gw.close();
  });

  it('then /v1/testClock refuses notify_url and creates no clock', async () => {
    const gw = gateway();
    const res = await clockCall(gw.app, 'testClock', {
      request_id: 'clock-card',
      frozen_time: compact(Date.UTC(2030, 0, 1)),
      notify_url: `https://shop.example/clocks/${PAN}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('notify_url: must not hold a card number');
    expect(await gw.deps.store.testClocksOf(MERCHANT_ID, 10)).toEqual([]);
    await gw.close();
  });

  it('then a notify_url or return_url appended to the issuer_url with one is ignored, never stored', async () => {
    const gw = gateway();
    const res = await request(gw.app)
      .post('/v1/authorise')
      .type('form')
      .send(JSON.stringify(authoriseBody({ card: CARDS.challenge, open3d: 'do3DS' })));
    const doc = xml.parse(res.text).respon as Record<string, string>;
    const issuer = new URL(doc.issuer_url!);
    issuer.searchParams.set('notify_url', `https://shop.example/n/${PAN}`);
    issuer.searchParams.set('return_url', `https://shop.example/r/${PAN}`);
    const page = await request(gw.app).get(`${issuer.pathname}${issuer.search}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(PAN);
    const done = await request(gw.app)
      .post(issuer.pathname)
      .type('form')
      .send({ code: CHALLENGE_CODE, notify_url: `https://shop.example/n/${PAN}`, return_url: `https://shop.example/r/${PAN}` });
    expect(done.status).toBe(200);
    expect(done.text).not.toContain(PAN);
    const payment = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id!);
    expect(JSON.stringify(payment)).not.toContain(PAN);
    await gw.close();
  });
});

describe('when an address holds digits that are no card number', () => {
  it('then a token or hash glued to letters, a UUID and a short number are accepted as sent', async () => {
    const gw = gateway();
    const notify = 'https://shop.example/notify?sig=5f1d7a9c41111111111111ab&id=123e4567-e89b-12d3-a456-426614174000&n=4242';
    const res = await post(gw.app, '/v1/authorise', authoriseBody({ notify_url: notify, website: 'https://shop.example/42' }));
    expect(res.status, res.text).toBe(200);
    await gw.close();
  });
});

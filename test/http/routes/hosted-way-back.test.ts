import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { MERCHANT_ID, SIGN_KEY } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { CARDS, TEST_SECURITY_CODE } from '../../support/cards.js';
import { LANGUAGES, t } from '../../../src/i18n/index.js';
import { gatewayOnRedis } from '../../support/gateway-on-redis.js';

// The notices' way back (docs/checkout.md) and the wording of a wrong 3-D Secure code: a notice links only to an
// origin of the merchant's own account, never to one the request names alone; a wrong code is said to be wrong.
const clock = new ManualClock();

const gw = gatewayOnRedis('hosted-way-back', { clock });

const path = (url: unknown): string => new URL(String(url)).pathname;

async function openSession(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await request(gw.app)
    .post('/v1/checkout')
    .set('Accept', 'application/json')
    .send(JSON.stringify(checkoutBody(overrides, SIGN_KEY)));
  expect(res.status).toBe(200);
  return path(res.body.checkout_url);
}

const backLink = (html: string): string | undefined => /<a class="button primary" id="notice-back" href="([^"]+)"/.exec(html)?.[1];
const UNKNOWN = `/v1/checkout/${MERCHANT_ID}/cs_doesnotexist000000`;

describe('when a checkout is not found', () => {
  it('when the browser came from a shop of the merchant named in the address, then the page links back to that shop by name', async () => {
    const page = await request(gw.app).get(UNKNOWN).set('Referer', 'https://shop.example/basket?step=2');
    expect(page.status).toBe(404);
    expect(backLink(page.text)).toBe('https://shop.example/');
    expect(page.text).toContain(t('en', 'notice.back_to', { merchant: 'Test Shop' }));
    expect(page.text).not.toContain('notice.js');
  });

  it('when the Referer is another origin, or a shop of another merchant, then there is no link: the browser-back button only', async () => {
    for (const [referer, url] of [
      ['https://evil.example/phish', UNKNOWN],
      ['https://shop.example/', '/v1/checkout/9999999/cs_doesnotexist000000'],
      ['javascript:alert(1)', UNKNOWN],
      ['', UNKNOWN],
    ] as const) {
      const page = await request(gw.app).get(url).set('Referer', referer);
      expect(page.status).toBe(404);
      expect(backLink(page.text)).toBeUndefined();
      expect(page.text).not.toContain('evil.example');
      expect(page.text).toContain(`<button type="button" class="primary" id="notice-back" hidden>${t('en', 'notice.back')}</button>`);
      expect(page.text).toMatch(/<script src="[^"]+\/public\/notice\.js" integrity="sha384-/);
    }
  });

  it('then the way back speaks the shopper language', async () => {
    const page = await request(gw.app).get(UNKNOWN).set('Accept-Language', 'ar').set('Referer', 'https://shop.example/');
    expect(page.text).toContain(t('ar', 'notice.back_to', { merchant: 'Test Shop' }));
    const bare = await request(gw.app).get(UNKNOWN).set('Accept-Language', 'ja');
    expect(bare.text).toContain(t('ja', 'notice.back'));
  });
});

describe('when a checkout has expired', () => {
  it('then its notice links back to the origin of its own cancel address', async () => {
    const card = await openSession({ cancel_url: 'https://shop.example/cancel?order=1' });
    clock.advance(31 * 60_000);
    const page = await request(gw.app).get(card);
    expect(page.status).toBe(410);
    expect(backLink(page.text)).toBe('https://shop.example/');
  });
});

describe('when the shopper types a wrong 3-D Secure code', () => {
  it('then in every hosted language the result says the code was wrong, not that the bank could not confirm', async () => {
    const wrong: string[] = [];
    for (const lang of LANGUAGES) {
      const card = await openSession({ default_lang: lang });
      const paid = await request(gw.app).post(`${card}/pay`).type('form').send({
        cardholder: 'Ada Lovelace',
        card: CARDS.challenge,
        expiration_month: '12',
        expiration_year: '2034',
        security_code: TEST_SECURITY_CODE,
      });
      expect(paid.status).toBe(303);
      const answered = await request(gw.app).post(path(paid.headers.location)).type('form').send({ code: '000000' });
      expect(answered.status).toBe(303);
      const result = await request(gw.app).get(path(answered.headers.location));
      const detail = /<p class="detail" id="result-detail">([^<]*)<\/p>/.exec(result.text)?.[1];
      if (detail !== htmlText(t(lang, 'result.threeds_code_wrong_detail'))) wrong.push(`${lang}: ${detail}`);
      expect(t(lang, 'result.threeds_code_wrong_detail')).not.toBe(t(lang, 'result.threeds_failed_detail'));
      if (lang !== 'en') expect(t(lang, 'result.threeds_code_wrong_detail')).not.toBe(t('en', 'result.threeds_code_wrong_detail'));
    }
    expect(wrong).toEqual([]);
  });
});

function htmlText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}

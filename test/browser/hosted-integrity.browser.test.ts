import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Page, Response } from 'playwright-core';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../support/gateway.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';
import { AMEX_CARD, BRANDED_ACCOUNT_ID, BRANDED_SIGN_KEY } from '../support/hosted.js';
import { startHostedWorld, type HostedWorld } from '../support/hosted-world.js';
import { FIELDS, sign } from '../support/sign.js';
import { formatAmount, t } from '../../src/i18n/index.js';

let w: HostedWorld;
let inventory: Map<string, string>;

beforeAll(async () => {
  w = await startHostedWorld('hosted-integrity');
  const listed = (await (await fetch(`${w.gateway}/.well-known/payment-page-scripts.json`)).json()) as {
    scripts: { path: string; hash: string }[];
  };
  inventory = new Map(listed.scripts.map((s) => [s.path, s.hash]));
});
afterAll(async () => {
  await w?.close();
});

/** Every script and stylesheet a page loads, with the SHA-384 of what arrived, and every CSP violation. */
async function watchedPage(locale = 'en'): Promise<{ page: Page; loaded: { url: string; type: string; hash?: string }[] }> {
  const page = await w.newPage({ locale });
  const loaded: { url: string; type: string; hash?: string }[] = [];
  const pending: Promise<void>[] = [];
  page.on('response', (res: Response) => {
    const type = res.request().resourceType();
    if (type === 'document' || !res.url().startsWith(w.gateway)) return;
    const entry: { url: string; type: string; hash?: string } = { url: res.url(), type };
    loaded.push(entry);
    // a body is gone once its page has navigated on (the loading page submits at once)
    pending.push(
      res
        .body()
        .then((body) => {
          entry.hash = `sha384-${createHash('sha384').update(body).digest('base64')}`;
        })
        .catch(() => undefined),
    );
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  (page as unknown as { settle: () => Promise<unknown> }).settle = () => Promise.all(pending);
  return { page, loaded };
}

/** The page carries integrity on every script and stylesheet, nothing inline, and broke no CSP rule. */
async function expectIntact(page: Page, name: string): Promise<void> {
  const dom = await page.evaluate(() => ({
    scripts: [...document.querySelectorAll('script')].map((s) => ({ src: s.src, integrity: s.integrity })),
    styles: [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => ({
      src: (l as HTMLLinkElement).href,
      integrity: (l as HTMLLinkElement).integrity,
    })),
    inline: document.querySelectorAll('script:not([src]), style, [style]').length,
    violations: (window as unknown as { cspViolations: string[] }).cspViolations,
  }));
  expect(dom.inline, `${name}: inline script or style`).toBe(0);
  expect(dom.violations, `${name}: CSP violations`).toEqual([]);
  for (const tag of [...dom.scripts, ...dom.styles]) {
    expect(inventory.get(new URL(tag.src).pathname), `${name}: ${tag.src} is not in the inventory`).toBeDefined();
    expect(tag.integrity, `${name}: ${tag.src}`).toBe(inventory.get(new URL(tag.src).pathname));
  }
}

async function fillCard(page: Page, card: string, csc = TEST_SECURITY_CODE): Promise<void> {
  await page.locator('#cardholder').fill('Ada Lovelace');
  await page.locator('#card').fill(card);
  await page.locator('#expiration_month').fill('12');
  await page.locator('#expiration_year').fill('2034');
  await page.locator('#security_code').fill(csc);
}

describe('when the hosted pages load in a browser', () => {
  it('then every script and stylesheet of the loading, card, challenge and result pages is in the inventory, with its hash', async () => {
    const { page, loaded } = await watchedPage();
    await page.context().route('**/public/result.js', (r) => r.abort());
    await page.goto(`${w.shop.origin}/pay`);
    await page.waitForURL(/\/v1\/checkout\/.+\/cs_/);
    await expectIntact(page, 'card');
    await fillCard(page, CARDS.challenge);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    await expectIntact(page, 'challenge');
    await page.locator('#code').fill(CHALLENGE_CODE);
    await page.locator('#verify-button').click();
    await page.waitForURL(/\/result$/);
    await expectIntact(page, 'result');
    await (page as unknown as { settle: () => Promise<unknown> }).settle();
    const kinds = new Set(loaded.map((l) => l.type));
    expect([...kinds].sort()).toEqual(['script', 'stylesheet']);
    for (const l of loaded) {
      const path = new URL(l.url).pathname;
      expect(inventory.get(path), `${path} loaded but not in the inventory`).toBeDefined();
      if (l.hash) expect(l.hash, `${path} arrived with another hash than the inventory's`).toBe(inventory.get(path));
    }
    expect(loaded.filter((l) => l.hash).length).toBeGreaterThanOrEqual(loaded.length - 2);
    expect(new Set(loaded.map((l) => new URL(l.url).pathname))).toEqual(
      new Set(['/public/checkout.css', '/public/loading.js', '/public/card.js', '/public/frame.js']),
    );
    await page.context().close();
  });

  it('then a script changed on its way is refused by the browser and never runs', async () => {
    const page = await w.newPage();
    const errors: string[] = [];
    page.on('console', (m) => errors.push(m.text()));
    await page.context().route('**/public/card.js', async (route) => {
      const original = await route.fetch();
      await route.fulfill({ response: original, body: `${await original.text()}\nwindow.skimmed = true;` });
    });
    await page.goto(await w.checkoutUrl());
    await expect.poll(() => errors.some((e) => /integrity/i.test(e))).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { skimmed?: boolean }).skimmed)).toBeUndefined();
    // card.js sets novalidate when it runs
    await expect(page.locator('#card-form').getAttribute('novalidate')).resolves.toBeNull();
    await page.context().close();
  });
});

describe('when the shopper reads the pages in their language', () => {
  const cases: [string, Record<string, unknown>, string, string, 'ltr' | 'rtl'][] = [
    ['de from default_lang', { default_lang: 'de' }, 'en', 'de', 'ltr'],
    ['ja from default_lang', { default_lang: 'ja' }, 'en', 'ja', 'ltr'],
    ['ar right to left', { default_lang: 'ar' }, 'en', 'ar', 'rtl'],
    ['es-MX falling back to es', { default_lang: 'es-MX' }, 'en', 'es', 'ltr'],
    ["the browser's Accept-Language", {}, 'pt-BR', 'pt-BR', 'ltr'],
  ];
  it.each(cases)('then %s sets lang, dir, the texts, the client checks and the amount', async (_name, order, locale, lang, dir) => {
    const page = await w.newPage({ locale });
    await page.goto(await w.checkoutUrl(order));
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe(lang);
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe(dir);
    await expect(page.locator('#pay-button').textContent()).resolves.toBe(t(lang, 'card.pay', { amount: formatAmount(lang, 1000, 'USD') }));
    await expect(page.locator('label[for=card]').textContent()).resolves.toContain(t(lang, 'card.number'));
    await page.locator('#card').fill('4242424242424241');
    await page.locator('#pay-button').click();
    await expect(page.locator('#error-summary-title').textContent()).resolves.toBe(t(lang, 'error.summary'));
    await expect(page.locator('#card-error').textContent()).resolves.toBe(t(lang, 'error.card_invalid'));
    await page.context().close();
  });
});

describe('when a card of a brand the account does not take is typed', () => {
  it('then the brand is shown, the card is refused with the accepted brands, and a Visa card pays', async () => {
    const page = await w.newPage();
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await page.goto(await w.checkoutUrl({ account_id: BRANDED_ACCOUNT_ID, open3d: 'no3DS' }, BRANDED_SIGN_KEY));
    await expect(page.locator('#brand-marks li .visually-hidden').allTextContents()).resolves.toEqual(['Visa', 'Mastercard']);
    await fillCard(page, AMEX_CARD, '1234');
    await expect(page.locator('#card-brand').textContent()).resolves.toBe('American Express');
    await expect(page.locator('#security_code-hint').textContent()).resolves.toBe(t('en', 'card.csc_hint_amex'));
    await page.locator('#pay-button').click();
    await expect(page.locator('#card-error').textContent()).resolves.toBe(
      t('en', 'error.card_brand', { brand: 'American Express', brands: 'Visa, Mastercard' }),
    );
    expect(posts).toEqual([]);
    await fillCard(page, CARDS.approved);
    await expect(page.locator('.mark-visa').getAttribute('class')).resolves.toContain('active');
    await page.locator('#pay-button').click();
    await page.waitForURL(new RegExp(`^${w.shop.origin}/return\\?`));
    expect(new URL(page.url()).searchParams.get('order_status')).toBe('1');
    await page.context().close();
  });

  it("then the browser's 3-D Secure data is stored on the payment", async () => {
    const page = await w.newPage({ viewport: { width: 800, height: 600 }, locale: 'de-DE', timezoneId: 'Asia/Tokyo' });
    const order = { open3d: 'no3DS', order_no: `BD-${Date.now()}` };
    await page.goto(await w.checkoutUrl(order));
    await fillCard(page, CARDS.approved);
    await page.locator('#pay-button').click();
    await page.waitForURL(new RegExp(`^${w.shop.origin}/return\\?`));
    const payment = await w.gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, order.order_no);
    expect(payment?.device).toMatchObject({
      screen_width: 800,
      screen_height: 600,
      tz_offset: -540,
      language: 'de-DE',
      javascript_enabled: true,
    });
    expect(payment?.device?.color_depth).toBeGreaterThan(0);
    await page.context().close();
  });
});

describe('when the merchant page embeds the checkout', () => {
  it('then the frame takes its content height, and ready, submitted and result are raised with the signed result', async () => {
    const page = await w.newPage();
    await page.goto(`${w.shop.origin}/embed`);
    const frame = page.frameLocator('#pay iframe');
    await frame.locator('#card').waitFor();
    const events = () =>
      page.evaluate(() => (window as unknown as { events: { type?: string; dom?: string; detail: Record<string, string> }[] }).events);
    await expect.poll(async () => (await events()).filter((e) => e.type === 'ready').map((e) => e.detail.page)).toEqual(['card']);
    expect((await events()).some((e) => e.dom === 'gateway:ready')).toBe(true);
    const heights = async () => {
      const outer = await page.evaluate(() => (document.querySelector('#pay iframe') as HTMLIFrameElement).getBoundingClientRect().height);
      const inner = await frame.locator('html').evaluate((el) => el.scrollHeight);
      return { outer, inner };
    };
    await expect.poll(async () => Math.abs((await heights()).outer - (await heights()).inner)).toBeLessThanOrEqual(2);
    const before = (await heights()).outer;
    await frame.locator('#pay-button').click();
    await expect(frame.locator('#error-summary').isVisible()).resolves.toBe(true);
    await expect.poll(async () => (await heights()).outer).toBeGreaterThan(before);
    await expect.poll(async () => Math.abs((await heights()).outer - (await heights()).inner)).toBeLessThanOrEqual(2);
    await fillCard(frame as unknown as Page, CARDS.approved);
    await frame.locator('#pay-button').click();
    // the result page posts its result and its readiness (in the order its scripts run)
    await expect.poll(async () => (await events()).filter((e) => e.type).length).toBe(4);
    const order = (await events()).filter((e) => e.type).map((e) => (e.type === 'ready' ? `ready:${e.detail.page}` : e.type));
    expect(order.slice(0, 2)).toEqual(['ready:card', 'submitted']);
    expect(order.slice(2).sort()).toEqual(['ready:result', 'result']);
    const all = await events();
    const result = all.find((e) => e.type === 'result')!.detail;
    expect(all.find((e) => e.dom === 'gateway:result')!.detail).toEqual(result);
    expect(result.order_status).toBe('1');
    const signed: Record<string, string> = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...result };
    expect(result.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => signed[f]),
        SIGN_KEY,
      ),
    );
    expect(page.url()).toBe(`${w.shop.origin}/embed`);
    await page.context().close();
  });
});

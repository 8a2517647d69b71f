import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { SCREENSHOT_DIR } from '../support/paths.js';
import { CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { startHostedWorld, type HostedWorld } from '../support/hosted-world.js';
import { t } from '../../src/i18n/index.js';

// The hosted pages' last details in Chromium: the operator's logo in the trust line (loaded from the gateway's
// own origin under the pages' CSP), the way back from "Checkout not found", and a wrong 3-D Secure code worded
// as the shopper's; screenshots in English and Arabic, desktop and phone.
const OPERATOR = 'Example Payments Ltd';
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="24" viewBox="0 0 120 24">' +
  '<rect width="120" height="24" rx="4" fill="#1d3557"/><circle cx="12" cy="12" r="6" fill="#f1faee"/></svg>';
let w: HostedWorld;

beforeAll(async () => {
  const logo = join(mkdtempSync(join(tmpdir(), 'gw-operator-logo-')), 'operator.svg');
  writeFileSync(logo, LOGO);
  w = await startHostedWorld('hosted-details', { OPERATOR_NAME: OPERATOR, OPERATOR_LOGO_FILE: logo });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});
afterAll(async () => {
  await w?.close();
});

const DEVICES = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;

async function screenshots(page: Page, name: string): Promise<void> {
  for (const [device, size] of DEVICES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `details-${name}-${device}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A page that records every request refused by the page's CSP, and whose result script sends nobody on. */
async function watchedPage(lang: string): Promise<{ page: Page; refused: string[] }> {
  const page = await w.newPage({ locale: lang });
  await page.context().route('**/public/result.js', (r) => r.abort());
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  return { page, refused };
}

const UNKNOWN = () => `${w.gateway}/v1/checkout/${MERCHANT_ID}/cs_doesnotexist000000`;

describe.each(['en', 'ar'])('when a shopper meets the hosted pages in %s', (lang) => {
  it("then the card page's trust line shows the operator's logo from the gateway's origin, named by its alt text", async () => {
    const { page, refused } = await watchedPage(lang);
    await page.goto(await w.checkoutUrl({ default_lang: lang }));
    const logo = page.locator('#trust-line img#operator-logo');
    await expect(logo.getAttribute('alt')).resolves.toBe(OPERATOR);
    const loaded = await logo.evaluate((img: HTMLImageElement) =>
      img.decode().then(() => ({ width: img.naturalWidth, src: img.currentSrc })),
    );
    expect(loaded.width).toBe(120);
    expect(new URL(loaded.src).origin).toBe(w.gateway);
    await expect(page.locator('#trust-line').textContent()).resolves.toContain(OPERATOR);
    expect(refused).toEqual([]);
    await screenshots(page, `card-${lang}`);
    await page.context().close();
  });

  it('then "Checkout not found" leads back to the shop the shopper came from, or back a page', async () => {
    const { page, refused } = await watchedPage(lang);
    // from the merchant's shop (the browser sends its origin as Referer): a link to that shop, by name
    await page.goto(`${w.shop.origin}/return`);
    await page.goto(UNKNOWN(), { referer: `${w.shop.origin}/return` });
    await expect(page.locator('#notice-heading').textContent()).resolves.toBe(t(lang, 'notice.unknown'));
    const link = page.locator('a#notice-back');
    await expect(link.textContent()).resolves.toBe(t(lang, 'notice.back_to', { merchant: 'Test Shop' }));
    await screenshots(page, `not-found-${lang}`);
    await link.click();
    await page.waitForURL(`${w.shop.origin}/`);
    // without a Referer: the browser's back, to the page before
    await page.goto(`${w.shop.origin}/return`);
    await page.goto(UNKNOWN());
    const back = page.locator('button#notice-back');
    await expect(back.textContent()).resolves.toBe(t(lang, 'notice.back'));
    await expect(back.isVisible()).resolves.toBe(true);
    await screenshots(page, `not-found-back-${lang}`);
    await back.click();
    await page.waitForURL(`${w.shop.origin}/return`);
    expect(refused).toEqual([]);
    await page.context().close();
  });

  it('then a wrong 3-D Secure code fails the payment and the result says the code was wrong', async () => {
    const { page } = await watchedPage(lang);
    await page.goto(await w.checkoutUrl({ default_lang: lang }));
    await page.locator('#cardholder').fill('Ada Lovelace');
    await page.locator('#card').fill(CARDS.challenge);
    await page.locator('#expiration_month').fill('12');
    await page.locator('#expiration_year').fill('2034');
    await page.locator('#security_code').fill(TEST_SECURITY_CODE);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    await page.locator('#code').fill('654321');
    await page.locator('#verify-button').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.threeds_failed'));
    await expect(page.locator('#result-detail').textContent()).resolves.toBe(t(lang, 'result.threeds_code_wrong_detail'));
    await screenshots(page, `challenge-failed-${lang}`);
    await page.context().close();
  });
});

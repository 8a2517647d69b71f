import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { SCREENSHOT_DIR } from '../support/paths.js';
import { CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { axeViolations, severe, startHostedWorld, type HostedWorld } from '../support/hosted-world.js';
import { t } from '../../src/i18n/index.js';

// Issue 40 (items 2, 3, 5): the card, challenge and result pages as a shopper meets them in Chromium: digits
// grouped as typed, another card after a decline, the challenge's cancel, the iFrame that shrinks to the
// result, axe-core in en and ar, light and dark, and the screenshots docs/checkout.md shows.
let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld('hosted-pages');
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});
afterAll(async () => {
  await w?.close();
});

const DEVICES = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 375, height: 667 }],
] as const;

/** A page whose result script does not send it on, so the result stays to be looked at. */
async function stillPage(lang = 'en'): Promise<Page> {
  const page = await w.newPage({ locale: lang });
  await page.context().route('**/public/result.js', (r) => r.abort());
  return page;
}

async function fillCard(page: Page | FrameLocator, card: string, csc = TEST_SECURITY_CODE): Promise<void> {
  await page.locator('#cardholder').fill('Ada Lovelace');
  await page.locator('#card').fill(card);
  await page.locator('#expiration_month').fill('12');
  await page.locator('#expiration_year').fill('2034');
  await page.locator('#security_code').fill(csc);
}

/** Desktop and phone, light and dark: test-artifacts/screenshots/hosted-<name>-<device>-<scheme>.png. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const [device, size] of DEVICES) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `hosted-${name}-${device}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** axe-core's serious and critical findings, in light and in dark. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const found = severe(await axeViolations(page));
    expect(found, `${name} (${scheme}): ${JSON.stringify(found, null, 1)}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const caret = (page: Page) => page.locator('#card').evaluate((el: HTMLInputElement) => el.selectionStart);
const placeCaret = (page: Page, at: number) => page.locator('#card').evaluate((el: HTMLInputElement, n) => el.setSelectionRange(n, n), at);

describe('when the shopper types a card number', () => {
  it('then the digits are grouped as typed, by brand, with the caret kept in place, and the server takes the grouped number', async () => {
    const page = await stillPage();
    await page.goto(await w.checkoutUrl());
    // no mark stands out before the number names a brand
    await expect(page.locator('#brand-marks.detected, #brand-marks .mark.active').count()).resolves.toBe(0);
    await page.locator('#card').click();
    await page.keyboard.type(CARDS.approved);
    await expect(page.locator('#card').inputValue()).resolves.toBe('4242 4242 4242 4242');
    await expect(caret(page)).resolves.toBe(19);
    await expect(page.locator('#brand-marks .mark.active').getAttribute('data-brand')).resolves.toBe('VISA');
    await expect(page.locator('#brand-marks').getAttribute('class')).resolves.toContain('detected');

    // a digit typed in the middle: the groups move, the caret stays after it
    await placeCaret(page, 5);
    await page.keyboard.type('1');
    await expect(page.locator('#card').inputValue()).resolves.toBe('4242 1424 2424 2424 2');
    await expect(caret(page)).resolves.toBe(6);
    // Backspace just after a group's space deletes the digit before it (not only the space)
    await placeCaret(page, 5);
    await page.keyboard.press('Backspace');
    await expect(page.locator('#card').inputValue()).resolves.toBe('4241 4242 4242 4242');
    await expect(caret(page)).resolves.toBe(3);
    // a number pasted over the whole field: American Express groups 4-6-5
    await page.locator('#card').evaluate((el: HTMLInputElement) => el.setSelectionRange(0, el.value.length));
    await page.keyboard.insertText('3782-8224-6310-005');
    await expect(page.locator('#card').inputValue()).resolves.toBe('3782 822463 10005');
    await expect(caret(page)).resolves.toBe(17);
    await expect(page.locator('#brand-marks .mark.active').getAttribute('data-brand')).resolves.toBe('AMEX');
    // pasted in the middle: after the first group
    await page.locator('#card').fill('');
    await page.keyboard.type('42424242');
    await placeCaret(page, 4);
    await page.keyboard.insertText('42424242');
    await expect(page.locator('#card').inputValue()).resolves.toBe('4242 4242 4242 4242');
    await expect(caret(page)).resolves.toBe(14);

    // the grouped number is what the form sends; the server takes it
    await page.locator('#expiration_month').fill('12');
    await page.locator('#expiration_year').fill('2034');
    await page.locator('#security_code').fill(TEST_SECURITY_CODE);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment successful');
    await page.context().close();
  });

  it('then month and year carry their MM and YYYY hints, and on a phone the amount and Pay button are on the first screen', async () => {
    const page = await stillPage();
    await page.setViewportSize({ width: 375, height: 667 });
    await page.goto(await w.checkoutUrl());
    await expect(page.locator('#expiration_month-hint').textContent()).resolves.toContain('MM');
    await expect(page.locator('#expiration_year-hint').textContent()).resolves.toContain('YYYY');
    await expect(page.locator('#expiration_month').getAttribute('aria-describedby')).resolves.toContain('expiration_month-hint');
    for (const id of ['#pay-button', '[data-testid="amount"]', '#security_code']) {
      const box = await page.locator(id).boundingBox();
      expect(box!.y + box!.height, `${id} within 667 px`).toBeLessThanOrEqual(667);
    }
    // one font for every amount: the line items' and the total's
    const fonts = await page.locator('.summary .amount').evaluateAll((els) => [...new Set(els.map((e) => getComputedStyle(e).fontFamily))]);
    expect(fonts).toHaveLength(1);
    // the trust line names the merchant and the operator (unnamed on a local address: the product, never a
    // host:port), and claims no TLS over plain http
    const trust = await page.locator('#trust-line').textContent();
    expect(trust).toContain('processed by Payment gateway');
    expect(trust).not.toContain(new URL(w.gateway).host);
    expect(trust).not.toContain('TLS');
    await screenshots(page, 'card');
    await page.context().close();
  });
});

describe('when the result page opens at the top level', () => {
  it('then its outcome has the focus, and the shopper has time to read it before being sent on', async () => {
    const page = await w.newPage();
    await page.goto(await w.checkoutUrl());
    await fillCard(page, CARDS.approved);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/result$/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('result-heading');
    const arrived = Date.now();
    await page.waitForURL((url) => !url.pathname.endsWith('/result'), { timeout: 20_000 });
    expect(Date.now() - arrived).toBeGreaterThanOrEqual(4000);
    await page.context().close();
  });
});

describe.each([
  ['en', 1280],
  ['en', 320],
  ['ar', 375],
])('when the card page in %s at %i px shows every error at once', (lang, width) => {
  it('then month, year and security code stay on one line, and each summary bullet sits on its first line', async () => {
    const page = await stillPage(lang);
    await page.setViewportSize({ width, height: 900 });
    await page.goto(await w.checkoutUrl({ default_lang: lang }));
    await page.locator('#card').fill('4242 4242 4242 4241');
    await page.locator('#pay-button').click();
    await expect
      .poll(() =>
        page
          .locator('#expiration_month[aria-invalid="true"], #expiration_year[aria-invalid="true"], #security_code[aria-invalid="true"]')
          .count(),
      )
      .toBe(3);
    expect(await page.locator('#error-summary li').count()).toBeGreaterThanOrEqual(4);
    const tops = await page.evaluate(() =>
      ['expiration_month', 'expiration_year', 'security_code'].map((id) =>
        Math.round(document.getElementById(id)!.getBoundingClientRect().top),
      ),
    );
    expect(new Set(tops).size, `input tops ${tops.join(', ')}`).toBe(1);
    // a list's bullet is drawn on the first line of a block, but beside the last line of an inline-block that wraps
    const displays = await page.locator('#error-summary li a').evaluateAll((links) => links.map((a) => getComputedStyle(a).display));
    expect(new Set(displays)).toEqual(new Set(['block']));
    await screenshots(page, `errors-${lang}-${width}`);
    await page.context().close();
  });
});

describe('when an order has no line items', () => {
  it('then one rule separates the header from the total, where an order with items has its rule between items and total', async () => {
    const page = await stillPage();
    const rulesAboveTotal = () =>
      page.evaluate(() => {
        const width = (el: Element | null, side: 'borderTopWidth' | 'borderBottomWidth') =>
          el ? Number.parseFloat(getComputedStyle(el)[side]) : 0;
        const total = document.querySelector('.summary .total');
        const items = document.querySelector('.summary .items');
        return [
          width(document.querySelector('.merchant'), 'borderBottomWidth'),
          width(items, 'borderTopWidth'),
          width(total, 'borderTopWidth'),
        ].filter((w) => w > 0).length;
      });
    await page.goto(await w.checkoutUrl({ items: undefined, item_total: undefined }));
    expect(await page.locator('.summary .items').count()).toBe(0);
    expect(await rulesAboveTotal()).toBe(1);
    await page.goto(await w.checkoutUrl());
    expect(await page.locator('.summary .items li').count()).toBeGreaterThan(0);
    // the header's rule, and the one between the items and their total
    expect(await rulesAboveTotal()).toBe(2);
    await page.context().close();
  });
});

describe('when the shopper fixes what the page pointed out', () => {
  it('then a field is judged as it is left, and a fixed field leaves both its own error and the summary', async () => {
    const page = await stillPage();
    await page.goto(await w.checkoutUrl());
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const marked = () => page.locator('[aria-invalid="true"]').evaluateAll((els) => els.map((e) => e.id));
    const summaryItems = () => page.locator('#error-summary:not([hidden]) li').allTextContents();

    // left with a value it cannot be: marked at once, before any submit; an empty field passed by is not
    await page.locator('#cardholder').focus();
    await page.keyboard.press('Tab');
    await page.locator('#card').fill('4242 4242 4242 4241');
    await page.locator('#expiration_month').focus();
    await expect.poll(marked).toEqual(['card']);
    expect(await summaryItems()).toEqual([]);
    await page.locator('#expiration_month').fill('13');
    await page.locator('#expiration_year').focus();
    await expect.poll(marked).toEqual(['card', 'expiration_month']);

    // the submit lists every problem; each fix takes its line out of the summary as it is typed
    await page.locator('#cardholder').fill('Ada Lovelace');
    await page.locator('#expiration_year').fill('2034');
    await page.locator('#security_code').fill(TEST_SECURITY_CODE);
    await page.locator('#pay-button').click();
    await expect.poll(async () => (await summaryItems()).length).toBe(2);
    await page.locator('#card').fill(CARDS.approved);
    await expect.poll(marked).toEqual(['expiration_month']);
    expect((await summaryItems()).join(' ')).not.toMatch(/card number/i);
    expect(await summaryItems()).toHaveLength(1);
    await page.locator('#expiration_month').fill('12');
    await expect.poll(marked).toEqual([]);
    await expect(page.locator('#error-summary').isHidden()).resolves.toBe(true);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe('when a card is declined and the shopper tries another', () => {
  it('then the same session takes the second card and approves the one payment', async () => {
    const page = await stillPage();
    await page.goto(await w.checkoutUrl());
    await fillCard(page, CARDS.declined);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment declined');
    const declinedTransaction = await page.locator('.facts .ident').nth(1).textContent();
    await expectAccessible(page, 'declined with retry en');
    await screenshots(page, 'declined-retry');
    await page.locator('#retry').click();
    await expect(page.locator('#retry-notice').textContent()).resolves.toContain('Your card was declined');
    await expectAccessible(page, 'card after a decline en');
    await screenshots(page, 'card-retry');
    await fillCard(page, CARDS.approvedMastercard);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment successful');
    await expect(page.locator('.facts .ident').nth(1).textContent()).resolves.toBe(declinedTransaction);
    await expect(page.locator('#retry').count()).resolves.toBe(0);
    await screenshots(page, 'result');
    await page.context().close();
  });
});

describe('when the shopper is asked for a 3-D Secure code', () => {
  it("then the page shows the card by its last 4 only, and cancel ends the challenge worded as the shopper's own cancel", async () => {
    const page = await stillPage();
    await page.goto(await w.checkoutUrl());
    await fillCard(page, CARDS.challenge);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    const text = await page.locator('main').textContent();
    expect(text).toContain(CARDS.challenge.slice(-4));
    expect(text).not.toContain(CARDS.challenge.slice(0, 6));
    await expect(page.locator('#challenge-amount').getAttribute('class')).resolves.toBe('amount');
    await screenshots(page, 'challenge');
    await page.locator('#cancel-challenge').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment cancelled');
    // the shopper cancelled: the bank is not blamed
    const result = (await page.locator('main').textContent())!;
    expect(result).toContain('You cancelled the payment, and nothing was charged.');
    expect(result).not.toContain('could not confirm');
    await page.context().close();
  });
});

describe('when the checkout is mounted in an iFrame', () => {
  it('then the frame shrinks to the result page, with no empty area below it', async () => {
    const page = await w.newPage();
    await page.goto(`${w.shop.origin}/embed`);
    const frame = page.frameLocator('#pay iframe');
    await frame.locator('#card').waitFor();
    const height = () => page.locator('#pay iframe').evaluate((el: HTMLIFrameElement) => el.getBoundingClientRect().height);
    await expect.poll(height).not.toBe(480);
    const cardHeight = await height();
    await fillCard(frame, CARDS.approved);
    await frame.locator('#pay-button').click();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { events: { type?: string }[] }).events.some((e) => e.type === 'result')))
      .toBe(true);
    const result = page.frames().find((f: Frame) => f.url().endsWith('/result'))!;
    const content = () => result.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
    await expect.poll(height).toBeLessThan(cardHeight);
    // the frame is as tall as the result's content: no grey area left below it
    await expect.poll(async () => Math.abs((await height()) - (await content()))).toBeLessThanOrEqual(2);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'hosted-iframe-result-desktop-light.png'), fullPage: true });
    await page.context().close();
  });
});

describe.each(['en', 'ar'])('when axe-core checks the pages in %s, light and dark', (lang) => {
  it('then the card, challenge, result and declined-with-retry pages have no serious violation, and amounts read as CLDR writes them', async () => {
    const card = await stillPage(lang);
    await card.goto(await w.checkoutUrl({ default_lang: lang, currency: 'USD' }));
    await expectAccessible(card, `card ${lang}`);
    const total = await card.locator('[data-testid="amount"]').textContent();
    if (lang === 'ar') {
      // CLDR's Arabic puts the sign after the number ("‏25.00 US$"); the sign is kept whole ("US$", not "$US")
      expect(total).toMatch(/^\u200f[\d.,\u0660-\u0669\u066b\u066c]+\s\u2066US\$\u2069$/);
    } else expect(total).toMatch(/^\$\d/);
    if (lang === 'ar') await screenshots(card, 'card-ar');
    await fillCard(card, CARDS.declined);
    await card.locator('#pay-button').click();
    await card.waitForURL(/\/result$/);
    await expect(card.locator('#retry').textContent()).resolves.toBe(t(lang, 'result.retry'));
    await expectAccessible(card, `declined with retry ${lang}`);
    await card.locator('#retry').click();
    await fillCard(card, CARDS.challenge);
    await card.locator('#pay-button').click();
    await card.waitForURL(/\/v1\/3ds\//);
    await expectAccessible(card, `challenge ${lang}`);
    await card.locator('#code').fill('123456');
    await card.locator('#verify-button').click();
    await card.waitForURL(/\/result$/);
    await expect(card.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.approved'));
    await expectAccessible(card, `result ${lang}`);
    if (lang === 'ar') await screenshots(card, 'result-ar');
    await card.context().close();
  });
});

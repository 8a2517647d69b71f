import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, SCREENSHOT_DIR } from '../support/paths.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';
import { axeViolations, severe, startHostedWorld, type AxeFinding, type HostedWorld } from '../support/hosted-world.js';
import { t } from '../../src/i18n/index.js';

let w: HostedWorld;
/** every finding of every page, kept for docs/accessibility.md */
const report: Record<string, AxeFinding[]> = {};

beforeAll(async () => {
  w = await startHostedWorld('hosted-a11y');
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});
afterAll(async () => {
  writeFileSync(join(ARTIFACTS, 'axe-report.json'), JSON.stringify(report, null, 2));
  await w?.close();
});

/** A page whose own redirecting scripts are held back, so axe sees the page the shopper sees. */
async function stillPage(lang: string): Promise<Page> {
  const page = await w.newPage({ locale: lang });
  await page.context().route('**/public/result.js', (r) => r.abort());
  await page.context().route('**/public/loading.js', (r) => r.abort());
  return page;
}

async function expectAccessible(page: Page, name: string): Promise<void> {
  const findings = await axeViolations(page);
  report[name] = findings;
  expect(severe(findings), `${name}: ${JSON.stringify(severe(findings), null, 1)}`).toEqual([]);
}

/** Desktop and phone, light and dark, saved for the closing note; dark mode is checked by axe too. */
async function screenshots(page: Page, name: string, checkDark: boolean): Promise<void> {
  for (const [device, size] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${device}-${scheme}.png`), fullPage: true });
    }
  }
  if (checkDark) {
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, `${name} (dark)`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function fillCard(page: Page, card: string): Promise<void> {
  await page.locator('#cardholder').fill('Ada Lovelace');
  await page.locator('#card').fill(card);
  await page.locator('#expiration_month').fill('12');
  await page.locator('#expiration_year').fill('2034');
  await page.locator('#security_code').fill(TEST_SECURITY_CODE);
}

/** Pays on the card page and waits for the next hosted page (result or challenge). */
async function pay(lang: string, card: string, order: Record<string, unknown> = {}): Promise<Page> {
  const page = await stillPage(lang);
  await page.goto(await w.checkoutUrl({ default_lang: lang, ...order }));
  await fillCard(page, card);
  await page.locator('#pay-button').click();
  await page.waitForURL(/\/(result|v1\/3ds\/.+)$/);
  return page;
}

describe.each(['en', 'ar'])('when axe-core checks every hosted page in %s', (lang) => {
  it('then the loading page, the card page (light and dark, 320 px, 200 % zoom) and its errors have no serious violation', async () => {
    const loading = await stillPage(lang);
    await loading.goto(`${w.shop.origin}/pay?lang=${lang}`);
    await expect(loading.locator('html').getAttribute('lang')).resolves.toBe(lang);
    await expectAccessible(loading, `loading ${lang}`);
    await loading.context().close();

    const page = await stillPage(lang);
    await page.goto(await w.checkoutUrl({ default_lang: lang }));
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe(lang === 'ar' ? 'rtl' : 'ltr');
    await expectAccessible(page, `card ${lang}`);
    await screenshots(page, `card-${lang}`, true);
    // 320 px wide, and 1280 px at 200 % (640 CSS px): nothing cut off, no sideways scrolling
    for (const width of [320, 640]) {
      await page.setViewportSize({ width, height: 700 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await expect(page.locator('#pay-button').isVisible()).resolves.toBe(true);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('#pay-button').click();
    await expect(page.locator('#error-summary').isVisible()).resolves.toBe(true);
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('error-summary');
    await expect(page.locator('#error-summary-title').textContent()).resolves.toBe(t(lang, 'error.summary'));
    await expect(page.locator('#card').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#card-error').textContent()).resolves.toBe(t(lang, 'error.card_digits'));
    await expectAccessible(page, `card with errors ${lang}`);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `card-errors-${lang}-desktop-light.png`), fullPage: true });
    await page.context().close();
  });

  it('then the challenge page and the result of each outcome have no serious violation', async () => {
    const challenge = await pay(lang, CARDS.challenge);
    await expect(challenge.locator('#code').getAttribute('autocomplete')).resolves.toBe('one-time-code');
    await expectAccessible(challenge, `challenge ${lang}`);
    await screenshots(challenge, `challenge-${lang}`, true);
    await challenge.locator('#code').fill('000000');
    await challenge.locator('#verify-button').click();
    await challenge.waitForURL(/\/result$/);
    await expect(challenge.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.threeds_failed'));
    await expectAccessible(challenge, `result threeds_failed ${lang}`);
    await challenge.context().close();

    // the three payments run side by side; axe then checks each result page in turn
    const [approved, declined, held] = await Promise.all([
      pay(lang, CARDS.approved),
      pay(lang, CARDS.declined),
      pay(lang, CARDS.approved, { shopper_email: 'shopper+review@example.com', open3d: 'no3DS' }),
    ]);
    await expect(approved.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.approved'));
    await expectAccessible(approved, `result approved ${lang}`);
    await screenshots(approved, `result-${lang}`, true);
    await expect(declined.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.declined'));
    await expectAccessible(declined, `result declined ${lang}`);
    await expect(held.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.pending'));
    await expectAccessible(held, `result pending ${lang}`);
    await Promise.all([approved, declined, held].map((p) => p.context().close()));
  });

  it('then the cancel confirmation, the cancelled result, the expired and the unknown checkout have no serious violation', async () => {
    const page = await stillPage(lang);
    const url = await w.checkoutUrl({ default_lang: lang });
    await page.goto(`${url}/cancel`);
    await expect(page.locator('#cancel-heading').textContent()).resolves.toBe(t(lang, 'cancel.title'));
    await expectAccessible(page, `cancel confirmation ${lang}`);
    await page.locator('#confirm-cancel').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.cancelled'));
    await expectAccessible(page, `result cancelled ${lang}`);

    const later = await w.checkoutUrl({ default_lang: lang });
    w.clock.offset = 31 * 60_000;
    try {
      await page.goto(later);
      await expect(page.locator('#notice-heading').textContent()).resolves.toBe(t(lang, 'notice.expired'));
      await expectAccessible(page, `expired ${lang}`);
    } finally {
      w.clock.offset = 0;
    }
    await page.goto(`${w.gateway}/v1/checkout/1000001/cs_doesnotexist01`);
    await expect(page.locator('#notice-heading').textContent()).resolves.toBe(t(lang, 'notice.unknown'));
    await expectAccessible(page, `unknown ${lang}`);
    await page.context().close();
  });
});

describe('when a shopper pays with the keyboard only', () => {
  it('then Tab reaches every field in order with a visible focus, the summary links to the field, and Enter pays', async () => {
    const page = await stillPage('en');
    await page.goto(await w.checkoutUrl({ first_name: '', last_name: '' }));
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { id: el.id, outline: style.outlineStyle !== 'none' && Number.parseInt(style.outlineWidth, 10) >= 2 };
      });
    // Enter on an empty form: the error summary takes the focus, its first link leads to the field
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ id: 'cardholder', outline: true });
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).id).toBe('error-summary');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('href'))).resolves.toBe('#cardholder');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('cardholder');
    const entries: [string, string][] = [
      ['cardholder', 'Ada Lovelace'],
      ['card', CARDS.approved],
      ['expiration_month', '12'],
      ['expiration_year', '2034'],
      ['security_code', TEST_SECURITY_CODE],
    ];
    for (const [index, [id, text]] of entries.entries()) {
      if (index > 0) await page.keyboard.press('Tab');
      expect(await focused()).toEqual({ id, outline: true });
      await page.keyboard.type(text);
    }
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ id: 'pay-button', outline: true });
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment successful');
    await page.context().close();
  });

  it('then the challenge code is entered and sent with the keyboard', async () => {
    const page = await pay('en', CARDS.challenge);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('code');
    await page.keyboard.type(CHALLENGE_CODE);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment successful');
    await page.context().close();
  });
});

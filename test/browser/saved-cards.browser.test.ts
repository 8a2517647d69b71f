import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { SCREENSHOT_DIR } from '../support/paths.js';
import { CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY } from '../support/gateway.js';
import { sign } from '../support/sign.js';
import { axeViolations, severe, startHostedWorld, type HostedWorld } from '../support/hosted-world.js';
import { t } from '../../src/i18n/index.js';

// Issue 40 item 1 (docs/checkout.md#saved-cards-for-returning-shoppers) in Chromium on a real Redis: a proven shopper saves a card with consent, pays
// again with it (its security code asked again), another shopper and an unproven shopper_id see nothing, the
// card is removed on the page and through /v1/deleteCard; axe-core on the saved-cards page in en and ar.
let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld('saved-cards-browser');
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});
afterAll(async () => {
  await w?.close();
});

const proven = (shopper: string) => ({ shopper_id: shopper, shopper_signature: sign([MERCHANT_ID, ACCOUNT_ID, shopper], SIGN_KEY) });

/** A page whose result script does not send it on, so the result stays to be read. */
async function stillPage(lang = 'en'): Promise<Page> {
  const page = await w.newPage({ locale: lang });
  await page.context().route('**/public/result.js', (r) => r.abort());
  return page;
}

/** The card page of a new checkout of the shopper (proven unless its signature is given). */
async function cardPage(order: Record<string, unknown>, lang = 'en'): Promise<Page> {
  const page = await stillPage(lang);
  await page.goto(await w.checkoutUrl({ default_lang: lang, open3d: 'no3DS', ...order }));
  return page;
}

/** Saves a new card for the shopper: pays with the consent box ticked; the page ends on the result. */
async function saveCard(shopper: string, card: string = CARDS.approved, lang = 'en'): Promise<void> {
  const page = await cardPage(proven(shopper), lang);
  const consent = page.locator('#save_card');
  await expect(consent.isChecked()).resolves.toBe(false);
  await expect(page.locator('label[for="save_card"]').textContent()).resolves.toBe(t(lang, 'saved.consent', { merchant: 'Test Shop' }));
  await page.locator('#cardholder').fill('Ada Lovelace');
  await page.locator('#card').fill(card);
  await page.locator('#expiration_month').fill('12');
  await page.locator('#expiration_year').fill('2034');
  await page.locator('#security_code').fill(TEST_SECURITY_CODE);
  await consent.check();
  await page.locator('#pay-button').click();
  await page.waitForURL(/\/result$/);
  await expect(page.locator('#result-heading').textContent()).resolves.toBe(t(lang, 'result.approved'));
  await page.context().close();
}

const savedRadios = (page: Page) => page.locator('input[name="saved_card"]:not([value=""])');

async function expectAccessible(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const found = severe(await axeViolations(page));
    expect(found, `${name} (${scheme}): ${JSON.stringify(found, null, 1)}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function deleteThroughApi(shopper: string, cardId: string): Promise<number> {
  const body = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, shopper_id: shopper, card_id: cardId };
  const res = await fetch(`${w.gateway}/v1/deleteCard`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, encryption_data: sign([MERCHANT_ID, ACCOUNT_ID, shopper, cardId], SIGN_KEY) }),
  });
  return res.status;
}

describe('when a returning shopper pays on the hosted card page', () => {
  it('then a card saved with consent is offered next time, asks its security code again, and pays', async () => {
    await saveCard('browser-shopper-1');
    const page = await cardPage(proven('browser-shopper-1'));
    const radios = savedRadios(page);
    await expect(radios.count()).resolves.toBe(1);
    await expect(radios.first().isChecked()).resolves.toBe(true);
    const id = (await radios.first().getAttribute('id'))!;
    await expect(page.locator(`label[for="${id}"]`).textContent()).resolves.toBe(
      t('en', 'saved.card', { brand: 'Visa', last4: '4242', expiry: '12/2034' }),
    );
    // the card shows its brand's mark beside its label, as the card fields show the accepted brands'
    await expect(page.locator('.saved-card').first().locator('.saved-mark svg').count()).resolves.toBe(1);
    // the saved card chosen: the new card's fields are hidden and only its security code is asked
    await expect(page.locator('#card').isVisible()).resolves.toBe(false);
    await expect(page.locator('#save_card').isVisible()).resolves.toBe(false);
    const csc = page.locator('#saved_security_code');
    await expect(csc.isVisible()).resolves.toBe(true);
    await expect(csc.getAttribute('autocomplete')).resolves.toBe('cc-csc');
    await expectAccessible(page, 'saved cards en');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'card-saved-desktop-light.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'card-saved-phone-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });
    // "a new card" brings the card fields back; the saved card again hides them
    await page.locator('#saved-new').check();
    await expect(page.locator('#card').isVisible()).resolves.toBe(true);
    await expect(csc.isVisible()).resolves.toBe(false);
    await radios.first().check();
    // without the security code: nothing is sent, the problem is said next to the field and in the summary
    await page.locator('#pay-button').click();
    await expect(page.locator('#saved_security_code-error').textContent()).resolves.toBe(t('en', 'error.csc', { digits: 3 }));
    await expect(page.locator('#error-summary').isVisible()).resolves.toBe(true);
    expect(page.url()).not.toMatch(/\/result$/);
    await csc.fill(TEST_SECURITY_CODE);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/result$/);
    await expect(page.locator('#result-heading').textContent()).resolves.toBe(t('en', 'result.approved'));
    await page.context().close();
  });

  it('then another shopper and an unproven shopper_id see no saved card, and the unproven one no consent box', async () => {
    await saveCard('browser-shopper-2');
    const other = await cardPage(proven('browser-shopper-3'));
    await expect(savedRadios(other).count()).resolves.toBe(0);
    await expect(other.locator('#save_card').isVisible()).resolves.toBe(true);
    // the consent follows the card it is about (below its fields), as Stripe Checkout places it
    const [code, consentBox] = await Promise.all([
      other.locator('#security_code').boundingBox(),
      other.locator('#save_card').boundingBox(),
    ]);
    expect(consentBox!.y).toBeGreaterThan(code!.y);
    await other.context().close();
    const unproven = await cardPage({ shopper_id: 'browser-shopper-2', shopper_signature: '0'.repeat(64) });
    await expect(savedRadios(unproven).count()).resolves.toBe(0);
    await expect(unproven.locator('#save_card').count()).resolves.toBe(0);
    await expect(unproven.locator('#card').isVisible()).resolves.toBe(true);
    await unproven.context().close();
  });

  it('then the shopper removes a saved card on the page, and the merchant another through /v1/deleteCard', async () => {
    await saveCard('browser-shopper-4');
    const page = await cardPage(proven('browser-shopper-4'));
    await expect(savedRadios(page).count()).resolves.toBe(1);
    const label = (await page.locator('label[for^="saved-card_"]').textContent())!;
    await page.getByRole('button', { name: t('en', 'saved.remove', { card: label }) }).click();
    await page.waitForLoadState();
    await expect(savedRadios(page).count()).resolves.toBe(0);
    await expect(page.locator('#card').isVisible()).resolves.toBe(true);
    await page.context().close();

    await saveCard('browser-shopper-4', CARDS.approvedMastercard);
    const again = await cardPage(proven('browser-shopper-4'));
    const cardId = (await savedRadios(again).first().getAttribute('value'))!;
    await again.context().close();
    expect(await deleteThroughApi('browser-shopper-4', cardId)).toBe(200);
    const after = await cardPage(proven('browser-shopper-4'));
    await expect(savedRadios(after).count()).resolves.toBe(0);
    await after.context().close();
  });

  it('then without JavaScript the shopper still pays with a saved card, and a new card left empty is named by the server', async () => {
    await saveCard('browser-shopper-6');
    const page = await w.newPage({ javaScriptEnabled: false });
    await page.goto(await w.checkoutUrl({ default_lang: 'en', open3d: 'no3DS', ...proven('browser-shopper-6') }));
    const radios = savedRadios(page);
    await expect(radios.count()).resolves.toBe(1);
    await expect(radios.first().isChecked()).resolves.toBe(true);
    // the page as sent: the new card's empty fields are shown beside the saved card, and must not stop the form
    await page.locator('#saved_security_code').fill(TEST_SECURITY_CODE);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/result$/, { timeout: 5_000 });
    await expect(page.locator('#result-heading').textContent()).resolves.toBe(t('en', 'result.approved'));
    // a new card chosen and left empty: the server answers the form again, naming the card number
    await page.goto(await w.checkoutUrl({ default_lang: 'en', open3d: 'no3DS', ...proven('browser-shopper-6') }));
    await page.locator('#saved-new').check();
    await page.locator('#pay-button').click();
    await page.waitForLoadState();
    await expect(page.locator('#card-error').textContent()).resolves.not.toBe('');
    await expect(page.locator('#error-summary').isVisible()).resolves.toBe(true);
    await page.context().close();
  });

  it('then the saved-cards page in Arabic reads right to left with no serious accessibility violation', async () => {
    await saveCard('browser-shopper-5', CARDS.approved, 'ar');
    const page = await cardPage(proven('browser-shopper-5'), 'ar');
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
    await expect(page.locator('#saved-cards-title').textContent()).resolves.toBe(t('ar', 'saved.heading'));
    await expectAccessible(page, 'saved cards ar');
    await page.context().close();
  });
});

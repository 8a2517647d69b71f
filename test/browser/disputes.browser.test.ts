import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { MERCHANT_ID } from '../support/gateway.js';
import { launchBrowser } from '../support/browser.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { CARDS } from '../support/cards.js';
import { jobOf } from '../support/jobs.js';
import { portalMerchants, PORTAL } from '../support/portal.js';
import { seriousViolations } from '../support/axe.js';
import { join } from 'node:path';
import { SCREENSHOT_DIR } from '../support/paths.js';
import { commitDisputeChange } from '../../src/core/disputes/write.js';
import { emptyEvidence } from '../../src/core/records/dispute-record.js';
import { gatewayOnRedis } from '../support/gateway-on-redis.js';

const gw = gatewayOnRedis('disputes-browser', async () => ({ merchants: await portalMerchants() }), true);
let gateway: string;
let browser: Browser;
/** what the browser refused under the pages' CSP: must stay empty */
const cspViolations: string[] = [];

beforeAll(async () => {
  gateway = gw.url;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function disputedPayment(card: string): Promise<string> {
  const paid = await pay(gw.app, { card });
  await postBatch(gw.app, 'capture', [ref(paid)]);
  await jobOf(gw, 'dispute-steps').runOnce();
  return `${paid.transaction_id}-D01`;
}

async function signedInPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
  });
  await page.goto(`${gateway}/portal/login`);
  await page.locator('#email').fill(PORTAL.admin.email);
  await page.locator('#password').fill(PORTAL.admin.password);
  await page.locator('main button[type="submit"]').click();
  // sign-in opens the home (docs/portal.md#home)
  await page.waitForURL(`${gateway}/portal`);
  return page;
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect(cspViolations).toEqual([]);
}

describe('disputes in the portal, in Chromium', () => {
  it('when an admin opens a dispute from the list, saves a draft and submits evidence, then it is under review; another one accepted is lost; every page axe-clean', async () => {
    const answered = await disputedPayment(CARDS.disputeFraud);
    const accepted = await disputedPayment(CARDS.disputeNotReceived);
    const page = await signedInPage();

    await page.getByRole('link', { name: 'Disputes' }).click();
    await page.waitForURL(/\/portal\/disputes$/);
    expect(await page.locator('#disputes tbody tr').count()).toBe(2);
    await expectAccessible(page);

    await page.getByRole('link', { name: answered }).click();
    await page.waitForURL(new RegExp(`/portal/disputes/${answered}$`));
    await expectAccessible(page);
    await page.getByLabel('Product description').fill('Blue T-shirt, size M');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(new RegExp(`/portal/disputes/${answered}$`));
    expect(await page.locator('#dispute-status').textContent()).toBe('Needs a response');
    expect(await page.getByLabel('Product description').inputValue()).toBe('Blue T-shirt, size M');
    await page.getByLabel('Shipping and tracking').fill('TRACK-0001');
    await page.getByLabel('Other evidence').fill('winning_evidence: signed delivery receipt');
    await page.getByRole('button', { name: 'Submit evidence' }).click();
    await page.waitForURL(new RegExp(`/portal/disputes/${answered}$`));
    expect(await page.locator('#dispute-status').textContent()).toBe('Under review');
    expect(await page.locator('[role="status"]').textContent()).toContain('under_review');
    await expectAccessible(page);
    expect((await gw.deps.store.getDispute(MERCHANT_ID, answered))!.evidence.shipping_tracking).toBe('TRACK-0001');

    await page.goto(`${gateway}/portal/disputes/${accepted}`);
    await page.getByRole('button', { name: 'Accept the dispute' }).click();
    await page.waitForURL(new RegExp(`/portal/disputes/${accepted}$`));
    expect(await page.locator('#dispute-status').textContent()).toBe('Lost');
    await expectAccessible(page);
    expect((await gw.deps.store.getDispute(MERCHANT_ID, accepted))!.status).toBe('lost');

    // neither is listed as open any more needing an answer: the accepted one is gone, the other under review
    await page.goto(`${gateway}/portal/disputes`);
    expect(await page.locator('#disputes tbody tr').count()).toBe(1);
    await expectAccessible(page);
  });

  it('when the disputes list and a dispute page (its evidence sent, no answer yet) are read in English and Arabic, light and dark, then each is axe-clean and Arabic reads right to left', async () => {
    const id = await disputedPayment(CARDS.disputeFraud);
    // evidence recorded as sent by a process that died before the acquirer answered: the page's notice shows
    const d = (await gw.deps.store.getDispute(MERCHANT_ID, id))!;
    const evidence = { ...emptyEvidence(), uncategorized_text: 'signed delivery receipt' };
    const payment = (await gw.deps.store.getPayment(MERCHANT_ID, d.transaction_id))!;
    const marked = { ...d, evidence, sent: [{ act: 'evidence' as const, at: gw.deps.clock.now(), n: 1, evidence }] };
    const account = gw.deps.merchants.find(MERCHANT_ID, d.account_id)!;
    expect(await commitDisputeChange(gw.deps, account, payment, { before: d, steps: [marked] }, gw.deps.clock.now())).toBe('applied');
    const page = await signedInPage();
    for (const lang of ['en', 'ar'])
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        for (const path of [`/portal/disputes?lang=${lang}`, `/portal/disputes/${id}?lang=${lang}`]) {
          await page.goto(`${gateway}${path}`);
          expect(await page.locator('html').getAttribute('lang'), path).toBe(lang);
          expect(await page.locator('html').getAttribute('dir'), path).toBe(lang === 'ar' ? 'rtl' : 'ltr');
          await expectAccessible(page);
        }
        expect(await page.locator('p.awaiting').count()).toBe(1);
        if (colorScheme === 'light') {
          await page.screenshot({ path: join(SCREENSHOT_DIR, `portal-dispute-${lang}-desktop.png`), fullPage: true });
          await page.setViewportSize({ width: 390, height: 844 });
          await page.screenshot({ path: join(SCREENSHOT_DIR, `portal-dispute-${lang}-phone.png`), fullPage: true });
          await page.setViewportSize({ width: 1280, height: 900 });
        }
      }
  });
});

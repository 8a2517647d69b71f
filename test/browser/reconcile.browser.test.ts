import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { MERCHANT_ID } from '../support/gateway.js';
import { launchBrowser } from '../support/browser.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { portalMerchants, PORTAL } from '../support/portal.js';
import { seriousViolations } from '../support/axe.js';
import { reconcilePass } from '../support/reconcile.js';
import { SCREENSHOT_DIR } from '../support/paths.js';
import { gatewayOnRedis } from '../support/gateway-on-redis.js';

const gw = gatewayOnRedis('reconcile-browser', async () => ({ merchants: await portalMerchants() }), true);
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

async function signIn(page: Page): Promise<void> {
  await page.goto(`${gateway}/portal/login`);
  await page.locator('#email').fill(PORTAL.admin.email);
  await page.locator('#password').fill(PORTAL.admin.password);
  await page.locator('main button[type="submit"]').click();
  // sign-in opens the home (docs/portal.md#home)
  await page.waitForURL(`${gateway}/portal`);
}

describe('when reconciliation has found a discrepancy on a payment', () => {
  it('then its page says what differs in the history, in English and Arabic, and passes axe', async () => {
    const paid = await pay(gw.app, { amount: '50.00' });
    await postBatch(gw.app, 'capture', [ref(paid, { amount: '50.00' })]);
    await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '20.00', refund_reason: 'one returned' })]);
    // a refund made at the sandbox acquirer directly, under the next refund number: the gateway never recorded it
    const p = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    const record = {
      op: 'refund',
      connectorRef: p.connector_ref,
      amount: 2000,
      currency: 'USD',
      outcome: { ok: true, connectorRef: 're_direct' },
    };
    await gw.deps.store.ledgerOf!(MERCHANT_ID).ledgerRecord(`${paid.transaction_id}-02`, JSON.stringify(record));
    expect(await reconcilePass(gw)).toMatchObject({ discrepancies: 1 });

    for (const locale of ['en-US', 'ar']) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale });
      try {
        const page = await context.newPage();
        page.on('console', (m) => {
          if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
        });
        await signIn(page);
        await page.goto(`${gateway}/portal/payments/${paid.transaction_id}`);
        const line = page.locator('#history li.discrepancy');
        await expect.poll(() => line.count()).toBe(1);
        expect(await line.isVisible()).toBe(true);
        const text = await line.innerText();
        if (locale === 'ar') expect(text).toContain('المطابقة');
        else expect(text).toContain('Reconciliation: the acquirer (sandbox) refunded $40.00; the gateway records $20.00 refunded');
        expect(await seriousViolations(page)).toEqual([]);
        expect(cspViolations).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOT_DIR, `portal-payment-discrepancy-${locale}.png`), fullPage: true });
      } finally {
        await context.close();
      }
    }
  }, 120_000);
});

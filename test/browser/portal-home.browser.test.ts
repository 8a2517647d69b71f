import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { makeGateway, type TestGateway } from '../support/gateway.js';
import { launchBrowser } from '../support/browser.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { CARDS } from '../support/cards.js';
import { jobOf } from '../support/jobs.js';
import { portalMerchants, PORTAL } from '../support/portal.js';
import { seriousViolations } from '../support/axe.js';
import { SCREENSHOT_DIR } from '../support/paths.js';

let redis: RedisServer;
let gw: TestGateway;
let server: Server;
let gateway: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
const cspViolations: string[] = [];
const DAY = 86_400_000;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  redis = await startRedis('portal-home-browser');
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(Date.UTC(2026, 10, 10, 9, 0, 0));
  const merchants = await portalMerchants();
  (merchants.merchants[0]!.accounts[0]! as unknown as Record<string, unknown>).deposit_balance = { USD: 10_000_000 };
  gw = makeGateway({ name: 'portal-home-browser', redisUrl: redis.url, merchants, clock, env: { BASE_URL: gateway } });
  server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(port, '127.0.0.1', () => resolve(s));
  });
  // twelve days of business in two currencies: approvals, declines, refunds and a dispute
  for (let d = 0; d < 12; d++) {
    const paid = await pay(gw.app, { amount: `${20 + d * 7}.00` });
    await postBatch(gw.app, 'capture', [ref(paid)]);
    if (d % 3 === 0) await pay(gw.app, { card: CARDS.declined, amount: '15.00' });
    if (d % 4 === 1) await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '5.00', refund_reason: 'returned' })]);
    if (d % 2 === 0) await pay(gw.app, { currency: 'JPY', amount: `${1000 + d * 300}` });
    if (d === 6) {
      const disputed = await pay(gw.app, { card: CARDS.disputeFraud, amount: '45.00' });
      await postBatch(gw.app, 'capture', [ref(disputed)]);
      await jobOf(gw, 'dispute-steps').runOnce();
    }
    clock.advance(DAY);
  }
  browser = await launchBrowser();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });
  await gw?.close();
  await redis?.stop();
});

async function signedInPage(viewport: { width: number; height: number }, lang: string): Promise<Page> {
  const context = await browser.newContext({ viewport, locale: lang });
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
  });
  await page.goto(`${gateway}/portal/login?lang=${lang}`);
  await page.locator('#email').fill(PORTAL.admin.email);
  await page.locator('#password').fill(PORTAL.admin.password);
  await page.locator('main button[type="submit"]').click();
  await page.waitForURL(`${gateway}/portal`);
  return page;
}

const sideways = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

describe('when a merchant opens the portal home in a real browser', () => {
  it.each([
    ['en', 'desktop', DESKTOP],
    ['en', 'phone', PHONE],
    ['ar', 'desktop', DESKTOP],
    ['ar', 'phone', PHONE],
  ] as const)('then in %s on a %s its charts are drawn without script, described, tabled and axe-clean', async (lang, name, viewport) => {
    const page = await signedInPage(viewport, lang);
    expect(await page.locator('html').getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
    // two currencies, five charts each, every chart an image with a name and a description
    await expect.poll(() => page.locator('section.home-currency').count()).toBe(2);
    const charts = page.locator('svg[role="img"]');
    expect(await charts.count()).toBe(10);
    for (const svg of await charts.all()) {
      const [title, desc] = (await svg.getAttribute('aria-labelledby'))!.split(' ');
      expect((await page.locator(`#${title}`).textContent())!.trim()).not.toBe('');
      expect((await page.locator(`#${desc}`).textContent())!.trim()).not.toBe('');
    }
    expect(await page.locator('script:not([src])').count()).toBe(0);
    expect(await page.locator('[style]').count()).toBe(0);
    // 30 days a table, zero on the days with nothing
    expect(await page.locator('details.chart-table').first().locator('tbody tr').count()).toBe(30);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    const file = `portal-home-${name}${lang === 'en' ? '' : `-${lang}`}`;
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${file}.png`), fullPage: true });
    // what the first screen shows, at full size
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${file}-top.png`) });
    // a table opened is readable too, and the range switches by a plain form
    await page.locator('details.chart-table summary').first().click();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#days').selectOption('7');
    await page.locator('form.range-form button[type="submit"]').first().click();
    await page.waitForURL(/days=7/);
    expect(await page.locator('details.chart-table').first().locator('tbody tr').count()).toBe(7);
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { makeGateway, MERCHANT_ID, type TestGateway } from '../support/gateway.js';
import { launchBrowser } from '../support/browser.js';
import { pay, postQuery, type Paid } from '../support/operations.js';
import { NotificationReceiver } from '../support/receiver.js';
import { jobOf } from '../support/jobs.js';
import { portalMerchants, PORTAL } from '../support/portal.js';
import { clearLoginFailures } from '../../src/core/portal/throttle.js';
import { seriousViolations } from '../support/axe.js';
import { SCREENSHOT_DIR } from '../support/paths.js';

let redis: RedisServer;
let gw: TestGateway;
let server: Server;
let gateway: string;
let browser: Browser;
let receiver: NotificationReceiver;
const contexts: BrowserContext[] = [];
/** what the browser refused under the pages' CSP (inline script or style, foreign resources): must stay empty */
const cspViolations: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  redis = await startRedis('portal-browser');
  gw = makeGateway({ name: 'portal-browser', redisUrl: redis.url, merchants: await portalMerchants(), env: { BASE_URL: gateway } });
  server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(port, '127.0.0.1', () => resolve(s));
  });
  receiver = await new NotificationReceiver([200]).start();
  browser = await launchBrowser();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await receiver?.stop();
  await new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });
  await gw?.close();
  await redis?.stop();
});

async function newPage(width = 1280, height = 900): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

async function signIn(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${gateway}/portal/login`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect(cspViolations).toEqual([]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOT_DIR, `portal-${name}.png`), fullPage: true });

/** The payment's status as the merchant's /v1/retrievalTrans tells it. */
async function apiStatus(p: Paid): Promise<string> {
  const res = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: p.transaction_id });
  return res.body.orders_list[0].payment_status as string;
}

describe('when an admin works in the portal with a real browser', () => {
  it('then they sign in, search, open a payment, capture and refund part, cancel another and resend a notification', async () => {
    const first = await pay(gw.app, { notify_url: receiver.url, amount: '20.00' });
    const second = await pay(gw.app, { notify_url: receiver.url });
    await jobOf(gw, 'notification-delivery').runOnce();
    const page = await newPage();

    await page.goto(`${gateway}/portal/login`);
    await expectAccessible(page);
    await shot(page, 'login');
    await page.getByLabel('E-mail').fill(PORTAL.admin.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The e-mail or password is not correct.');
    await expectAccessible(page);
    expect(new URL(page.url()).pathname).toBe('/portal/login');

    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    await expectAccessible(page);
    await page.getByLabel('Order number').fill(first.order_no);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/order_no=/);
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(1);
    await shot(page, 'payments');
    await page.getByRole('link', { name: first.transaction_id }).click();
    await page.waitForURL(`${gateway}/portal/payments/${first.transaction_id}`);
    await expectAccessible(page);

    await page.getByLabel('Amount to capture').fill('15.00');
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Done: V0000:Success');
    expect(await page.locator('#amount-captured').textContent()).toBe('15.00 USD');
    await page.getByLabel('Amount to refund').fill('4.00');
    await page.getByLabel('Reason (optional)').fill('damaged box');
    await page.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => page.locator('#amount-refunded').textContent()).toBe('4.00 USD');
    // the oldest notification (the payment's own, delivered already) is sent again
    await page.getByRole('button', { name: 'Resend' }).last().click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('queued for delivery now');
    await expectAccessible(page);
    await shot(page, 'payment');

    await page.goto(`${gateway}/portal/payments/${second.transaction_id}`);
    await page.getByRole('button', { name: 'Cancel the payment' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Done: V0000:Success');

    // what the merchant's API sees
    expect(await apiStatus(first)).toBe('3200');
    expect(await apiStatus(second)).toBe('4100');
    const refunds = await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: first.transaction_id });
    expect(refunds.body.refund_orders).toMatchObject([{ refund_amount: '4.00', refund_reason: 'damaged box' }]);
    const before = receiver.received.length;
    await jobOf(gw, 'notification-delivery').runOnce();
    const types = receiver.received.slice(before).map((r) => r.fields.notify_type);
    expect(types).toEqual(expect.arrayContaining(['capture', 'refund', 'cancel', 'payment']));
  });

  it('then on a 320 px phone the pages fit the width and pass axe', async () => {
    const p = await pay(gw.app);
    const page = await newPage(320, 700);
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    for (const path of ['/portal/payments', `/portal/payments/${p.transaction_id}`]) {
      await page.goto(`${gateway}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await expectAccessible(page);
    }
    await shot(page, 'payment-phone');
  });
});

describe('when someone may not act', () => {
  it('then a viewer has no action forms and a forged POST is refused', async () => {
    const p = await pay(gw.app);
    const page = await newPage();
    await signIn(page, PORTAL.viewer);
    await page.waitForURL(`${gateway}/portal/payments`);
    await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    await expectAccessible(page);
    expect(await page.locator('form[action$="/capture"], form[action$="/cancel"], form[action$="/refund"]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Capture' }).count()).toBe(0);
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    const forged = await page.request.post(`${gateway}/portal/payments/${p.transaction_id}/capture`, {
      form: { _csrf: token, amount: '10.00' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    expect(await apiStatus(p)).toBe('3000');
  });

  it('then a POST without the CSRF token is refused', async () => {
    const p = await pay(gw.app);
    const page = await newPage();
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    const res = await page.request.post(`${gateway}/portal/payments/${p.transaction_id}/cancel`, { form: {}, maxRedirects: 0 });
    expect(res.status()).toBe(403);
    expect(await apiStatus(p)).toBe('3000');
  });

  it("then repeated wrong passwords are throttled, and a merchant cannot open another merchant's payment", async () => {
    const p = await pay(gw.app);
    const page = await newPage();
    for (let i = 0; i < 5; i++) await signIn(page, { email: PORTAL.other.email, password: `wrong-${i}` });
    await signIn(page, PORTAL.other);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Too many wrong passwords');
    expect(new URL(page.url()).pathname).toBe('/portal/login');
    await clearLoginFailures(gw.deps, PORTAL.other.email);
    await signIn(page, PORTAL.other);
    await page.waitForURL(`${gateway}/portal/payments`);
    const res = await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('body').textContent()).not.toContain(p.order_no);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.status).toBe('3000');
  });
});

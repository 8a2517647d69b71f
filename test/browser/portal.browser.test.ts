import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { makeGateway, MERCHANT_ID, type TestGateway } from '../support/gateway.js';
import { launchBrowser } from '../support/browser.js';
import { pay, postBatch, postQuery, ref, type Paid } from '../support/operations.js';
import { CARDS } from '../support/cards.js';
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
const servers: Server[] = [];
/** what the browser refused under the pages' CSP (inline script or style, foreign resources): must stay empty */
const cspViolations: string[] = [];

async function listen(app: TestGateway['app']): Promise<{ server: Server; origin: string }> {
  const port = await freePort();
  const s = await new Promise<Server>((resolve) => {
    const started = app.listen(port, '127.0.0.1', () => resolve(started));
  });
  servers.push(s);
  return { server: s, origin: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  redis = await startRedis('portal-browser');
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  gw = makeGateway({ name: 'portal-browser', redisUrl: redis.url, merchants: await portalMerchants(), env: { BASE_URL: gateway } });
  server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(port, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  receiver = await new NotificationReceiver([200]).start();
  browser = await launchBrowser();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await receiver?.stop();
  for (const s of servers) {
    await new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  }
  await gw?.close();
  await redis?.stop();
});

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };

async function newPage(viewport = DESKTOP, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport, ...options });
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

/**
 * Signs in through the form by its fields' ids, so it works whatever the page's language. A sign-in that
 * opens the home (docs/portal.md#home) goes on to the payments, where these tests start.
 */
async function signIn(page: Page, user: { email: string; password: string }, origin = gateway): Promise<void> {
  await page.goto(`${origin}/portal/login`);
  await page.locator('#email').fill(user.email);
  await page.locator('#password').fill(user.password);
  const answered = page.waitForEvent('framenavigated', (f) => f === page.mainFrame());
  await page.locator('main button[type="submit"]').click();
  await answered;
  if (new URL(page.url()).pathname === '/portal') await page.goto(`${origin}/portal/payments`);
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect(cspViolations).toEqual([]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOT_DIR, `portal-${name}.png`), fullPage: true });

/** How far the page scrolls sideways beyond the viewport (0 when it fits). */
const sideways = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

/** Panels and tables that stick out of the page's column (a table wider than its place, in either direction). */
const outOfColumn = (page: Page) =>
  page.evaluate(() => {
    const main = document.querySelector('main')!.getBoundingClientRect();
    return [...document.querySelectorAll('main .panel, main table')]
      .filter((el) => {
        const box = el.getBoundingClientRect();
        return box.left < main.left - 0.5 || box.right > main.right + 0.5;
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  });

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
    await page.getByLabel('Order number', { exact: true }).fill(first.order_no);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/order_no=/);
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: first.transaction_id }).click();
    await page.waitForURL(`${gateway}/portal/payments/${first.transaction_id}`);
    await expectAccessible(page);

    await page.getByLabel('Amount to capture').fill('15.00');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Captured $15.00.');
    expect(await page.locator('#amount-captured').textContent()).toBe('$15.00');
    await page.getByLabel('Amount to refund').fill('4.00');
    await page.getByLabel('Reason (optional)').fill('damaged box');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect.poll(() => page.locator('#amount-refunded').textContent()).toBe('$4.00');
    // the oldest notification (the payment's own, delivered already) is sent again
    await page.getByRole('button', { name: 'Resend' }).last().click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('queued for delivery now');
    await expectAccessible(page);

    await page.goto(`${gateway}/portal/payments/${second.transaction_id}`);
    await page.getByRole('button', { name: 'Cancel the payment' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the payment' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Payment cancelled: the authorisation is released');
    expect(await page.locator('#headline').textContent()).toBe('Payment cancelled');

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

  it('then a declined payment is worded as declined everywhere, never as authorised', async () => {
    const declined = await pay(gw.app, { card: CARDS.declined, amount: '25.00' });
    const page = await newPage();
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    const row = page.locator('table.payments tbody tr', { has: page.getByRole('link', { name: declined.transaction_id }) });
    expect(await row.locator('.status').textContent()).toBe('Declined');
    await page.goto(`${gateway}/portal/payments/${declined.transaction_id}`);
    expect(await page.locator('h1').textContent()).toBe('Payment declined');
    expect(await page.locator('.lead').innerText()).toMatch(/Amount declined\s+\$25\.00\s+Declined\s+\d{4}:.*Nothing was charged\./);
    expect(await page.locator('main').innerText()).not.toMatch(/\bAuthori[sz]ed\b/);
    await expectAccessible(page);
  });

  it('then a copy button copies the whole identifier, works from the keyboard and announces "Copied"', async () => {
    const p = await pay(gw.app, { order_no: `ORD-${'x'.repeat(40)}-${Date.now()}` });
    const page = await newPage(PHONE, { permissions: ['clipboard-read', 'clipboard-write'] });
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    // the long order number is cut with an ellipsis on the phone, yet whole in the page
    const order = page.locator('.ids .id-text', { hasText: p.order_no });
    expect(await order.evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).textOverflow === 'ellipsis')).toBe(true);
    expect(await sideways(page)).toBeLessThanOrEqual(0);

    const copy = page.getByRole('button', { name: 'Copy Transaction ID' });
    await copy.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(p.transaction_id);
    await page.getByRole('button', { name: 'Copy Order number' }).press('Space');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(p.order_no);
    await expectAccessible(page);
  });

  it('then the portal speaks the chosen language, right to left in Arabic, and keeps the choice', async () => {
    const p = await pay(gw.app, { card: CARDS.declined });
    const page = await newPage(DESKTOP, { locale: 'ja-JP' });
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    expect(await page.locator('h1').textContent()).toBe('決済');
    await page.getByRole('link', { name: 'العربية' }).click();
    await page.waitForURL(/lang=ar/);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('h1').textContent()).toBe('المدفوعات');
    await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    expect(await page.locator('h1').textContent()).toBe('تم رفض الدفعة');
    await expectAccessible(page);
  });
});

describe('when a notification endpoint keeps failing', () => {
  it('then the payment page shows one summary per notification (count, first and last, next retry), not a line per attempt', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 9, 0, 0));
    const failing = await new NotificationReceiver([503]).start();
    const timed = makeGateway({ name: 'portal-browser-clock', redisUrl: redis.url, merchants: await portalMerchants(), clock });
    const { origin } = await listen(timed.app);
    try {
      const p = await pay(timed.app, { notify_url: failing.url });
      const delivery = jobOf(timed, 'notification-delivery');
      for (let i = 0; i < 12; i++) {
        await delivery.runOnce();
        clock.advance(30 * 60_000);
      }
      expect(failing.received.length).toBe(12);
      const page = await newPage();
      await signIn(page, PORTAL.admin, origin);
      await page.waitForURL(`${origin}/portal/payments`);
      await page.goto(`${origin}/portal/payments/${p.transaction_id}`);
      const note = page.locator('article.notification');
      expect(await note.count()).toBe(1);
      expect(await note.locator('.delivery-status').textContent()).toBe('Retrying');
      expect(await note.locator('.attempts').textContent()).toBe('12');
      expect(await note.locator('.first-attempt').textContent()).toMatch(/^2026-11-24 09:00:00 · HTTP 503$/);
      expect(await note.locator('.last-attempt').textContent()).toMatch(/^2026-11-24 14:30:00 · HTTP 503$/);
      expect(await note.locator('.next-retry').textContent()).toMatch(/^2026-11-24 \d\d:\d\d:\d\d$/);
      expect(await note.locator('details.tries').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      const history = await page.locator('#history li').allInnerTexts();
      expect(history.filter((l) => /Notification/.test(l))).toHaveLength(2);
      expect(history.at(-1)).toMatch(/Notification not delivered yet: Payment result \(attempts: 12; last: HTTP 503; next retry /);
      await expectAccessible(page);
      await shot(page, 'payment-retrying');
    } finally {
      await failing.stop();
      await timed.close();
    }
  });
});

describe('when the list and a payment are looked at on every screen', () => {
  it('then at 375 px the filters fold behind their summary, payments are cards, and nothing scrolls sideways', async () => {
    const made = [await pay(gw.app, { order_no: `ORD-phone-${'y'.repeat(40)}` }), await pay(gw.app, { card: CARDS.declined })];
    for (const locale of ['en-US', 'ar']) {
      const page = await newPage(PHONE, { locale });
      await signIn(page, PORTAL.admin);
      await page.waitForURL(`${gateway}/portal/payments`);
      expect(await page.locator('#filters').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      const firstCard = page.locator('table.payments tbody tr').first();
      expect(await firstCard.evaluate((tr) => getComputedStyle(tr).display)).toBe('grid');
      // the first result is on the first screen, above the fold
      const box = (await firstCard.boundingBox())!;
      expect(box.y + box.height).toBeLessThan(PHONE.height);
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(375);
      // the filters open on demand, and still fit
      await page.locator('#filters > summary').click();
      expect(await page.locator('#filters').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(375);
      // the form's controls line up: a select is as tall as a text input and a date input
      const heights = await page.evaluate(() =>
        ['#order_no', '#status', '#from', '#account'].map((s) => document.querySelector(s)!.getBoundingClientRect().height),
      );
      expect(new Set(heights).size, `${locale} control heights ${heights.join(', ')}`).toBe(1);
      // status pills stay on one line, whatever the language
      const pills = await page.locator('table.payments .status').evaluateAll((els) =>
        els.map((el) => ({
          text: el.textContent,
          lines: Math.round(el.getBoundingClientRect().height / Number.parseInt(getComputedStyle(el).lineHeight, 10)),
        })),
      );
      expect(pills.length).toBeGreaterThan(0);
      expect(pills.every((p) => Number.isFinite(p.lines))).toBe(true);
      expect(pills.filter((p) => p.lines > 1)).toEqual([]);
      for (const path of [
        `/portal/payments/${made[0]!.transaction_id}`,
        `/portal/payments/${made[1]!.transaction_id}`,
        '/portal/refunds',
        '/portal/payouts',
        '/portal/subscriptions',
        '/portal/account/password',
      ]) {
        await page.goto(`${gateway}${path}`);
        expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), `${locale} ${path}`).toBeLessThanOrEqual(375);
      }
    }
  });

  it('then the list and a payment pass axe in English and Arabic, light and dark, on a desktop and a phone, and are photographed', async () => {
    const story = await pay(gw.app, { notify_url: receiver.url, amount: '120.00' });
    await postBatch(gw.app, 'capture', [ref(story, { amount: '120.00' })]);
    await postBatch(gw.app, 'refund', [ref(story, { amount: '120.00', refund_amount: '20.00', refund_reason: 'one item returned' })]);
    await pay(gw.app, { card: CARDS.declined, amount: '25.00' });
    await pay(gw.app, { shopper_email: 'shopper+review@example.com', amount: '310.00' });
    await jobOf(gw, 'notification-delivery').runOnce();
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [screen, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        for (const locale of ['en-US', 'ar']) {
          const page = await newPage(viewport, { colorScheme, locale });
          await signIn(page, PORTAL.admin);
          await page.waitForURL(`${gateway}/portal/payments`);
          const suffix = `${screen}-${colorScheme}${locale === 'ar' ? '-ar' : ''}`;
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          expect(await outOfColumn(page), suffix).toEqual([]);
          await expectAccessible(page);
          if (locale !== 'ar' || (screen === 'desktop' && colorScheme === 'light')) await shot(page, `payments-${suffix}`);
          await page.goto(`${gateway}/portal/payments/${story.transaction_id}`);
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          expect(await outOfColumn(page), suffix).toEqual([]);
          await expectAccessible(page);
          if (locale !== 'ar' || (screen === 'desktop' && colorScheme === 'light')) await shot(page, `payment-${suffix}`);
        }
      }
    }
  }, 180_000);
});

describe('when an admin meets the edges of the portal', () => {
  /** The element that has the focus, by its id or first class. */
  const focused = (page: Page) =>
    page.evaluate(() => document.activeElement?.id || document.activeElement?.classList[0] || document.activeElement?.tagName);

  it('then results are words with amounts in their currency, a bad amount is named by its label and focused, and the audit shows the currency', async () => {
    const p = await pay(gw.app, { amount: '40.00' });
    const page = await newPage();
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);

    await page.getByLabel('Amount to capture').fill('40.001');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await expect.poll(() => focused(page)).toBe('error-summary');
    const summary = (await page.locator('.error-summary').textContent())!;
    expect(summary).toContain('Amount to capture: must be an amount such as 10.00');
    expect(summary).not.toMatch(/\bamount: must/);
    await expectAccessible(page);

    await page.getByLabel('Amount to capture').fill('40.00');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Captured $40.00.');
    expect(await focused(page)).toBe('notice');
    await page.getByLabel('Amount to refund').fill('10.00');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Refunded $10.00.');
    await page.getByLabel('Amount to refund').fill('99.00');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Not done: Refund amount exceeds the amount left to refund');
    const audit = (await page.locator('#audit').textContent())!;
    expect(audit).toContain('40.00 USD');
    expect(audit).toContain('10.00 USD');
    expect(audit).not.toMatch(/Refund 10\.00(?! USD)/i);
    await expectAccessible(page);
    await shot(page, 'worded-results');
  });

  it('then cancelling asks first, keeping the payment changes nothing, and the confirmation passes axe in English and Arabic', async () => {
    const p = await pay(gw.app, { amount: '12.00' });
    const page = await newPage();
    await signIn(page, PORTAL.admin);
    await page.waitForURL(`${gateway}/portal/payments`);
    await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    await page.getByRole('button', { name: 'Cancel the payment' }).click();
    await page.waitForURL(/confirm=cancel/);
    await expect.poll(() => focused(page)).toBe('cancel-confirm');
    expect(await page.locator('#cancel-confirm').textContent()).toContain('The authorisation of $12.00 is voided');
    await expectAccessible(page);
    await shot(page, 'cancel-confirm');
    await page.getByRole('link', { name: 'Keep the payment' }).click();
    await page.waitForURL(`${gateway}/portal/payments/${p.transaction_id}`);
    expect(await apiStatus(p)).toBe('3000');

    await page.goto(`${gateway}/portal/payments/${p.transaction_id}?confirm=cancel&lang=ar`);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await expectAccessible(page);
    await page.locator('#cancel-confirm button[type="submit"]').click();
    await expect.poll(() => apiStatus(p)).toBe('4100');
  });

  it('then an unknown payment says so in words with the way back, a failed sign-in is in the card and focused, and identifiers are whole at 1280 px', async () => {
    const page = await newPage();
    await page.goto(`${gateway}/portal/login`);
    await page.locator('#email').fill(PORTAL.viewer.email);
    await page.locator('#password').fill('not the password');
    await page.locator('main button[type="submit"]').click();
    await expect.poll(() => focused(page)).toBe('error-summary');
    // inside the sign-in card, not across the page above it
    expect(await page.locator('.panel.narrow .error-summary').count()).toBe(1);
    const [card, summary] = await Promise.all([page.locator('.panel.narrow').boundingBox(), page.locator('.error-summary').boundingBox()]);
    expect(summary!.width).toBeLessThanOrEqual(card!.width);
    await expectAccessible(page);
    await shot(page, 'login-failed');

    await clearLoginFailures(gw.deps, PORTAL.viewer.email, '127.0.0.1');
    await signIn(page, PORTAL.viewer);
    await page.waitForURL(`${gateway}/portal/payments`);
    const res = await page.goto(`${gateway}/portal/payments/T-NO-SUCH-PAYMENT`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('No such payment');
    const body = (await page.locator('main').textContent())!;
    expect(body).toContain('There is no payment');
    expect(body).not.toMatch(/NOT_FOUND|transaction_id:|Something is not right/);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Back to payments' }).click();
    await page.waitForURL(`${gateway}/portal/payments`);

    const p = await pay(gw.app, { order_no: `ORDER-WITH-A-LONG-NUMBER-${Date.now()}` });
    await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    const cut = await page.evaluate(() =>
      [...document.querySelectorAll('.ids .id-text')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent),
    );
    expect(cut).toEqual([]);
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
    await clearLoginFailures(gw.deps, PORTAL.other.email, '127.0.0.1');
    await signIn(page, PORTAL.other);
    await page.waitForURL(`${gateway}/portal/payments`);
    const res = await page.goto(`${gateway}/portal/payments/${p.transaction_id}`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('body').textContent()).not.toContain(p.order_no);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))?.status).toBe('3000');
  });
});

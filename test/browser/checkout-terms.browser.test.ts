import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { makeGateway, MERCHANT_ID, SIGN_KEY, testMerchants, type TestGateway } from '../support/gateway.js';
import { launchBrowser, sendHtml, serveLoopback, type LoopbackServer } from '../support/browser.js';
import { checkoutBody, hiddenFields } from '../support/checkout.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';
import { FIELDS, sign } from '../support/sign.js';

/**
 * Finding 1 of issue 12 in a real browser: the loading page a shopper receives holds nothing that signs a
 * new checkout, so the merchant's terms (here: 3-D Secure) hold whatever the shopper does with the page.
 */
let redis: RedisServer;
let gw: TestGateway;
let gatewayServer: Server;
let gateway: string;
let shop: LoopbackServer;
let browser: Browser;

/** The merchant's server: one signed order per ?order=, always with 3-D Secure and its own addresses. */
function orderOf(order: string) {
  return checkoutBody({
    order_no: order,
    open3d: 'do3DS',
    return_url: `${shop.origin}/return`,
    cancel_url: `${shop.origin}/cancel`,
    notify_url: `${shop.origin}/notify`,
  });
}

beforeAll(async () => {
  const [gatewayPort, shopPort] = [await freePort(), await freePort()];
  gateway = `http://127.0.0.1:${gatewayPort}`;
  const merchants = testMerchants();
  (merchants.merchants[0]!.accounts[0]! as { storefront_domains: string[] }).storefront_domains = [`http://127.0.0.1:${shopPort}`];
  redis = await startRedis('checkout-terms-browser');
  gw = makeGateway({ name: 'checkout-terms-browser', redisUrl: redis.url, merchants, env: { BASE_URL: gateway } });
  gatewayServer = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(gatewayPort, '127.0.0.1', () => resolve(s));
  });
  shop = await serveLoopback(async (_req, res, url) => {
    if (url.pathname === '/pay') {
      const answer = await fetch(`${gateway}/v1/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: JSON.stringify(orderOf(url.searchParams.get('order')!)),
      });
      return sendHtml(res, await answer.text(), answer.status);
    }
    if (url.pathname === '/notify') return sendHtml(res, 'ok');
    return sendHtml(res, `<!doctype html><title>Back at the shop</title><h1>${url.pathname}</h1>`);
  }, shopPort);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await new Promise<void>((resolve) => {
    if (!gatewayServer) return resolve();
    gatewayServer.closeAllConnections();
    gatewayServer.close(() => resolve());
  });
  await gw?.close();
  await redis?.stop();
});

describe('when a shopper tries to rewrite the order with the loading page (finding 1)', () => {
  it('then the re-signed checkout is refused, and the merchant session still asks for 3-D Secure', async () => {
    const order = `TERMS-${Date.now()}`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${shop.origin}/pay?order=${order}`);
    await page.waitForURL(new RegExp(`^${gateway}/v1/checkout/${MERCHANT_ID}/cs_`));
    const sessionUrl = page.url();

    // the shopper's copy of the loading page: take its signature and post the order with other terms
    const loading = await (await fetch(`${shop.origin}/pay?order=${order}`)).text();
    const form = Object.fromEntries(hiddenFields(loading));
    expect(form.checkout_token).toBe(sessionUrl.split('/').pop());
    const forged = {
      ...orderOf(order),
      open3d: 'no3DS',
      notify_url: 'https://evil.example/notify',
      return_url: 'https://evil.example/',
      subscription: { contract_name: 'Cheap', contract_amount: '0.01', interval: 'year', interval_count: '1', billing_cycle: 99 },
      encryption_data: form.signInfo,
    };
    for (const signature of [form.signInfo, form.encryption_data]) {
      const res = await fetch(`${gateway}/v1/checkout`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: JSON.stringify({ ...forged, encryption_data: signature }),
      });
      expect(res.status).toBe(401);
    }

    // the shopper pays in the merchant's session: the challenge card meets its 3-D Secure challenge
    await page.locator('#cardholder').fill('Ada Lovelace');
    await page.locator('#card').fill(CARDS.challenge);
    await page.locator('#expiration_month').fill('12');
    await page.locator('#expiration_year').fill('2034');
    await page.locator('#security_code').fill(TEST_SECURITY_CODE);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    await page.locator('#code').fill(CHALLENGE_CODE);
    await page.locator('#verify-button').click();
    await page.waitForURL(new RegExp(`^${shop.origin}/return\\?`));
    const q: Record<string, string> = {
      merchant_id: MERCHANT_ID,
      account_id: '1000001001',
      ...Object.fromEntries(new URL(page.url()).searchParams),
    };
    expect(q.order_status).toBe('1');
    expect(q.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => q[f]),
        SIGN_KEY,
      ),
    );
    const payment = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, '1000001001', order);
    expect(payment).toMatchObject({ notify_url: `${shop.origin}/notify` });
    expect(payment?.threeds.challenge_pending).toBe(false);
    expect(payment?.recurring_id).toBeUndefined();
    await context.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { ACCOUNT_ID, makeGateway, MERCHANT_ID, SIGN_KEY, testMerchants, type TestGateway } from '../support/gateway.js';
import { launchBrowser, sendHtml, serveLoopback, type LoopbackServer } from '../support/browser.js';
import { checkoutBody } from '../support/checkout.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';
import { FIELDS, sign } from '../support/sign.js';
import { SCREENSHOT_DIR } from '../support/paths.js';

let redis: RedisServer;
let gw: TestGateway;
let gatewayServer: Server;
let gateway: string;
let shop: LoopbackServer;
let stranger: LoopbackServer;
let browser: Browser;

/** The merchant's server: signs the checkout, forwards the loading page or mounts the checkout with embed.js. */
function merchantPages(own: () => string) {
  return async (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, url: URL) => {
    const checkout = (accept: string, overrides: Record<string, unknown>) =>
      fetch(`${gateway}/v1/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
        body: JSON.stringify(checkoutBody({ return_url: `${own()}/return`, cancel_url: `${own()}/cancel`, ...overrides })),
      });
    const { open3d = 'do3DS', ...order } = Object.fromEntries(url.searchParams);
    if (url.pathname === '/pay') {
      const answer = await checkout('text/html', { open3d, ...order });
      return sendHtml(res, await answer.text(), answer.status);
    }
    if (url.pathname === '/embed') {
      const answer = (await (await checkout('application/json', { open3d })).json()) as { checkout_url: string };
      return sendHtml(
        res,
        `<!doctype html><html><head><title>Shop</title></head><body><h1>Shop checkout</h1>
        <div id="pay" data-url="${answer.checkout_url}"></div><pre id="result"></pre>
        <script src="${gateway}/public/embed.js"></script><script src="/mount.js"></script></body></html>`,
      );
    }
    if (url.pathname === '/mount.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(`window.mounted = GatewayCheckout.mount(document.getElementById('pay'), {
        url: document.getElementById('pay').dataset.url,
        onResult: function (r) { window.checkoutResult = r; document.getElementById('result').textContent = JSON.stringify(r); },
      });`);
    }
    if (url.pathname === '/return' || url.pathname === '/cancel')
      return sendHtml(res, `<!doctype html><title>Back at the shop</title><h1>${url.pathname}</h1>`);
    return sendHtml(res, 'not found', 404);
  };
}

beforeAll(async () => {
  const [gatewayPort, shopPort] = [await freePort(), await freePort()];
  gateway = `http://127.0.0.1:${gatewayPort}`;
  const merchants = testMerchants();
  (merchants.merchants[0]!.accounts[0]! as { storefront_domains: string[] }).storefront_domains = [`http://127.0.0.1:${shopPort}`];
  redis = await startRedis('checkout-browser');
  gw = makeGateway({ name: 'checkout-browser', redisUrl: redis.url, merchants, env: { BASE_URL: gateway } });
  gatewayServer = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(gatewayPort, '127.0.0.1', () => resolve(s));
  });
  shop = await serveLoopback(
    merchantPages(() => shop.origin),
    shopPort,
  );
  // a page on a foreign origin that frames a checkout whose return addresses are the shop's own (return_domains rule)
  stranger = await serveLoopback(merchantPages(() => shop.origin));
  browser = await launchBrowser();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await stranger?.close();
  await new Promise<void>((resolve) => {
    if (!gatewayServer) return resolve();
    gatewayServer.closeAllConnections();
    gatewayServer.close(() => resolve());
  });
  await gw?.close();
  await redis?.stop();
});

async function newPage(width = 1280, height = 900): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  return context.newPage();
}

/** Fills the card page (in the page itself or in a frame). */
async function fillCard(target: Page | import('playwright-core').FrameLocator, card: string): Promise<void> {
  await target.locator('#cardholder').fill('Ada Lovelace');
  await target.locator('#card').fill(card);
  await target.locator('#expiration_month').fill('12');
  await target.locator('#expiration_year').fill('2034');
  await target.locator('#security_code').fill(TEST_SECURITY_CODE);
}

/** The signed result on the merchant's return address, checked with the test's own signature rule. */
function verifiedResult(address: string): Record<string, string> {
  const q: Record<string, string> = {
    merchant_id: MERCHANT_ID,
    account_id: ACCOUNT_ID,
    ...Object.fromEntries(new URL(address).searchParams),
  };
  expect(q.encryption_data).toBe(
    sign(
      FIELDS.answerPayment.map((f) => q[f]),
      SIGN_KEY,
    ),
  );
  return q;
}

describe('when a shopper pays through the redirect flow in a real browser', () => {
  it('then an approved card reaches the merchant return_url with a signed result that verifies', async () => {
    const page = await newPage();
    await page.goto(`${shop.origin}/pay`);
    await page.waitForURL(new RegExp(`^${gateway}/v1/checkout/${MERCHANT_ID}/cs_`));
    await expect(page.locator('[data-testid=amount]').textContent()).resolves.toContain('$10.00');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'card-page-desktop.png'), fullPage: true });
    await fillCard(page, CARDS.approved);
    await page.locator('#pay-button').click();
    await page.waitForURL(new RegExp(`^${shop.origin}/return\\?`));
    const q = verifiedResult(page.url());
    expect(q.order_status).toBe('1');
    expect(q.result_info).toBe('0000:Success');
    await page.context().close();
  });

  it('then names in any script reach the card page through the loading page exactly as the merchant sent them', async () => {
    // the loading page writes characters beyond Latin-1 as character references (htmlText), Latin-1 as it is
    const order = { default_lang: 'zh', first_name: 'Zoë 李', last_name: 'Łukasiewicz 😀', billing_city: '東京…' };
    // the loading page a merchant forwards (it submits itself at once in the browser: read here)
    const url = `${shop.origin}/pay?${new URLSearchParams(order)}`;
    const html = await (await fetch(url)).text();
    expect(html).toContain('value="Zo\u00eb &#26446;"');
    expect(html).toContain('value="&#321;ukasiewicz &#128512;"');
    expect(html).not.toMatch(/[\u0100-\uffff]/);
    const page = await newPage();
    await page.goto(url);
    // the form post is checked against the stored session field by field: one value read otherwise is refused
    await page.waitForURL(new RegExp(`^${gateway}/v1/checkout/${MERCHANT_ID}/cs_`));
    await expect(page.locator('#cardholder').inputValue()).resolves.toBe('Zoë 李 Łukasiewicz 😀');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('zh-Hans');
    await page.context().close();
  });

  it('then a declined card shows the decline, and the merchant gets order_status 0 when the shopper goes back', async () => {
    const page = await newPage();
    await page.goto(`${shop.origin}/pay`);
    await page.waitForURL(/\/v1\/checkout\//);
    await fillCard(page, CARDS.declined);
    await page.locator('#pay-button').click();
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Payment declined');
    // the session could take another card: nothing leaves for the shop until the shopper chooses
    await expect(page.locator('#retry').isVisible()).resolves.toBe(true);
    await page.locator('#continue').click();
    await page.waitForURL(new RegExp(`^${shop.origin}/return\\?`));
    expect(verifiedResult(page.url()).order_status).toBe('0');
    await page.context().close();
  });

  it('then a card number failing the Luhn check is shown next to its field and nothing is sent', async () => {
    const page = await newPage(390, 844);
    await page.goto(`${shop.origin}/pay`);
    await page.waitForURL(/\/v1\/checkout\//);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'card-page-phone.png'), fullPage: true });
    await fillCard(page, '4242424242424241');
    await page.locator('#pay-button').click();
    await expect(page.locator('#card-error').textContent()).resolves.toBe('This card number is not valid');
    expect(page.url()).toMatch(/\/v1\/checkout\/[^/]+\/cs_\w+$/);
    await page.context().close();
  });

  it('then the challenge card with 123456 succeeds', async () => {
    const page = await newPage();
    await page.goto(`${shop.origin}/pay`);
    await page.waitForURL(/\/v1\/checkout\//);
    await fillCard(page, CARDS.challenge);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'challenge-page-desktop.png'), fullPage: true });
    await page.locator('#code').fill(CHALLENGE_CODE);
    await page.locator('#verify-button').click();
    await page.waitForURL(new RegExp(`^${shop.origin}/return\\?`));
    expect(verifiedResult(page.url()).order_status).toBe('1');
    await page.context().close();
  });

  it('then the challenge card with another code fails', async () => {
    const page = await newPage(390, 844);
    await page.goto(`${shop.origin}/pay`);
    await page.waitForURL(/\/v1\/checkout\//);
    await fillCard(page, CARDS.challenge);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'challenge-page-phone.png'), fullPage: true });
    await page.locator('#code').fill('654321');
    await page.locator('#verify-button').click();
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('3-D Secure authentication failed');
    await page.waitForURL(new RegExp(`^${shop.origin}/return\\?`));
    const q = verifiedResult(page.url());
    expect(q.order_status).toBe('0');
    expect(q.result_info).toBe('3004:3-D Secure authentication failed');
    await page.context().close();
  });

  it('then cancel reaches the merchant cancel_url', async () => {
    const page = await newPage();
    await page.goto(`${shop.origin}/pay`);
    await page.waitForURL(/\/v1\/checkout\//);
    await page.locator('#cancel-button').click();
    await page.waitForURL(new RegExp(`^${shop.origin}/cancel\\?`));
    const q = verifiedResult(page.url());
    expect(q.result_info).toBe('3009:Cancelled by the shopper');
    await page.context().close();
  });
});

describe('when a merchant page mounts the checkout in an iFrame', () => {
  it('then on a registered origin the result arrives by postMessage and the frame follows its content', async () => {
    const page = await newPage();
    await page.goto(`${shop.origin}/embed`);
    const frame = page.frameLocator('#pay iframe');
    await frame.locator('#card').waitFor();
    await page.waitForFunction(
      () =>
        document.querySelector('#pay iframe')?.getAttribute('style')?.includes('height') &&
        (document.querySelector('#pay iframe') as HTMLElement).style.height !== '480px',
    );
    await fillCard(frame, CARDS.approved);
    await frame.locator('#pay-button').click();
    await page.waitForFunction(() => (window as unknown as { checkoutResult?: unknown }).checkoutResult !== undefined);
    const result = (await page.evaluate(() => (window as unknown as { checkoutResult: Record<string, string> }).checkoutResult)) as Record<
      string,
      string
    >;
    expect(result.order_status).toBe('1');
    const signed: Record<string, string> = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, ...result };
    expect(result.encryption_data).toBe(
      sign(
        FIELDS.answerPayment.map((f) => signed[f]),
        SIGN_KEY,
      ),
    );
    expect(page.url()).toBe(`${shop.origin}/embed`);
    await page.context().close();
  });

  it('then a page on an unregistered origin cannot frame it', async () => {
    const page = await newPage();
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors/.test(m.text())) refusals.push(m.text());
    });
    await page.goto(`${stranger.origin}/embed`);
    await expect.poll(() => refusals.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const child = page.frames().find((f) => f !== page.mainFrame());
    expect(
      await child
        ?.locator('#card')
        .count()
        .catch(() => 0),
    ).toBe(0);
    await page.context().close();
  });
});

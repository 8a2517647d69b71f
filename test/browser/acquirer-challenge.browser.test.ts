import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { freePort } from '../support/redis.js';
import { launchBrowser } from '../support/browser.js';
import { MERCHANT_ID, authoriseBody, makeGateway, type TestGateway } from '../support/gateway.js';
import { StripeStub } from '../support/acquirers/stripe-stub.js';
import { AdyenStub } from '../support/acquirers/adyen-stub.js';
import { ADYEN_ENV, STRIPE_ENV, acquirerMerchants } from '../support/acquirers/accounts.js';

/**
 * 3-D Secure on the acquirer's own page, in Chromium: the shopper opens the payment's issuer_url (the gateway's
 * hosted challenge page), is handed to Stripe's or Adyen's challenge page (the stubs simulate it: it sends the
 * shopper back with the acquirer's parameters), passes or fails it there, and lands on the gateway's return
 * route, which settles the payment from the acquirer's result and shows it.
 */
const stubs = { stripe: new StripeStub(), adyen: new AdyenStub() };
const gateways: Partial<Record<keyof typeof stubs, { gw: TestGateway; server: Server; origin: string }>> = {};
let browser: Browser;

beforeAll(async () => {
  await Promise.all([stubs.stripe.start(), stubs.adyen.start()]);
  for (const code of ['stripe', 'adyen'] as const) {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const gw = makeGateway({
      name: `acquirer-challenge-browser-${code}`,
      merchants: acquirerMerchants(code, stubs[code].baseUrl),
      env: { ...(code === 'stripe' ? STRIPE_ENV : ADYEN_ENV), BASE_URL: origin },
    });
    const server = await new Promise<Server>((resolve) => {
      const s = gw.app.listen(port, '127.0.0.1', () => resolve(s));
    });
    gateways[code] = { gw, server, origin };
  }
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const g of Object.values(gateways)) {
    g.server.closeAllConnections();
    await new Promise((resolve) => g.server.close(resolve));
    await g.gw.close();
  }
  await Promise.all([stubs.stripe.stop(), stubs.adyen.stop()]);
});

/** A direct payment on the 3-D Secure test card: its issuer_url and transaction. */
async function challengedPayment(origin: string): Promise<{ issuerUrl: string; transactionId: string }> {
  const res = await fetch(`${origin}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: JSON.stringify(authoriseBody({ card: '4000002500003155', open3d: 'do3DS' })),
  });
  const text = await res.text();
  expect(text).toMatch(/<order_status>2<\/order_status>/);
  return {
    issuerUrl: /<issuer_url>([^<]+)<\/issuer_url>/.exec(text)![1]!.replace(/&amp;/g, '&'),
    transactionId: /<transaction_id>([^<]+)</.exec(text)![1]!,
  };
}

describe.each(['stripe', 'adyen'] as const)('3-D Secure on %s’s own page, in Chromium', (code) => {
  it.each([
    ['Complete authentication', 'Payment successful', '3000'],
    ['Fail authentication', '3-D Secure authentication failed', '4300'],
  ])(
    'when the shopper chooses “%s” on the acquirer’s page, then the gateway’s return shows “%s” and records %s',
    async (button, heading, status) => {
      const { gw, origin } = gateways[code]!;
      const { issuerUrl, transactionId } = await challengedPayment(origin);
      const page = await browser.newPage();
      try {
        await page.goto(issuerUrl);
        // handed over: the acquirer's page, on the acquirer's address
        expect(new URL(page.url()).origin).toBe(stubs[code].baseUrl);
        await expect(page.locator('h1').textContent()).resolves.toContain('3-D Secure test payment');
        await page.getByRole('button', { name: button }).click();
        // back on the gateway's return route, with the acquirer's parameters
        await page.waitForURL((url) => url.origin === origin && url.pathname.endsWith('/return'), { timeout: 15_000 });
        expect(new URL(page.url()).searchParams.has(code === 'stripe' ? 'payment_intent' : 'redirectResult')).toBe(true);
        await expect(page.locator('h1').textContent()).resolves.toContain(heading);
        expect(await gw.deps.store.getPayment(MERCHANT_ID, transactionId)).toMatchObject({ status, threeds: { challenge_pending: false } });
        // the shopper reloads the return: the same result, the payment settled once
        await page.reload();
        await expect(page.locator('h1').textContent()).resolves.toContain(heading);
        const charges =
          code === 'stripe'
            ? [...stubs.stripe.intents.values()].filter((pi) => pi.metadata.gateway_reference === transactionId).length
            : [...stubs.adyen.payments.values()].filter((p) => p.reference === transactionId).length;
        expect(charges).toBe(1);
      } finally {
        await page.close();
      }
    },
  );
});

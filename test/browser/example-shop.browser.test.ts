import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, FrameLocator, Page } from 'playwright-core';
import { freePort } from '../support/redis.js';
import { launchBrowser } from '../support/browser.js';
import { startBuiltGateway, type StartedGateway } from '../support/started-gateway.js';
import { CARDS, CHALLENGE_CODE, TEST_SECURITY_CODE } from '../support/cards.js';

/**
 * A newcomer's first ten minutes: the gateway started as the README says (`NODE_ENV=development npm start`:
 * built, then the start script's command) on a port other than 8080, with nothing configured, and the example
 * shop's two flows paid in Chromium to the shop's return page, whose server verified the signed result.
 */
let gateway: StartedGateway;
let browser: Browser;
let shop: string;

beforeAll(async () => {
  let port = await freePort();
  if (port === 8080) port = await freePort();
  gateway = await startBuiltGateway({ PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development' }, 'example-shop-browser');
  shop = `${gateway.baseUrl}/examples/shop`;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
});

/** A page that records every Content Security Policy violation the browser reports, in any frame. */
async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to|Mixed Content/i.test(m.text())) violations.push(m.text());
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.log(`Refused to: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { page, violations };
}

async function fillCard(target: Page | FrameLocator, card: string): Promise<void> {
  await target.locator('#cardholder').fill('Ada Lovelace');
  await target.locator('#card').fill(card);
  await target.locator('#expiration_month').fill('12');
  await target.locator('#expiration_year').fill('2034');
  await target.locator('#security_code').fill(TEST_SECURITY_CODE);
}

/** The shop's return page as the shopper sees it: its heading and the facts it lists. */
async function returnPage(page: Page): Promise<{ heading: string; facts: Record<string, string> }> {
  await page.waitForURL(new RegExp(`^${shop}/return\\?`), { timeout: 15_000 });
  const heading = (await page.locator('h1').textContent())?.trim() ?? '';
  const rows = await page.$$eval('dl.facts div', (divs) =>
    divs.map((d) => [d.querySelector('dt')!.textContent!, d.querySelector('dd')!.textContent!]),
  );
  return { heading, facts: Object.fromEntries(rows) };
}

describe(`the example shop of a gateway started as the README says, on a port other than 8080`, () => {
  it('when the shopper pays by redirect with an approved card, then the shop’s return page shows the verified, approved result', async () => {
    expect(new URL(gateway.baseUrl).port).not.toBe('8080');
    const { page, violations } = await watchedPage();
    await page.goto(shop);
    await page.getByRole('button', { name: 'Pay 25.00 (redirect)' }).click();
    await page.waitForURL(/\/v1\/checkout\/1000001\/cs_/);
    await fillCard(page, CARDS.approved);
    await page.locator('#pay-button').click();
    const { heading, facts } = await returnPage(page);
    expect(heading).toBe('Thank you for your order');
    expect(facts).toMatchObject({ order_status: '1', result_info: '0000:Success', amount: '25.00', verified: 'true' });
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('when the shopper pays by redirect with the 3-D Secure card and its code, then the return page shows the verified approval', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(shop);
    await page.getByRole('button', { name: 'Pay 25.00 (redirect)' }).click();
    await page.waitForURL(/\/v1\/checkout\//);
    await fillCard(page, CARDS.challenge);
    await page.locator('#pay-button').click();
    await page.waitForURL(/\/v1\/3ds\//);
    await page.locator('#code').fill(CHALLENGE_CODE);
    await page.locator('#verify-button').click();
    const { heading, facts } = await returnPage(page);
    expect(heading).toBe('Thank you for your order');
    expect(facts).toMatchObject({ order_status: '1', verified: 'true' });
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('when the shopper pays in the iFrame with the 3-D Secure card and its code, then the frame’s result takes the shop to its return page, verified', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(shop);
    await page.getByRole('button', { name: 'Pay 25.00 in an iFrame' }).click();
    const frame = page.frameLocator('#checkout-frame iframe');
    await frame.locator('#card').waitFor({ timeout: 15_000 });
    await fillCard(frame, CARDS.challenge);
    await frame.locator('#pay-button').click();
    await frame.locator('#code').fill(CHALLENGE_CODE);
    const challenge = page.frames().find((f: Frame) => f.url().includes('/v1/3ds/'));
    expect(challenge, 'the challenge page opens inside the frame').toBeDefined();
    await frame.locator('#verify-button').click();
    const { heading, facts } = await returnPage(page);
    expect(heading).toBe('Thank you for your order');
    expect(facts).toMatchObject({ order_status: '1', result_info: '0000:Success', verified: 'true' });
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('when the shopper pays in the iFrame with a declined card, then the shop’s return page shows the verified decline', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(shop);
    await page.getByRole('button', { name: 'Pay 25.00 in an iFrame' }).click();
    const frame = page.frameLocator('#checkout-frame iframe');
    await fillCard(frame, CARDS.declined);
    await frame.locator('#pay-button').click();
    // the frame offers another card first; the shopper's "continue" hands the decline to the shop
    await frame.locator('#retry').waitFor();
    await frame.locator('#continue').click();
    const { heading, facts } = await returnPage(page);
    expect(heading).toBe('The payment did not go through');
    expect(facts).toMatchObject({ order_status: '0', verified: 'true' });
    expect(violations).toEqual([]);
    await page.context().close();
  });
});

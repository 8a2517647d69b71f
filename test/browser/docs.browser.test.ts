import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { makeGateway, type TestGateway } from '../support/gateway.js';
import { launchBrowser } from '../support/browser.js';

let gw: TestGateway;
let server: Server;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  gw = makeGateway({ name: 'docs-browser' });
  server = await new Promise<Server>((resolve) => {
    const s = gw.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await gw?.close();
});

describe('/docs in Chromium', () => {
  it('when opened from the front door, then Swagger UI renders every /v1 call with no CSP violation and nothing fetched elsewhere', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.log(`Refused to: ${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${origin}/`);
    await page.click('a[href="/docs"]');
    await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    for (const p of ['/v1/authorise', '/v1/capture', '/v1/refund', '/v1/optimise', '/v1/payout', '/v1/retrievalTrans'])
      expect(paths).toContain(p);
    // open one call: its request schema is rendered from the document
    await page.click('#operations-Operations-capture .opblock-summary');
    await page.waitForSelector('#operations-Operations-capture .model-example', { timeout: 10_000 });
    expect(await page.textContent('#operations-Operations-capture')).toContain('capture_orders');
    expect(violations).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });
});

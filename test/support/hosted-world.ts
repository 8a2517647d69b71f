import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { Clock } from '../../src/core/kernel/clock.js';
import { freePort, startRedis, type RedisServer } from './redis.js';
import { makeGateway, SIGN_KEY, type TestGateway } from './gateway.js';
import { launchBrowser, sendHtml, serveLoopback, type LoopbackServer } from './browser.js';
import { checkoutBody } from './checkout.js';
import { brandedMerchants } from './hosted.js';
import { createGatewayServer } from '../../src/http/server.js';

/** Real time plus an offset the tests move (a session "expires" without waiting). */
export class OffsetClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
}

/**
 * A gateway on a real Redis, a merchant's shop on a registered storefront origin (loading page, iFrame
 * embed with its events, return and cancel pages), and one Chromium for the test file.
 */
export interface HostedWorld {
  gateway: string;
  shop: LoopbackServer;
  gw: TestGateway;
  clock: OffsetClock;
  browser: Browser;
  /** the card page address (checkout_url) of a new session */
  checkoutUrl(overrides?: Record<string, unknown>, key?: string): Promise<string>;
  newPage(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

/** Records the embed's events on window.events; `?lang=` and `?account=` go into the order. */
function shopPages(world: () => HostedWorld) {
  return async (_req: IncomingMessage, res: ServerResponse, url: URL) => {
    const w = world();
    const order = (): Record<string, unknown> => ({
      return_url: `${w.shop.origin}/return`,
      cancel_url: `${w.shop.origin}/cancel`,
      ...(url.searchParams.get('lang') ? { default_lang: url.searchParams.get('lang') } : {}),
    });
    if (url.pathname === '/pay') {
      const answer = await fetch(`${w.gateway}/v1/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: JSON.stringify(checkoutBody(order())),
      });
      return sendHtml(res, await answer.text(), answer.status);
    }
    if (url.pathname === '/embed') {
      const checkoutUrl = await w.checkoutUrl(order());
      return sendHtml(
        res,
        `<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Shop checkout</h1>
        <div id="pay" data-url="${checkoutUrl}"></div></main>
        <script src="${w.gateway}/public/embed.js"></script><script src="/mount.js"></script></body></html>`,
      );
    }
    if (url.pathname === '/mount.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(`window.events = [];
        var pay = document.getElementById('pay');
        ['gateway:ready', 'gateway:submitted', 'gateway:result'].forEach(function (name) {
          pay.addEventListener(name, function (e) { window.events.push({ dom: name, detail: e.detail }); });
        });
        window.mounted = GatewayCheckout.mount(pay, {
          url: pay.dataset.url,
          onReady: function (d) { window.events.push({ type: 'ready', detail: d }); },
          onSubmitted: function (d) { window.events.push({ type: 'submitted', detail: d }); },
          onResult: function (d) { window.events.push({ type: 'result', detail: d }); },
        });`);
    }
    if (url.pathname === '/return' || url.pathname === '/cancel')
      return sendHtml(res, `<!doctype html><title>Back at the shop</title><h1>${url.pathname}</h1>`);
    return sendHtml(res, 'not found', 404);
  };
}

/** `env`: further settings of the gateway (OPERATOR_NAME, OPERATOR_LOGO_FILE, ...). */
export async function startHostedWorld(name: string, env: Record<string, string> = {}): Promise<HostedWorld> {
  const [gatewayPort, shopPort] = [await freePort(), await freePort()];
  const gateway = `http://127.0.0.1:${gatewayPort}`;
  const clock = new OffsetClock();
  const redis: RedisServer = await startRedis(name);
  const gw = makeGateway({
    name,
    redisUrl: redis.url,
    clock,
    merchants: brandedMerchants([`http://127.0.0.1:${shopPort}`]),
    env: { BASE_URL: gateway, ...env },
  });
  // the server main.ts runs (its limits, and requests made with the app's prototypes), not app.listen's
  const server = createGatewayServer(gw.app, gw.config.serverLimits);
  await new Promise<void>((resolve) => server.listen(gatewayPort, '127.0.0.1', resolve));
  const ref: { world?: HostedWorld } = {};
  const shop = await serveLoopback(
    shopPages(() => ref.world!),
    shopPort,
  );
  const browser = await launchBrowser();
  const world: HostedWorld = {
    gateway,
    shop,
    gw,
    clock,
    browser,
    async checkoutUrl(overrides = {}, key = SIGN_KEY) {
      const answer = await fetch(`${gateway}/v1/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(checkoutBody({ return_url: `${shop.origin}/return`, cancel_url: `${shop.origin}/cancel`, ...overrides }, key)),
      });
      if (answer.status !== 200) throw new Error(`checkout answered ${answer.status}: ${await answer.text()}`);
      return ((await answer.json()) as { checkout_url: string }).checkout_url;
    },
    async newPage(options = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
      return context.newPage();
    },
    async close() {
      await browser.close();
      await shop.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await gw.close();
      await redis.stop();
    },
  };
  ref.world = world;
  return world;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2.0/2.1/2.2 A and AA rules, and best practices) in the page. The source is evaluated
 * through the DevTools protocol, which the page's CSP does not govern, so the CSP stays as enforced.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    });
    return (result.violations as { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[]).map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
  });
}

/** The violations that fail the build: serious and critical. */
export const severe = (findings: AxeFinding[]): AxeFinding[] => findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');

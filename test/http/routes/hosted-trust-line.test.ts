import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { makeGateway, SIGN_KEY, type TestGateway } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { formatAmount } from '../../../src/i18n/index.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The hosted pages' trust line (issue 40): it names the merchant and the operator (OPERATOR_NAME), and claims
// an encrypted connection only for a request that came over https, as TRUST_PROXY lets the gateway know.
let redis: RedisServer;
let proxied: TestGateway;
let direct: TestGateway;
let withLogo: TestGateway;
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="24"><rect width="96" height="24" fill="#123"/></svg>';

beforeAll(async () => {
  redis = await startRedis('hosted-trust-line');
  proxied = makeGateway({
    name: 'hosted-trust-line',
    redisUrl: redis.url,
    env: { TRUST_PROXY: 'loopback', OPERATOR_NAME: 'Example Payments Ltd' },
  });
  direct = makeGateway({ name: 'hosted-trust-line-direct', redisUrl: redis.url });
  const logoFile = join(mkdtempSync(join(tmpdir(), 'gw-operator-logo-')), 'operator.svg');
  writeFileSync(logoFile, LOGO);
  withLogo = makeGateway({
    name: 'hosted-trust-line-logo',
    redisUrl: redis.url,
    env: { OPERATOR_NAME: 'Example Payments Ltd', OPERATOR_LOGO_FILE: logoFile },
  });
});
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
  await withLogo?.close();
  await redis?.stop();
});

async function cardPage(gw: TestGateway, headers: Record<string, string> = {}, overrides: Record<string, unknown> = {}): Promise<string> {
  const opened = await request(gw.app)
    .post('/v1/checkout')
    .set('Accept', 'application/json')
    .send(JSON.stringify(checkoutBody(overrides, SIGN_KEY)));
  expect(opened.status).toBe(200);
  const page = await request(gw.app)
    .get(new URL(String(opened.body.checkout_url)).pathname)
    .set(headers);
  expect(page.status).toBe(200);
  return page.text;
}

const trustLine = (html: string): string =>
  /<footer class="secured" id="trust-line">([\s\S]*?)<\/footer>/.exec(html)![1]!.replace(/<[^>]+>/g, ' ');

describe('when a hosted page is served', () => {
  it('then behind a trusted proxy that says https, the line names merchant and operator and claims TLS', async () => {
    const line = trustLine(await cardPage(proxied, { 'X-Forwarded-Proto': 'https' }));
    expect(line).toContain('processed by Example Payments Ltd');
    expect(line).toContain('Encrypted connection (TLS)');
  });

  it('then over plain http it claims no TLS', async () => {
    const line = trustLine(await cardPage(proxied));
    expect(line).toContain('processed by Example Payments Ltd');
    expect(line).not.toContain('TLS');
  });

  it('then without TRUST_PROXY a forwarded https is not believed, and the operator is the base address host', async () => {
    const line = trustLine(await cardPage(direct, { 'X-Forwarded-Proto': 'https' }));
    expect(line).toContain('processed by gateway.test');
    expect(line).not.toContain('TLS');
  });

  it('then with OPERATOR_LOGO_FILE the line shows the logo from the gateway origin, named by the operator, and the CSP allows no other image host', async () => {
    const opened = await request(withLogo.app)
      .post('/v1/checkout')
      .set('Accept', 'application/json')
      .send(JSON.stringify(checkoutBody({}, SIGN_KEY)));
    const page = await request(withLogo.app).get(new URL(String(opened.body.checkout_url)).pathname);
    const img = /<img class="operator-logo" id="operator-logo" src="([^"]+)" alt="([^"]+)"/.exec(page.text);
    expect(img?.[2]).toBe('Example Payments Ltd');
    const src = new URL(img![1]!);
    expect(src.origin).toBe('http://gateway.test');
    expect(src.pathname).toMatch(/^\/assets\/operator\/logo-[0-9a-f]{16}\.svg$/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("img-src 'self' http://gateway.test data:;");
    const logo = await request(withLogo.app).get(src.pathname);
    expect(logo.status).toBe(200);
    expect(logo.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(logo.headers['content-security-policy']).toContain('sandbox');
    expect(String(logo.body)).toBe(LOGO);
    // any other name under the same prefix is not served
    expect((await request(withLogo.app).get('/assets/operator/logo-0000000000000000.svg')).status).toBe(404);
    // without the setting there is no logo and no such address
    expect(await cardPage(direct)).not.toContain('operator-logo');
    expect((await request(direct.app).get(src.pathname)).status).toBe(404);
  });

  it('then the line speaks the page language', async () => {
    const line = trustLine(await cardPage(proxied, { 'X-Forwarded-Proto': 'https' }, { default_lang: 'de' }));
    expect(line).toContain('abgewickelt von Example Payments Ltd');
    expect(line).toContain('Verschlüsselte Verbindung (TLS)');
  });
});

describe('when an amount is written for a right-to-left language', () => {
  it('then a Latin currency sign is kept whole where CLDR puts it, and other languages are untouched', () => {
    expect(formatAmount('ar', 2500, 'USD')).toMatch(/^\u200f25\.00\s\u2066US\$\u2069$/);
    expect(formatAmount('he', 2500, 'USD')).toBe(new Intl.NumberFormat('he', { style: 'currency', currency: 'USD' }).format(25));
    expect(formatAmount('en', 2500, 'USD')).toBe('$25.00');
    expect(formatAmount('ar', 2500, 'KWD')).not.toContain('\u2066US');
  });
});

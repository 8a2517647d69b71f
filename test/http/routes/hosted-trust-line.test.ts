import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { makeGateway, SIGN_KEY, type TestGateway } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { formatAmount } from '../../../src/i18n/index.js';

// The hosted pages' trust line (issue 40): it names the merchant and the operator (OPERATOR_NAME), and claims
// an encrypted connection only for a request that came over https, as TRUST_PROXY lets the gateway know.
let redis: RedisServer;
let proxied: TestGateway;
let direct: TestGateway;

beforeAll(async () => {
  redis = await startRedis('hosted-trust-line');
  proxied = makeGateway({
    name: 'hosted-trust-line',
    redisUrl: redis.url,
    env: { TRUST_PROXY: 'loopback', OPERATOR_NAME: 'Example Payments Ltd' },
  });
  direct = makeGateway({ name: 'hosted-trust-line-direct', redisUrl: redis.url });
});
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
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

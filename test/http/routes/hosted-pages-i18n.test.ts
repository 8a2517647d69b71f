import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { makeGateway, SIGN_KEY, type TestGateway } from '../../support/gateway.js';
import { attributeOf, checkoutBody, unescapeHtml } from '../../support/checkout.js';
import { CARDS, TEST_SECURITY_CODE } from '../../support/cards.js';
import { AMEX_CARD, BRANDED_ACCENT, BRANDED_ACCOUNT_ID, BRANDED_NAME, BRANDED_SIGN_KEY, brandedMerchants } from '../../support/hosted.js';
import { ROOT } from '../../support/paths.js';
import { ConfigError, loadConfig } from '../../../src/config.js';

let gw: TestGateway;

beforeAll(() => {
  gw = makeGateway({ name: 'hosted-pages-i18n', merchants: brandedMerchants() });
});
afterAll(async () => {
  await gw?.close();
});

const path = (url: string): string => new URL(url).pathname;

async function openSession(overrides: Record<string, unknown> = {}, key = SIGN_KEY) {
  const res = await request(gw.app)
    .post('/v1/checkout')
    .set('Accept', 'application/json')
    .send(JSON.stringify(checkoutBody(overrides, key)));
  expect(res.status).toBe(200);
  const card = path(res.body.checkout_url as string);
  return { card, pay: `${card}/pay` };
}

const branded = { account_id: BRANDED_ACCOUNT_ID };
const form = (card: string, security_code = TEST_SECURITY_CODE) => ({
  cardholder: 'Ada Lovelace',
  card,
  expiration_month: '12',
  expiration_year: '2034',
  security_code,
});
const htmlTag = (html: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(html)?.slice(1);

describe('when a hosted page is asked for in a language', () => {
  it("then the order's default_lang sets lang, dir, texts and the amount format", async () => {
    const s = await openSession({ default_lang: 'de' });
    const page = await request(gw.app).get(s.card).set('Accept-Language', 'fr');
    expect(htmlTag(page.text)).toEqual(['de', 'ltr']);
    expect(page.headers['content-language']).toBe('de');
    expect(page.text).toContain('<label for="card">Kartennummer');
    expect(page.text).toContain('10,00\u00a0$ bezahlen');
  });

  it('then es-MX falls back to es, and browser_lang counts when default_lang is absent', async () => {
    const es = await request(gw.app).get((await openSession({ default_lang: 'es-MX' })).card);
    expect(htmlTag(es.text)).toEqual(['es', 'ltr']);
    expect(es.text).toContain('Número de tarjeta');
    const ja = await request(gw.app).get((await openSession({ browser_lang: 'ja-JP' })).card);
    expect(htmlTag(ja.text)).toEqual(['ja', 'ltr']);
    expect(ja.text).toContain('$10.00 を支払う');
  });

  it("then without a language in the order the browser's Accept-Language decides, Arabic right to left", async () => {
    const s = await openSession();
    const page = await request(gw.app).get(s.card).set('Accept-Language', 'ar-EG,ar;q=0.9,en;q=0.5');
    expect(htmlTag(page.text)).toEqual(['ar', 'rtl']);
    expect(page.text).toContain('رقم البطاقة');
    const none = await request(gw.app).get(s.card).set('Accept-Language', 'sw');
    expect(htmlTag(none.text)).toEqual(['en', 'ltr']);
  });

  it('then the loading page and the not-found page speak it too', async () => {
    const loading = await request(gw.app)
      .post('/v1/checkout')
      .send(JSON.stringify(checkoutBody({ default_lang: 'he' })));
    expect(htmlTag(loading.text)).toEqual(['he', 'rtl']);
    expect(unescapeHtml(/<title>([^<]*)<\/title>/.exec(loading.text)![1]!)).toBe('טוען…');
    expect(loading.text).toContain('<title>&#1496;&#1493;&#1506;&#1503;&#8230;</title>');
    const unknown = await request(gw.app).get('/v1/checkout/1000001/cs_unknownsession1').set('Accept-Language', 'ja');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('お支払いが見つかりません');
  });
});

describe('when the card form comes back with problems', () => {
  it('then each field at fault has aria-invalid, its message, and a link in the error summary', async () => {
    const s = await openSession({ default_lang: 'fr' });
    const res = await request(gw.app).post(s.pay).type('form').send(form('4242424242424241', '12'));
    expect(res.status).toBe(422);
    expect(attributeOf(res.text, 'card', 'aria-invalid')).toBe('true');
    expect(attributeOf(res.text, 'card', 'aria-describedby')).toBe('card-error');
    expect(attributeOf(res.text, 'security_code', 'aria-invalid')).toBe('true');
    expect(attributeOf(res.text, 'cardholder', 'aria-invalid')).toBe('false');
    expect(attributeOf(res.text, 'error-summary', 'role')).toBe('alert');
    expect(attributeOf(res.text, 'error-summary', 'hidden')).toBeUndefined();
    expect(res.text).toContain('<a href="#card">Ce numéro de carte n&#39;est pas valide</a>');
    expect(res.text).toContain('<a href="#security_code">Saisissez le code de sécurité à 3 chiffres</a>');
  });

  it('then an American Express card needs 4 digits of security code, and another brand 3', async () => {
    const amex3 = await request(gw.app)
      .post((await openSession()).pay)
      .type('form')
      .send(form(AMEX_CARD, '123'));
    expect(amex3.status).toBe(422);
    expect(amex3.text).toContain('<p class="field-error" id="security_code-error">Enter the 4-digit security code</p>');
    const visa4 = await request(gw.app)
      .post((await openSession()).pay)
      .type('form')
      .send(form(CARDS.approved, '1234'));
    expect(visa4.status).toBe(422);
    expect(visa4.text).toContain('Enter the 3-digit security code');
    const amex4 = await request(gw.app)
      .post((await openSession({ open3d: 'no3DS' })).pay)
      .type('form')
      .send(form(AMEX_CARD, '1234'));
    expect(amex4.status).toBe(303);
  });

  it('then a card of a brand the account does not accept is refused with the brands it does, and nothing is charged', async () => {
    const s = await openSession(branded, BRANDED_SIGN_KEY);
    const res = await request(gw.app).post(s.pay).type('form').send(form(AMEX_CARD, '1234'));
    expect(res.status).toBe(422);
    expect(res.text).toContain(
      '<p class="field-error" id="card-error">This shop does not accept American Express cards. Use one of: Visa, Mastercard</p>',
    );
    const page = await request(gw.app).get(s.card);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="card-form"');
    const visa = await request(gw.app).post(s.pay).type('form').send(form(CARDS.approved));
    expect(visa.status).toBe(303);
  });
});

describe('when the hosted pages load their scripts and styles', () => {
  it('then each carries the SHA-384 integrity of the inventory, which matches the file served', async () => {
    const inventory = await request(gw.app).get('/.well-known/payment-page-scripts.json');
    expect(inventory.status).toBe(200);
    const scripts = inventory.body.scripts as { path: string; hash: string; purpose: string; type: string }[];
    const byPath = new Map(scripts.map((s) => [s.path, s]));
    for (const s of scripts) {
      expect(s.purpose.length).toBeGreaterThan(10);
      const res = await request(gw.app)
        .get(s.path)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      const served = res.body as Buffer;
      expect(`sha384-${createHash('sha384').update(served).digest('base64')}`, s.path).toBe(s.hash);
    }
    const s = await openSession(branded, BRANDED_SIGN_KEY);
    const page = await request(gw.app).get(s.card);
    const tags = [...page.text.matchAll(/<(script|link)\b[^>]*>/g)].map((m) => m[0]);
    expect(tags.length).toBeGreaterThanOrEqual(4);
    for (const tag of tags) {
      const url = /(?:src|href)="([^"]+)"/.exec(tag)![1]!;
      const entry = byPath.get(new URL(url).pathname);
      expect(entry, url).toBeDefined();
      expect(tag).toContain(`integrity="${entry!.hash}"`);
    }
    expect(page.text).not.toMatch(/<script>|<style|\sstyle="/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(readFileSync(join(ROOT, 'public', 'card.js'), 'utf8')).toContain('data-messages');
  });
});

describe('when an account has branding', () => {
  it('then its pages show its name, logo and accent colour from the gateway', async () => {
    const s = await openSession(branded, BRANDED_SIGN_KEY);
    const page = await request(gw.app).get(s.card);
    expect(page.text).toContain(`<h1 class="merchant-name">${BRANDED_NAME}</h1>`);
    const logo = /<img class="logo" src="([^"]+)" alt="([^"]+)">/.exec(page.text)!;
    expect(logo[2]).toBe(BRANDED_NAME);
    const served = await request(gw.app).get(path(logo[1]!));
    expect(served.headers['content-type']).toContain('image/svg+xml');
    const brandClass = /<body class="(brand-[0-9a-f]+)"/.exec(page.text)![1]!;
    const css = await request(gw.app).get('/assets/branding.css');
    expect(css.text).toContain(`.${brandClass} { --accent: ${BRANDED_ACCENT};`);
  });

  it('then an accent colour without AA contrast against the button text stops the start, naming the field', () => {
    const file = join(tmpdir(), `merchants-${Date.now()}.json`);
    const merchants = brandedMerchants();
    (merchants.merchants[0]!.accounts[2] as { branding: { accent_color: string } }).branding.accent_color = '#7fb2ff';
    writeFileSync(file, JSON.stringify(merchants));
    expect(() => loadConfig({ MERCHANTS_FILE: file })).toThrow(ConfigError);
    expect(() => loadConfig({ MERCHANTS_FILE: file })).toThrow(/branding\.accent_color: needs a contrast of at least 4\.5:1/);
  });
});

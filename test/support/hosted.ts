import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { MerchantsFile } from '../../src/core/records/directory.js';
import { MERCHANT_ID, testMerchants } from './gateway.js';

/** An account of the test merchant that accepts only Visa and Mastercard and has its own branding. */
export const BRANDED_ACCOUNT_ID = '1000001003';
export const BRANDED_SIGN_KEY = 'test-sign-key-0003';
export const BRANDED_NAME = 'Branded Boutique';
export const BRANDED_ACCENT = '#0b6e4f';
/** An American Express test number (passes Luhn; the sandbox approves it). */
export const AMEX_CARD = '378282246310005';

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40">' +
  '<rect width="160" height="40" rx="6" fill="#0b6e4f"/><text x="12" y="26" font-size="16" fill="#fff">Boutique</text></svg>';

/** The test merchants plus the branded account; storefront origins apply to both card accounts. */
export function brandedMerchants(storefronts: string[] = ['https://shop.example']): MerchantsFile {
  const dir = join(tmpdir(), `gw-logo-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const logo = join(dir, 'logo.svg');
  writeFileSync(logo, LOGO_SVG);
  const file = testMerchants();
  const merchant = file.merchants.find((m) => m.merchant_id === MERCHANT_ID)!;
  (merchant.accounts[0] as { storefront_domains: string[] }).storefront_domains = storefronts;
  merchant.accounts.push({
    account_id: BRANDED_ACCOUNT_ID,
    sign_key: BRANDED_SIGN_KEY,
    website: 'https://boutique.example',
    storefront_domains: storefronts,
    currencies: ['USD', 'EUR', 'JPY'],
    card_brands: ['VISA', 'MASTERCARD'],
    branding: { display_name: BRANDED_NAME, accent_color: BRANDED_ACCENT, logo_file: logo },
  } as unknown as (typeof merchant.accounts)[number]);
  return file;
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Account, MerchantDirectory } from '../../core/records/directory.js';
import { LOGO_TYPES } from '../../core/records/branding.js';
import { htmlText } from './html-text.js';

/** The pages' own scripts and styles (next to src/ and dist/ alike). */
export const PUBLIC_DIR = fileURLToPath(new URL('../../../public', import.meta.url));

/**
 * Every file the hosted pages load (docs/checkout.md, PCI DSS 4.0 6.4.3): what it is for. Nothing else is
 * referenced by a hosted page; test/browser/integrity.browser.test.ts fails when a page loads anything else.
 */
const PUBLIC_FILES: Record<string, { type: 'script' | 'style'; purpose: string }> = {
  'checkout.css': { type: 'style', purpose: 'Layout, colours (light and dark) and focus styles of every hosted page' },
  'loading.js': { type: 'script', purpose: 'Loading page: submits the hidden order form to the gateway' },
  'card.js': {
    type: 'script',
    purpose: 'Card page: card number, expiry and security-code checks, brand detection, error summary, 3-D Secure browser data',
  },
  'saved-cards.js': {
    type: 'script',
    purpose: 'Card page: a saved card chosen asks only for its security code (the new-card fields hidden and disabled)',
  },
  'saved-cards.css': { type: 'style', purpose: 'Card page: layout of the saved cards and of the consent to save a card' },
  'frame.js': {
    type: 'script',
    purpose: 'Every hosted page: inside an iFrame, reports its height and readiness to the registered parent origin',
  },
  'notice.js': {
    type: 'script',
    purpose: "Notice pages (checkout not found): offers the browser's back when there is a page to go back to",
  },
  'result.js': {
    type: 'script',
    purpose: 'Result page: returns the shopper to the merchant, or posts the signed result to the parent frame',
  },
  'embed.js': { type: 'script', purpose: "Merchant's page (not a hosted page): mounts the checkout in an iFrame and sizes it" },
};

export interface PageAsset {
  path: string;
  type: 'script' | 'style';
  /** `sha384-<base64>`, the Subresource Integrity value */
  hash: string;
  purpose: string;
}

export interface Logo {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface PageAssets {
  byName: Map<string, PageAsset>;
  /** per-account accent colours, one stylesheet for all accounts (a class per account) */
  brandingCss: string;
  logos: Map<string, Logo>;
  inventory(): PageAsset[];
}

export const sri = (body: string | Buffer): string => `sha384-${createHash('sha384').update(body).digest('base64')}`;

/** A stable, non-guessable-looking name for an account's branding class and logo (no ids in the page). */
export function brandKey(account: Pick<Account, 'merchant_id' | 'account_id'>): string {
  return createHash('sha256').update(`${account.merchant_id}/${account.account_id}`).digest('hex').slice(0, 16);
}

function buildAssets(merchants: MerchantDirectory): PageAssets {
  const byName = new Map<string, PageAsset>();
  for (const [name, info] of Object.entries(PUBLIC_FILES)) {
    const body = readFileSync(join(PUBLIC_DIR, name));
    byName.set(name, { path: `/public/${name}`, type: info.type, hash: sri(body), purpose: info.purpose });
  }
  const rules: string[] = [];
  const logos = new Map<string, Logo>();
  for (const account of merchants.all()) {
    const key = brandKey(account);
    const b = account.branding;
    if (b.accent_color) rules.push(`.brand-${key} { --accent: ${b.accent_color}; --accent-dark: ${b.accent_color}; }`);
    if (b.logo_file) {
      const ext = (b.logo_file.split('.').pop() ?? '').toLowerCase();
      logos.set(key, { path: `/assets/logos/${key}.${ext}`, contentType: LOGO_TYPES[ext]!, body: readFileSync(b.logo_file) });
    }
  }
  const brandingCss = `/* Accent colours of the merchants' accounts (branding.accent_color). */\n${rules.join('\n')}\n`;
  byName.set('branding.css', {
    path: '/assets/branding.css',
    type: 'style',
    hash: sri(brandingCss),
    purpose: "Accent colours of the merchants' accounts (branding), checked for AA contrast at start",
  });
  return { byName, brandingCss, logos, inventory: () => [...byName.values()] };
}

const cache = new WeakMap<MerchantDirectory, PageAssets>();

/** The hashed files of the hosted pages, computed once per merchant directory (at start). */
export function pageAssets(merchants: MerchantDirectory): PageAssets {
  let assets = cache.get(merchants);
  if (!assets) {
    assets = buildAssets(merchants);
    cache.set(merchants, assets);
  }
  return assets;
}

/**
 * The operator's logo (OPERATOR_LOGO_FILE), served by the gateway from its own origin, so the hosted pages'
 * img-src stays 'self' and no other host sees a shopper's visit; its name carries a hash of its bytes, so a
 * changed file is a new address.
 */
export function operatorLogoAsset(logo: { ext: string; body: Buffer }): Logo {
  const hash = createHash('sha256').update(logo.body).digest('hex').slice(0, 16);
  return { path: `/assets/operator/logo-${hash}.${logo.ext}`, contentType: LOGO_TYPES[logo.ext]!, body: logo.body };
}

/** The `<script>` or `<link>` tag of an inventoried file, with its integrity (for the views' `asset()`). */
export function assetTag(assets: PageAssets, baseUrl: string, name: string): string {
  const a = assets.byName.get(name);
  if (!a) throw new Error(`${name} is not in the hosted pages' script inventory`);
  const url = htmlText(baseUrl + a.path);
  const integrity = htmlText(a.hash);
  return a.type === 'script'
    ? `<script src="${url}" integrity="${integrity}" crossorigin="anonymous"></script>`
    : `<link rel="stylesheet" href="${url}" integrity="${integrity}" crossorigin="anonymous">`;
}

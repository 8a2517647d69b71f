import { z } from 'zod';
import { isCurrency } from '../kernel/money.js';
import { GatewayError } from '../kernel/errors.js';
import { brandingSchema, CARD_BRANDS } from './branding.js';

const ipOrCidr = z.string().regex(/^[0-9a-fA-F:.]+(\/\d{1,3})?$/, 'must be an IP address or CIDR block');

/** Routing settings of an account, sent as the loading page's routing fields; every one has a default. */
const routingSchema = z
  .object({
    connector_code: z.string().default('sandbox'),
    gbc_id: z.string().optional(),
    account_name: z.string().optional(),
    pm_id: z.string().default('card'),
    apm_type: z.string().default('CARD'),
    descriptor: z.string().optional(),
    orderprefix: z.string().default(''),
    rrtimezone: z.string().optional(),
    ordernumlength: z.string().default('32'),
    sendbgoods: z.string().default('1'),
    replacename: z.string().default('0'),
    send_bank_website: z.string().default('0'),
    replace_up_id: z.string().default('0'),
    replace_match_address: z.string().default('0'),
    to_pass_page: z.string().default('0'),
  })
  .loose();

const riskSchema = z
  .object({
    /** score at or above which a payment is held for review */
    review_score: z.number().int().min(0).max(100).default(70),
    /** score at or above which a payment is refused */
    reject_score: z.number().int().min(0).max(100).default(90),
    /** amount (minor units) above which the score rises; 0 = no limit */
    high_amount_minor: z.number().int().min(0).default(0),
  })
  .default({ review_score: 70, reject_score: 90, high_amount_minor: 0 });

/**
 * A payment method the account offers, as /v1/optimise lists it. Availability: the order's currency,
 * billing country and amount must fit (an empty list or 0 means no restriction). `weight` is the account's
 * own preference (0 to 100), one part of the score; measured approval rates are the other.
 */
const paymentMethodSchema = z.object({
  pm_id: z.string().min(1).max(32),
  apm_type: z.string().min(1).max(32),
  name: z.string().min(1).max(64),
  brands: z.array(z.string().min(1).max(32)).default([]),
  currencies: z.array(z.string().refine(isCurrency, 'is not an ISO 4217 currency')).default([]),
  countries: z.array(z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code')).default([]),
  min_amount_minor: z.number().int().min(0).default(0),
  max_amount_minor: z.number().int().min(0).default(0),
  weight: z.number().int().min(0).max(100).default(50),
});
export type PaymentMethodSettings = z.infer<typeof paymentMethodSchema>;

export const accountSchema = z.object({
  account_id: z.string().min(1).max(10),
  sign_key: z.string().min(8, 'must be at least 8 characters'),
  website: z.string().default(''),
  storefront_domains: z.array(z.url()).default([]),
  /** further origins (besides website and storefront_domains) that return_url and cancel_url may use */
  return_domains: z.array(z.url()).default([]),
  /** strict: every call also carries an X-Signature header over method, path, time and raw body */
  signature_mode: z.enum(['compat', 'strict']).default('compat'),
  allowed_ips: z.array(ipOrCidr).default([]),
  capture_mode: z.enum(['manual', 'auto']).default('manual'),
  currencies: z.array(z.string().refine(isCurrency, 'is not an ISO 4217 currency')).default([]),
  routing: routingSchema.default(() => routingSchema.parse({})),
  risk: riskSchema,
  /** days an authorisation may wait for capture before it expires */
  auth_window_days: z.number().int().min(1).max(30).default(7),
  /** minutes a hosted checkout session waits for the shopper's card */
  checkout_ttl_minutes: z.number().int().min(1).max(1440).default(30),
  /** seconds in which a refund identical to an applied one is refused as its duplicate (docs/api.md#errors-and-idempotency); 0 = off */
  refund_duplicate_seconds: z.number().int().min(0).default(600),
  /** calls per second allowed for this account; 0 = unlimited */
  rate_limit_per_second: z.number().int().min(0).default(0),
  /** /v1/checkout calls per minute allowed for this account (each stores a session); 0 = unlimited */
  checkout_rate_per_minute: z.number().int().min(0).default(120),
  /** opening balance (minor units per currency) of the deposit account that funds payouts */
  deposit_balance: z.record(z.string(), z.number().int().min(0)).default({}),
  /** methods /v1/optimise ranks; empty: the card method of `routing` (pm_id, apm_type) */
  payment_methods: z.array(paymentMethodSchema).default([]),
  /** card brands the hosted card page accepts; empty: every brand */
  card_brands: z.array(z.enum(CARD_BRANDS)).default([]),
  /** display name, accent colour and logo of the hosted pages */
  branding: brandingSchema.default({}),
  /** the hosted card page offers proven returning shoppers their saved cards, and saving one (docs/checkout.md#saved-cards-for-returning-shoppers) */
  saved_cards: z.boolean().default(false),
});

/** PHC string of docs/portal.md: scrypt, N = 2^ln (ln 14 to 20), salt and 32-byte hash in unpadded base64. */
export const PORTAL_HASH = /^\$scrypt\$ln=(1[4-9]|20),r=([1-9]\d?),p=([1-9]\d?)\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{43})$/;

const portalUserSchema = z.object({
  email: z.email().transform((e) => e.toLowerCase()),
  password_hash: z.string().regex(PORTAL_HASH, 'must be a $scrypt$ln=..,r=..,p=..$<salt>$<hash> PHC string (npm run portal:hash-password)'),
  role: z.enum(['admin', 'viewer']),
});

const merchantSchema = z.object({
  merchant_id: z.string().min(1).max(7),
  name: z.string().min(1),
  accounts: z.array(accountSchema).min(1),
  /** who may sign in to the merchant portal (docs/portal.md) */
  portal_users: z.array(portalUserSchema).default([]),
});

export const merchantsFileSchema = z.object({ merchants: z.array(merchantSchema).min(1) });

export type MerchantsFile = z.infer<typeof merchantsFileSchema>;
export type AccountSettings = z.infer<typeof accountSchema>;
export type PortalRole = 'admin' | 'viewer';

/** A portal user as configured: the merchant it belongs to, its role and its password's PHC hash. */
export interface PortalUser {
  merchant_id: string;
  email: string;
  password_hash: string;
  role: PortalRole;
  /** when an operator's invitation set this hash (absent: the merchants file's); an own password older than it is void */
  password_set_at?: number;
}

/** One account as the core sees it: its settings plus the merchant it belongs to. */
export interface Account extends AccountSettings {
  merchant_id: string;
  merchant_name: string;
  /** suspended: no new payment or checkout starts (docs/operators.md); absent: active */
  merchant_status?: 'active' | 'suspended';
  /** the id of `sign_key`, the newest key (absent: the merchants file's key before it reached the store) */
  sign_key_id?: string;
  /** older keys still in their overlap: they verify until expires_at, never sign */
  former_sign_keys?: readonly { key_id: string; sign_key: string; expires_at: number }[];
}

/**
 * Whether some older key of the account, still in its overlap at `now`, passes `check`. Only tried when the
 * newest key failed, so a call signed with the newest key costs nothing more.
 */
export function formerKeyPasses(account: Account, now: number, check: (key: string) => boolean): boolean {
  const former = account.former_sign_keys;
  if (!former || former.length === 0) return false;
  for (const k of former) if (k.expires_at > now && check(k.sign_key)) return true;
  return false;
}

/** A suspended merchant starts no new payment, payout or checkout; what is already moving goes on (docs/operators.md). */
export function assertActive(account: Account): void {
  if (account.merchant_status === 'suspended')
    throw new GatewayError(
      'MERCHANT_SUSPENDED',
      'merchant_id: this merchant is suspended; no new payment or checkout starts',
      'merchant_id',
    );
}

/** Every key that verifies the account's calls at `now`, newest first. */
export function verifyingKeys(account: Account, now: number): string[] {
  return [account.sign_key, ...(account.former_sign_keys ?? []).filter((k) => k.expires_at > now).map((k) => k.sign_key)];
}

export interface MerchantDirectory {
  /** undefined for an unknown merchant or account: callers answer one 401 for both */
  find(merchantId: string, accountId: string): Account | undefined;
  all(): Account[];
  merchantIds(): string[];
  /** the merchant's accounts, in file order (the portal shows only these) */
  accountsOf(merchantId: string): Account[];
  /** a portal user by e-mail (unique across merchants, case-insensitive) */
  portalUser(email: string): PortalUser | undefined;
  /** every portal user of every merchant */
  portalUsers(): PortalUser[];
}

export function buildDirectory(file: MerchantsFile): MerchantDirectory {
  const accounts = file.merchants.flatMap((m) => m.accounts.map((a) => ({ ...a, merchant_id: m.merchant_id, merchant_name: m.name })));
  const users = file.merchants.flatMap((m) =>
    (m.portal_users ?? []).map((u) => ({
      merchant_id: m.merchant_id,
      email: u.email.toLowerCase(),
      password_hash: u.password_hash,
      role: u.role,
    })),
  );
  return directoryOf(accounts, users);
}

/** A directory over these accounts and users; an account or an e-mail listed twice is an error naming it. */
export function directoryOf(list: readonly Account[], userList: readonly PortalUser[]): MerchantDirectory {
  const byKey = new Map<string, Account>();
  for (const a of list) {
    const key = `${a.merchant_id}\u0000${a.account_id}`;
    if (byKey.has(key)) throw new Error(`account ${a.merchant_id}/${a.account_id} is listed twice`);
    byKey.set(key, a);
  }
  const users = new Map<string, PortalUser>();
  for (const u of userList) {
    if (users.has(u.email)) throw new Error(`portal user ${u.email} is listed twice (an e-mail signs in to one merchant)`);
    users.set(u.email, u);
  }
  const accounts = [...byKey.values()];
  const merchantIds = [...new Set(accounts.map((a) => a.merchant_id))];
  return {
    find: (merchantId, accountId) => byKey.get(`${merchantId}\u0000${accountId}`),
    all: () => accounts,
    merchantIds: () => merchantIds,
    accountsOf: (merchantId) => accounts.filter((a) => a.merchant_id === merchantId),
    portalUser: (email) => users.get(email.trim().toLowerCase()),
    portalUsers: () => [...users.values()],
  };
}

/** The other names of a loopback origin (localhost, 127.0.0.1, [::1]) on its port: the same gateway to a shopper. */
function loopbackAliases(origin: string): string[] {
  const url = new URL(origin);
  if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return [];
  return ['localhost', '127.0.0.1', '[::1]']
    .filter((h) => h !== url.hostname)
    .map((h) => `${url.protocol}//${h}${url.port ? `:${url.port}` : ''}`);
}

/**
 * The single demo merchant used when no MERCHANTS_FILE is given; its key (and portal sign-in) is printed at
 * start. Its website and storefront are the gateway's own origin (BASE_URL), so the example shop and every
 * documented example work on whatever port or host the gateway is reached at.
 */
export function demoMerchants(baseUrl: string, portalUser?: { email: string; password_hash: string }): MerchantsFile {
  const origin = new URL(baseUrl).origin;
  return merchantsFileSchema.parse({
    merchants: [
      {
        merchant_id: '1000001',
        name: 'Demo Shop',
        portal_users: portalUser ? [{ ...portalUser, role: 'admin' }] : [],
        accounts: [
          {
            account_id: '1000001001',
            sign_key: 'demo-sign-key-change-me',
            website: origin,
            storefront_domains: [origin],
            // the gateway's own origin under any loopback name, on whatever port it runs
            return_domains: loopbackAliases(origin),
            allowed_ips: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
            capture_mode: 'manual',
            currencies: ['USD', 'EUR', 'GBP'],
            routing: { connector_code: 'sandbox' },
            deposit_balance: { USD: 10_000_000, EUR: 10_000_000 },
            saved_cards: true,
          },
        ],
      },
    ],
  });
}

import { z } from 'zod';
import { fitsCurrency, parseAmount, wholeUnitsMessage } from '../../core/kernel/money.js';
import { luhnValid } from '../../core/kernel/cards.js';
import {
  accountId,
  amountText,
  currencyCode,
  merchantId,
  optionalAmountText,
  optionalText,
  optionalUrl,
  signature,
  text,
} from './common.js';
import { ABSENT, oneOfLane, patternLane, requestObject, withLane } from './fast-lane.js';

const email = z
  .union([z.literal(''), z.email({ error: 'must be an email address' })])
  .optional()
  .default('');
const ip = z
  .union([z.literal(''), z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address' })])
  .optional()
  .default('');

const birthDate = z
  .union([
    z.literal(''),
    z.string().refine((v) => {
      const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(v);
      if (!m) return false;
      const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const date = new Date(Date.UTC(y, mo - 1, d));
      return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 1900;
    }, 'must be a real date written DD-MM-YYYY'),
  ])
  .optional()
  .default('');

const itemsText = z
  .string()
  .max(10_000)
  .optional()
  .default('')
  .superRefine((v, ctx) => {
    if (v === '') return;
    v.split('#;#').forEach((record, i) => {
      const parts = record.split('#,#');
      if (parts.length !== 4) {
        ctx.addIssue({ code: 'custom', message: `item ${i + 1} must be name#,#item number#,#unit price#,#quantity` });
        return;
      }
      if (!parts[0]) ctx.addIssue({ code: 'custom', message: `item ${i + 1} has no name` });
      if (parseAmount(parts[2]!) === undefined)
        ctx.addIssue({ code: 'custom', message: `item ${i + 1} unit price must be a decimal amount with at most two fraction digits` });
      if (!/^[1-9]\d{0,5}$/.test(parts[3]!))
        ctx.addIssue({ code: 'custom', message: `item ${i + 1} quantity must be a positive whole number` });
    });
  });

/** Parsed items: unit price in minor units. */
export function parseItems(text: string): { name: string; number: string; unitPrice: number; quantity: number }[] {
  if (!text) return [];
  return text.split('#;#').map((r) => {
    const [name, number, price, qty] = r.split('#,#') as [string, string, string, string];
    return { name, number, unitPrice: parseAmount(price)!, quantity: Number(qty) };
  });
}

const num = z.number({ error: 'must be a number' }).finite();

const cartItem = z.object({
  basic_item_data: z.object({
    name: text(255),
    quantity: text(16).regex(/^\d+$/, 'must be a whole number written as a string'),
    type: text(64).optional(),
    category: text(128).optional(),
    productId: text(128).optional(),
    price: z.object({
      amount_usd: num.min(0, 'must not be negative'),
      amount_local_currency: num.min(0, 'must not be negative'),
      currency: currencyCode,
    }),
  }),
});

const accountOwner = z.object({
  first_name: text(64).optional(),
  last_name: text(64).optional(),
  email: z.union([z.literal(''), z.email({ error: 'must be an email address' })]).optional(),
  account_id: text(64).optional(),
  created: num.int('must be a whole number').optional(),
  past_orders_count: num.int('must be a whole number').min(0).optional(),
  past_orders_sum: num.min(0).optional(),
  lastLogin_ip: text(45).optional(),
  registration_ip: text(45).optional(),
});

const totalDiscount = z.object({ coupon_code_used: text(64).optional(), discount_type: text(64).optional() });

const mpiInfo = z.object({
  mpi_info: z.object({
    eci: text(4).optional(),
    cavv: text(64).optional(),
    xid: text(64).optional(),
    dsTransID: text(64).optional(),
  }),
});

const positiveInt = (what: string) =>
  z
    .union([num, z.string().regex(/^\d+$/, `must be a whole number`)])
    .transform(Number)
    .pipe(z.number().int(`must be a whole number`).min(1, `must be at least 1`).max(1000, `${what} must be at most 1000`));

const contractDate = z
  .union([z.literal(''), z.string().regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/, 'must be YYYY-MM-DD or YYYY-MM-DD hh:mm:ss')])
  .optional()
  .default('');

export const subscriptionSchema = z
  .object({
    contract: optionalText(64),
    contract_name: text(64).min(1, 'is required'),
    contract_amount: amountText,
    interval: z.enum(['day', 'week', 'month', 'year'], { error: 'must be day, week, month or year' }),
    interval_count: z
      .union([z.string(), num])
      .transform(String)
      .pipe(z.string().regex(/^[1-9]\d{0,2}$/, 'must be a whole number from 1 to 999')),
    billing_cycle: positiveInt('billing_cycle'),
    promotion_cycle: z
      .union([num, z.string().regex(/^\d+$/, 'must be a whole number')])
      .transform(Number)
      .pipe(z.number().int().min(0))
      .optional()
      .default(0),
    contract_start: contractDate,
    contract_end: contractDate,
    price_id: optionalText(64),
  })
  .superRefine((s, ctx) => {
    if (s.promotion_cycle > s.billing_cycle) {
      ctx.addIssue({ code: 'custom', path: ['promotion_cycle'], message: 'must not exceed billing_cycle' });
    }
    if (s.contract_start && s.contract_end && s.contract_end < s.contract_start) {
      ctx.addIssue({ code: 'custom', path: ['contract_end'], message: 'must not be before contract_start' });
    }
  });
export type SubscriptionRequest = z.output<typeof subscriptionSchema>;

const ORDER_NO = /^[\x21-\x7e]{1,64}$/;
const OPEN3D = ['do3DS', 'no3DS'] as const;
const TOKEN_FLAGS = ['YES', 'NO'] as const;
const COUNTRY = /^[A-Za-z]{2}$/;
/** A two-letter country code or '' ('' when absent); the lane's pattern takes '' as the union's literal does. */
const optionalCountry = () =>
  withLane(
    z
      .union([z.literal(''), z.string().regex(COUNTRY, 'must be a two-letter country code')])
      .optional()
      .default(''),
    patternLane(/^(?:[A-Za-z]{2})?$/, ''),
  );

/** Fields of a payment order, shared by /v1/authorise and /v1/checkout. */
export const orderFields = {
  merchant_id: merchantId,
  account_id: accountId,
  order_no: withLane(
    z.string({ error: 'is required' }).regex(ORDER_NO, 'must be 1 to 64 printable characters without spaces'),
    patternLane(ORDER_NO),
  ),
  currency: currencyCode,
  amount: amountText.refine((v) => parseAmount(v)! > 0, 'must be greater than 0.00'),
  item_total: optionalAmountText,
  shipping: optionalAmountText,
  handling: optionalAmountText,
  tax_total: optionalAmountText,
  insurance: optionalAmountText,
  shipping_discount: optionalAmountText,
  discount: optionalAmountText,
  website: optionalText(255),
  items: itemsText,
  note: optionalText(255),
  custom: optionalText(1024),
  document: optionalText(64),
  shopper_id: optionalText(64),
  shopper_email: email,
  shopper_ip: ip,
  shopper_phone: optionalText(32),
  shopper_level: optionalText(32),
  open3d: withLane(z.enum(OPEN3D, { error: 'must be do3DS or no3DS' }).optional().default('do3DS'), oneOfLane(OPEN3D, 'do3DS')),
  token_flag: withLane(z.enum(TOKEN_FLAGS, { error: 'must be YES or NO' }).optional().default('NO'), oneOfLane(TOKEN_FLAGS, 'NO')),
  token_id: optionalText(64),
  first_name: optionalText(64),
  last_name: optionalText(64),
  notify_url: optionalUrl,
  birth_date: birthDate,
  billing_country: optionalCountry(),
  billing_state: optionalText(64),
  billing_city: optionalText(64),
  billing_address: optionalText(255),
  billing_postal_code: optionalText(16),
  os: optionalText(64),
  browser: optionalText(64),
  browser_lang: optionalText(16),
  time_zone: optionalText(16),
  resolution: optionalText(16),
  color_depth: optionalText(8),
  user_agent: optionalText(512),
  cookie_new: optionalText(2048),
  cookie_old: optionalText(2048),
  challenge_window_size: z
    .union([z.literal(''), z.enum(['01', '02', '03', '04', '05'], { error: 'must be 01 to 05' })])
    .optional()
    .default(''),
  session_id: optionalText(128),
  device_fingerprint: optionalText(512),
  delivery_firstname: optionalText(64),
  delivery_lastname: optionalText(64),
  delivery_country: optionalCountry(),
  delivery_state: optionalText(64),
  delivery_city: optionalText(64),
  delivery_address: optionalText(255),
  delivery_postal_code: optionalText(16),
  installments: optionalText(8),
  installments_id: optionalText(64),
  platform_source: optionalText(64),
  device_type: optionalText(16),
  order_type: optionalText(16),
  checkout_time: z
    .union([num.int('must be a whole number'), z.string().regex(/^\d{1,13}$/, 'must be a whole number')])
    .optional()
    .transform((v) => (v === undefined ? undefined : Number(v))),
  antifraud_token_cookie: optionalText(512),
  price_id: optionalText(64),
  quote_id: optionalText(64),
  quote_price: optionalText(32),
  storefront_domains: optionalText(1024),
  encryption_data: signature,
  cart_items: z.array(cartItem).max(500).optional(),
  account_owner: z.array(accountOwner).max(10).optional(),
  total_discount: z.array(totalDiscount).max(50).optional(),
  additional_information: z.array(mpiInfo).max(10).optional(),
  subscription: subscriptionSchema.optional(),
};

/** Checks that the items add up to item_total (both in minor units). */
function itemsMatchTotal(o: { items: string; item_total?: string | undefined }, ctx: z.RefinementCtx): void {
  if (!o.items || o.item_total === undefined) return;
  const sum = parseItems(o.items).reduce((s, it) => s + it.unitPrice * it.quantity, 0);
  if (sum !== parseAmount(o.item_total)) {
    ctx.addIssue({ code: 'custom', path: ['items'], message: `unit price times quantity adds up to a value other than item_total` });
  }
}

const ORDER_AMOUNTS = ['amount', 'item_total', 'shipping', 'handling', 'tax_total', 'insurance', 'shipping_discount', 'discount'] as const;

/** A zero-decimal currency (JPY, KRW, ...) has no minor unit: its amounts must be whole (core/kernel/money.ts). */
function wholeUnits(
  o: { currency: string; subscription?: { contract_amount: string } | undefined } & Partial<
    Record<(typeof ORDER_AMOUNTS)[number], string | undefined>
  >,
  ctx: z.RefinementCtx,
): void {
  const fits = (v: string) => fitsCurrency(parseAmount(v)!, o.currency);
  const message = wholeUnitsMessage(o.currency);
  for (const f of ORDER_AMOUNTS) {
    if (o[f] && !fits(o[f])) ctx.addIssue({ code: 'custom', path: [f], message });
  }
  if (o.subscription && !fits(o.subscription.contract_amount))
    ctx.addIssue({ code: 'custom', path: ['subscription', 'contract_amount'], message });
}

/** Optional text matching `pattern`, with its lane. */
const optionalPattern = (pattern: RegExp, message: string) =>
  withLane(z.string({ error: 'must be a string' }).regex(pattern, message).optional(), patternLane(pattern, ABSENT));

const cardFields = {
  card: z
    .string({ error: 'must be a string' })
    .transform((v) => v.replace(/[ -]/g, ''))
    .pipe(
      z
        .string()
        .regex(/^\d{12,19}$/, 'must be 12 to 19 digits')
        .refine(luhnValid, 'is not a valid card number (Luhn check)'),
    )
    .optional(),
  expiration_month: optionalPattern(/^(0?[1-9]|1[0-2])$/, 'must be a month from 01 to 12'),
  expiration_year: optionalPattern(/^(\d{2}|\d{4})$/, 'must be a year written YY or YYYY'),
  security_code: optionalPattern(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  accept: optionalText(255),
  /** where the shopper goes after a 3-D Secure challenge (DESIGN 5); checked like notify_url */
  return_url: optionalUrl,
};

export const authoriseSchema = requestObject({ ...orderFields, ...cardFields }, (o, ctx) => {
  wholeUnits(o, ctx);
  itemsMatchTotal(o, ctx);
  if (!o.token_id) {
    for (const f of ['card', 'expiration_month', 'expiration_year', 'security_code'] as const) {
      if (!o[f]) ctx.addIssue({ code: 'custom', path: [f], message: 'is required (or token_id)' });
    }
  }
});
export type AuthoriseRequest = z.output<typeof authoriseSchema>;

export const checkoutSchema = requestObject(
  {
    ...orderFields,
    /** where the result page sends the shopper at the end */
    return_url: optionalUrl,
    cancel_url: optionalUrl,
    default_lang: optionalText(16),
  },
  (o, ctx) => {
    wholeUnits(o, ctx);
    itemsMatchTotal(o, ctx);
  },
);
export type CheckoutRequest = z.output<typeof checkoutSchema>;

/** The documented fields of /v1/checkout (others are bounded: schemas/common.ts boundExtraFields). */
export const checkoutFieldNames: ReadonlySet<string> = new Set([...Object.keys(checkoutSchema.shape), 'accept']);

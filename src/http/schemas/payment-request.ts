import { z } from 'zod';
import { fitsCurrency, formatAmount, isCurrency, parseAmount, wholeUnitsMessage } from '../../core/kernel/money.js';
import { luhnValid } from '../../core/kernel/cards.js';
import {
  accountId,
  amountText,
  positiveAmountText,
  currencyCode,
  merchantId,
  optionalAmountText,
  optionalAddressText,
  optionalText,
  optionalUrl,
  signature,
  text,
} from './common.js';
import { ABSENT, FAIL, oneOfLane, optionalTextLane, patternLane, requestObject, withLane } from './fast-lane.js';
import { eitherOf, requiredWith } from './either-of.js';
import { optionalTestClockId, TEST_CLOCK_ID } from './test-clocks.js';

// the lanes check by zod's own patterns (z.email(), z.ipv4() and z.ipv6() check by them; an IPv6 address must
// also be written with hex digits, colons and dots only, and be one the URL parser takes, as zod checks it)
const isIpv6 = (v: string): boolean => z.regexes.ipv6.test(v) && /^[0-9a-fA-F:.]+$/.test(v) && URL.canParse(`http://[${v}]`);
const email = withLane(
  z
    .union([z.literal(''), z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters')])
    .optional()
    .default(''),
  optionalTextLane((v) => v.length <= 254 && z.regexes.email.test(v)),
);
const ip = withLane(
  z
    .union([z.literal(''), z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address' })])
    .optional()
    .default(''),
  optionalTextLane((v) => z.regexes.ipv4.test(v) || isIpv6(v)),
);

/** A real calendar date written DD-MM-YYYY, from 1900 on. */
function isBirthDate(v: string): boolean {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(v);
  if (!m) return false;
  const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 1900;
}
const birthDate = withLane(
  z
    .union([
      z.literal(''),
      z
        .string()
        .refine(isBirthDate, 'must be a real date written DD-MM-YYYY')
        .regex(/^(?:0[1-9]|[12]\d|3[01])-(?:0[1-9]|1[0-2])-(?:19|[2-9]\d)\d{2}$/, 'must be a real date written DD-MM-YYYY'),
    ])
    .optional()
    .default(''),
  optionalTextLane(isBirthDate),
);

/** What is wrong with an items text (name#,#item number#,#unit price#,#quantity, records joined by #;#). */
export function itemProblems(v: string): string[] {
  const problems: string[] = [];
  if (v === '') return problems;
  v.split('#;#').forEach((record, i) => {
    const parts = record.split('#,#');
    if (parts.length !== 4) {
      problems.push(`item ${i + 1} must be name#,#item number#,#unit price#,#quantity`);
      return;
    }
    if (!parts[0]) problems.push(`item ${i + 1} has no name`);
    if (parseAmount(parts[2]!) === undefined)
      problems.push(`item ${i + 1} unit price must be a decimal amount with at most two fraction digits`);
    if (!/^[1-9]\d{0,5}$/.test(parts[3]!)) problems.push(`item ${i + 1} quantity must be a positive whole number`);
  });
  return problems;
}

/**
 * What every items text itemProblems accepts looks like (records of name, item number, unit price and
 * quantity): the document's pattern. A name or number holds no separator (#,# or #;#), as splitting on them
 * leaves none, so the pattern matches one way only and in linear time. Checked after itemProblems, whose
 * messages say what is wrong.
 */
const ITEM_TEXT = '(?:[^#]|#(?![,;]#))';
const ITEM = `${ITEM_TEXT}+#,#${ITEM_TEXT}*#,#(?:0|[1-9]\\d{0,10})(?:\\.\\d{1,2})?#,#[1-9]\\d{0,5}`;
const ITEMS_SHAPE = new RegExp(`^(?:${ITEM}(?:#;#${ITEM})*)?$`);

const itemsText = withLane(
  z
    .string()
    .max(10_000)
    .superRefine((v, ctx) => {
      for (const message of itemProblems(v)) ctx.addIssue({ code: 'custom', message });
    })
    .regex(ITEMS_SHAPE, 'must be name#,#item number#,#unit price#,#quantity records joined by #;#')
    .meta({ examples: ['T-shirt#,#SKU-1#,#5.00#,#2', 'Mug#,##,#7.5#,#1#;#Tea#,#T-9#,#2.25#,#4'] })
    .optional()
    .default(''),
  optionalTextLane((v) => v.length <= 10_000 && itemProblems(v).length === 0),
);

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

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isTextOf = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
const isAmountNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const WHOLE = /^\d+$/;

/** cartItem's output for an item it accepts, built in its shape's order; FAIL for anything else (zod words it). */
function cartItemLane(item: unknown): unknown {
  const b = isRecord(item) ? item.basic_item_data : undefined;
  const price = isRecord(b) ? b.price : undefined;
  if (!isRecord(b) || !isRecord(price)) return FAIL;
  if (!isTextOf(b.name, 255) || !isTextOf(b.quantity, 16) || !WHOLE.test(b.quantity)) return FAIL;
  const { amount_usd: usd, amount_local_currency: local, currency } = price;
  if (!isAmountNumber(usd) || !isAmountNumber(local) || typeof currency !== 'string' || !isCurrency(currency)) return FAIL;
  const data: Record<string, unknown> = { name: b.name, quantity: b.quantity };
  for (const [key, max] of CART_OPTIONAL_TEXT) {
    if (!(key in b)) continue;
    const v = b[key];
    if (v !== undefined && !isTextOf(v, max)) return FAIL;
    data[key] = v;
  }
  data.price = { amount_usd: usd, amount_local_currency: local, currency };
  return { basic_item_data: data };
}
const CART_OPTIONAL_TEXT = [
  ['type', 64],
  ['category', 128],
  ['productId', 128],
] as const;

/** The cart's lane: every item by cartItemLane, at most 500. */
function cartLane(v: unknown): unknown {
  if (v === undefined) return ABSENT;
  if (!Array.isArray(v) || v.length > 500) return FAIL;
  const out: unknown[] = [];
  for (const item of v) {
    const parsed = cartItemLane(item);
    if (parsed === FAIL) return FAIL;
    out.push(parsed);
  }
  return out;
}

const accountOwner = z.object({
  first_name: text(64).optional(),
  last_name: text(64).optional(),
  email: z.union([z.literal(''), z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters')]).optional(),
  account_id: text(64).optional(),
  // bounded so that no number kept as sent can be card-shaped (15 digits or more): a date in seconds or
  // milliseconds, a count and a sum of past orders
  created: num.int('must be a whole number').min(0).max(9_999_999_999_999).optional(),
  past_orders_count: num.int('must be a whole number').min(0).max(999_999_999).optional(),
  past_orders_sum: num.min(0).max(99_999_999_999_999).optional(),
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
    .union([num, z.string().regex(/^\d+$/, `must be a whole number`).max(16, 'must be at most 16 digits')])
    .transform(Number)
    .pipe(z.number().int(`must be a whole number`).min(1, `must be at least 1`).max(1000, `${what} must be at most 1000`))
    // the pipe's checks, as the number or text sent must be
    .meta({
      anyOf: [
        { type: 'string', pattern: '^0*(?:[1-9]\\d{0,2}|1000)$', maxLength: 16 },
        { type: 'integer', minimum: 1, maximum: 1000 },
      ],
    });

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
      .pipe(z.string().regex(/^[1-9]\d{0,2}$/, 'must be a whole number from 1 to 999'))
      // the pipe's check, as the text or number sent must be
      .meta({
        anyOf: [
          { type: 'string', pattern: '^[1-9]\\d{0,2}$' },
          { type: 'integer', minimum: 1, maximum: 999 },
        ],
      }),
    billing_cycle: positiveInt('billing_cycle'),
    promotion_cycle: z
      .union([num, z.string().regex(/^\d+$/, 'must be a whole number').max(16, 'must be at most 16 digits')])
      .transform(Number)
      .pipe(z.number().int().min(0))
      .meta({
        anyOf: [
          { type: 'string', pattern: '^\\d+$', maxLength: 16 },
          { type: 'integer', minimum: 0 },
        ],
      })
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
const CHALLENGE_WINDOWS = ['01', '02', '03', '04', '05'] as const;
const CHECKOUT_TIME = /^\d{1,13}$/;
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
  amount: withLane(positiveAmountText, (v) => {
    const minor = typeof v === 'string' ? parseAmount(v) : undefined;
    return minor !== undefined && minor > 0 ? formatAmount(minor) : FAIL;
  }),
  item_total: optionalAmountText,
  shipping: optionalAmountText,
  handling: optionalAmountText,
  tax_total: optionalAmountText,
  insurance: optionalAmountText,
  shipping_discount: optionalAmountText,
  discount: optionalAmountText,
  website: optionalAddressText(255),
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
  /** the test clock the payment belongs to (docs/test-clocks.md): sandbox accounts only */
  test_clock_id: withLane(
    optionalTestClockId,
    optionalTextLane((v) => TEST_CLOCK_ID.test(v)),
  ),
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
  challenge_window_size: withLane(
    z
      .union([z.literal(''), z.enum(CHALLENGE_WINDOWS, { error: 'must be 01 to 05' })])
      .optional()
      .default(''),
    oneOfLane(['', ...CHALLENGE_WINDOWS], ''),
  ),
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
  checkout_time: withLane(
    z
      .union([num.int('must be a whole number'), z.string().regex(CHECKOUT_TIME, 'must be a whole number')])
      .optional()
      .transform((v) => (v === undefined ? undefined : Number(v))),
    (v) =>
      v === undefined
        ? ABSENT
        : typeof v === 'number' && Number.isSafeInteger(v)
          ? v
          : typeof v === 'string' && CHECKOUT_TIME.test(v)
            ? Number(v)
            : FAIL,
  ),
  antifraud_token_cookie: optionalText(512),
  price_id: optionalText(64),
  quote_id: optionalText(64),
  quote_price: optionalText(32),
  storefront_domains: optionalAddressText(1024),
  encryption_data: signature,
  cart_items: withLane(z.array(cartItem).max(500).optional(), cartLane),
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

const CARD_DIGITS = /^\d{12,19}$/;
/** A card number as sent: 12 to 19 digits, spaces and dashes anywhere (they are removed before the checks). */
const CARD_AS_SENT = /^[ -]*(?:\d[ -]*){12,19}$/;
const cardFields = {
  card: withLane(
    z
      .string({ error: 'must be a string' })
      .regex(CARD_AS_SENT, 'must be 12 to 19 digits')
      .max(64, 'must be 12 to 19 digits')
      .transform((v) => v.replace(/[ -]/g, ''))
      .pipe(z.string().regex(CARD_DIGITS, 'must be 12 to 19 digits').refine(luhnValid, 'is not a valid card number (Luhn check)'))
      .meta({ description: '12 to 19 digits passing the Luhn check; spaces and dashes are removed', examples: ['4242424242424242'] })
      .optional(),
    (v) => {
      if (v === undefined) return ABSENT;
      const digits = typeof v === 'string' && v.length <= 64 ? v.replace(/[ -]/g, '') : '';
      return CARD_DIGITS.test(digits) && luhnValid(digits) ? digits : FAIL;
    },
  ),
  expiration_month: optionalPattern(/^(0?[1-9]|1[0-2])$/, 'must be a month from 01 to 12'),
  expiration_year: optionalPattern(/^(\d{2}|\d{4})$/, 'must be a year written YY or YYYY'),
  security_code: optionalPattern(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  accept: optionalText(255),
  /** where the shopper goes after a 3-D Secure challenge (docs/api.md); checked like notify_url */
  return_url: optionalUrl,
};

/** A payment by card names the card whole; one by a saved card names its token_id instead. */
const cardOrToken = eitherOf(['card', 'expiration_month', 'expiration_year', 'security_code'], ['token_id']);
/** A card sent is the card charged, with a token_id or not: its expiry comes with it. */
const cardExpiry = requiredWith('card', ['expiration_month', 'expiration_year']);

export const authoriseSchema = cardExpiry.describe(
  cardOrToken.describe(
    requestObject({ ...orderFields, ...cardFields }, (o, ctx) => {
      wholeUnits(o, ctx);
      itemsMatchTotal(o, ctx);
      cardOrToken.check(o, ctx);
      cardExpiry.check(o, ctx);
    }),
  ),
);
export type AuthoriseRequest = z.output<typeof authoriseSchema>;

export const checkoutSchema = requestObject(
  {
    ...orderFields,
    /** where the result page sends the shopper at the end */
    return_url: optionalUrl,
    cancel_url: optionalUrl,
    default_lang: optionalText(16),
    /** proves shopper_id (docs/checkout.md#saved-cards-for-returning-shoppers): SHA-256 of merchant_id + account_id + shopper_id + sign_key; never stored */
    shopper_signature: optionalText(64),
  },
  (o, ctx) => {
    wholeUnits(o, ctx);
    itemsMatchTotal(o, ctx);
  },
);
export type CheckoutRequest = z.output<typeof checkoutSchema>;

/** The documented fields of /v1/checkout (others are bounded: schemas/common.ts boundExtraFields). */
export const checkoutFieldNames: ReadonlySet<string> = new Set([...Object.keys(checkoutSchema.shape), 'accept']);

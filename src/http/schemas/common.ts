import { z } from 'zod';
import { formatAmount, isCurrency, ISO_4217, parseAmount } from '../../core/kernel/money.js';
import { GatewayError } from '../../core/kernel/errors.js';
import { holdsCardNumber } from '../../core/kernel/cards.js';
import { mapItems, maskFreeText } from './free-text.js';
import { ABSENT, FAIL, optionalTextLane, parseByLanes, patternLane, withLane } from './fast-lane.js';

/** Field shapes shared by every call's schema. */
export const text = (max = 255) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);
/** Optional text, '' when absent; its lane (schemas/fast-lane.ts) is the same check written out. */
export const optionalText = (max = 255) =>
  withLane(text(max).optional().default(''), (v) => (v === undefined ? '' : typeof v === 'string' && v.length <= max ? v : FAIL));

/**
 * Characters of the Basic Multilingual Plane only: zod counts a length in UTF-16 units and JSON Schema in
 * code points, which agree on such text. The same pattern reads alike with and without the u flag.
 */
// eslint-disable-next-line no-control-regex -- the whole plane, control characters included, is the point
const BMP_TEXT = /^[\u0000-\uD7FF\uE000-\uFFFF]*$/;
const textOf = (min: number, max: number) => (v: unknown) =>
  typeof v === 'string' && v.length >= min && v.length <= max && BMP_TEXT.test(v) ? v : FAIL;
const identifier = (max: number) =>
  z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .regex(BMP_TEXT, 'must not hold characters beyond U+FFFF');
export const merchantId = withLane(identifier(7), textOf(1, 7));
export const accountId = withLane(identifier(10), textOf(1, 10));
const SIGNATURE = /^[0-9a-fA-F]{64}$/;
export const signature = withLane(
  z.string({ error: 'is required' }).regex(SIGNATURE, 'must be 64 hexadecimal characters'),
  patternLane(SIGNATURE),
);

export const AMOUNT_SHAPE = 'must be a decimal amount with at most two fraction digits, such as "10.00"';
/**
 * A decimal amount as sent ("10", "10.5", "10.50"), normalised here to the two-decimal text answers write
 * ("10.00", "10.50"); the request signature was checked over the text as sent, before this.
 */
/** The texts parseAmount reads, as a pattern: at most 11 whole digits (MAX_MINOR), at most two fraction digits. */
export const AMOUNT_TEXT = /^(?:0|[1-9]\d{0,10})(?:\.\d{1,2})?$/;
/** The same, greater than zero. */
export const POSITIVE_AMOUNT_TEXT = /^(?:0\.(?:0[1-9]|[1-9]\d?)|[1-9]\d{0,10}(?:\.\d{1,2})?)$/;
const amountString = z
  .string({ error: 'must be a decimal string such as "10.00"' })
  .refine((v) => parseAmount(v) !== undefined, AMOUNT_SHAPE)
  .regex(AMOUNT_TEXT, AMOUNT_SHAPE);
export const amountText = amountString.transform((v) => formatAmount(parseAmount(v)!));
/**
 * An amount greater than 0.00 ("0", "0.00" are refused with that message). The check runs on the amount read
 * (so that inside a union its message still names the field's fault); the document's pattern says the same of
 * the text sent (test/http/schemas/document-patterns.test.ts holds the two together).
 */
export const positiveAmountText = amountText
  .refine((v) => parseAmount(v)! > 0, 'must be greater than 0.00')
  .meta({ pattern: POSITIVE_AMOUNT_TEXT.source });
export const optionalAmountText = withLane(amountText.optional(), (v) => {
  if (v === undefined) return ABSENT;
  const minor = typeof v === 'string' ? parseAmount(v) : undefined;
  return minor === undefined ? FAIL : formatAmount(minor);
});

export const currencyCode = withLane(
  z
    .string({ error: 'is required' })
    .refine(isCurrency, 'must be an ISO 4217 currency code such as "USD"')
    .meta({ enum: [...ISO_4217] }),
  (v) => (typeof v === 'string' && isCurrency(v) ? v : FAIL),
);

/** An absolute http or https URL. */
function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
/**
 * What every text the URL parser reads as an http or https URL starts with: the scheme, after any leading
 * control characters or spaces, tabs and line breaks anywhere in it ignored (as the parser ignores them).
 */
// eslint-disable-next-line no-control-regex -- the URL parser skips leading control characters, so the pattern does
const HTTP_URL_START = /^[\x00-\x20]*[Hh][\t\n\r]*[Tt][\t\n\r]*[Tt][\t\n\r]*[Pp][\t\n\r]*(?:[Ss][\t\n\r]*)?:/;
/** What an address holding a card number is told: refused, never stored (docs/security.md, "Card data"). */
export const CARD_IN_ADDRESS = 'must not hold a card number';
export const httpUrl = z
  .string()
  .max(2048)
  .refine(isHttpUrl, 'must be an http or https URL')
  .regex(HTTP_URL_START, 'must be an http or https URL')
  .refine((v) => !holdsCardNumber(v), CARD_IN_ADDRESS)
  .meta({ description: 'an absolute http or https URL', examples: ['https://shop.example/payments/notify'] });
/** An http or https URL, or '' (also when absent). */
export const optionalUrl = withLane(
  z
    .union([z.literal(''), httpUrl])
    .optional()
    .default(''),
  optionalTextLane((v) => v.length <= 2048 && isHttpUrl(v) && !holdsCardNumber(v)),
);
/**
 * Optional text that names an address without being one the gateway calls (`website`, `storefront_domains`):
 * any text, but never a card number, which is refused rather than masked, as in a URL field.
 */
export const optionalAddressText = (max: number) =>
  withLane(
    text(max)
      .refine((v) => !holdsCardNumber(v), CARD_IN_ADDRESS)
      .optional()
      .default(''),
    (v) => (v === undefined ? '' : typeof v === 'string' && v.length <= max && !holdsCardNumber(v) ? v : FAIL),
  );

/**
 * docs/api.md#bodies: an optional field sent empty counts as absent. Empty is the empty string, and for an object or
 * array field `{}`, `[]` or one whose every value is empty (at any depth), as form-built requests send them.
 */
export function isEmptyValue(value: unknown): boolean {
  if (value === '') return true;
  if (Array.isArray(value)) return value.every(isEmptyValue);
  if (value !== null && typeof value === 'object') return Object.values(value).every(isEmptyValue);
  return false;
}

/**
 * A copy of a request body without its empty fields, at every level of objects (array items stay in place,
 * so an error's path such as `capture_orders.3.amount` still names the item sent). Required fields sent
 * empty are then simply missing, and answered "is required". The copy has no prototype: a member named
 * `__proto__` (refused when the body is read, http/middleware/body.ts) would otherwise become the copy's
 * prototype, and the schema would read signed fields sent empty from it.
 */
export function withoutEmptyFields(value: unknown): unknown {
  if (Array.isArray(value)) return mapItems(value, withoutEmptyFields);
  if (value === null || typeof value !== 'object') return value;
  // copied only from the first field that changes: a body without empty fields is read as it came
  const record = value as Record<string, unknown>;
  const names = Object.keys(record);
  let kept: Record<string, unknown> | undefined;
  for (let i = 0; i < names.length; i++) {
    const k = names[i]!;
    const v = record[k];
    // a text or a number is kept as it is: only objects and arrays need the walk
    const drop = v === '' || (v !== null && typeof v === 'object' && isEmptyValue(v));
    const next = drop || v === null || typeof v !== 'object' ? v : withoutEmptyFields(v);
    if (kept === undefined && (drop || next !== v)) {
      kept = Object.create(null) as Record<string, unknown>;
      for (let j = 0; j < i; j++) kept[names[j]!] = record[names[j]!];
    }
    if (kept !== undefined && !drop) kept[k] = next;
  }
  return kept ?? record;
}

/** Checks a request against its call's schema, empty fields counting as absent: the one way bodies are read. */
export function safeParseRequest<T extends z.ZodType>(schema: T, input: unknown): z.ZodSafeParseResult<z.output<T>> {
  return schema.safeParse(withoutEmptyFields(input));
}

/** The value at an issue's path, to tell a missing field from a malformed one. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/**
 * Checks a request against its schema; the first zod issue becomes a 400 that names the field. Card
 * numbers typed into free-text fields come out masked (schemas/free-text.ts).
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const present = withoutEmptyFields(input);
  // most bodies are valid: the narrow path answers them, and the full schema words any error
  const quick = parseByLanes(schema, present);
  if (quick !== FAIL) return maskFreeText(quick as z.output<T>);
  const parsed = schema.safeParse(present);
  if (parsed.success) return maskFreeText(parsed.data);
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.') || 'body';
  let message = issue.message;
  if (issue.code === 'invalid_type' && valueAt(present, issue.path) === undefined) message = 'is required';
  return throwField(field, message);
}

function throwField(field: string, message: string): never {
  throw new GatewayError(message === 'is required' ? 'MISSING_FIELD' : 'INVALID_FIELD', `${field}: ${message}`, field);
}

/**
 * Fields outside a call's schema are kept (the checkout form echoes every request field), but bounded: at
 * most `maxCount`, each a string, number or boolean of at most `maxLength` characters.
 */
export function boundExtraFields(body: Record<string, unknown>, known: ReadonlySet<string>, maxCount = 32, maxLength = 1024): void {
  let count = 0;
  for (const name of Object.keys(body)) {
    if (known.has(name)) continue;
    const value = body[name];
    if (++count > maxCount) throwField(name, `is one field too many: at most ${maxCount} fields outside the documented ones`);
    if (value !== null && typeof value === 'object') throwField(name, 'must be text (an undocumented field)');
    if (String(value).length > maxLength) throwField(name, `must be at most ${maxLength} characters`);
  }
}

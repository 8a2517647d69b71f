import { z } from 'zod';
import { cardBrand, luhnValid } from '../../core/kernel/cards.js';
import { acceptedBrands, BRAND_NAMES, securityCodeLength, type CardBrandCode } from '../../core/records/branding.js';
import type { MessageKey } from '../../i18n/index.js';
import type { BrowserInfo } from '../../core/ports/card-connector.js';

/** 3-D Secure 2 browser data the card page's script collects (EMV 3DS browser fields). */
export const BROWSER_FIELDS = [
  'browser_screen_width',
  'browser_screen_height',
  'browser_color_depth',
  'browser_tz_offset',
  'browser_language',
  'browser_java_enabled',
  'browser_javascript_enabled',
] as const;

/**
 * The hosted card page's form. Messages are catalogue keys (src/i18n): the page shows them in the shopper's
 * language. Every field's problem is reported next to that field.
 */
export const cardFormSchema = z
  .object({
    cardholder: z.string().trim().min(1, 'error.cardholder').max(64, 'error.cardholder_long'),
    card: z
      .string()
      .transform((v) => v.replace(/[\s-]/g, ''))
      .pipe(
        z
          .string()
          .regex(/^\d{12,19}$/, 'error.card_digits')
          .refine(luhnValid, 'error.card_invalid'),
      ),
    expiration_month: z
      .string()
      .trim()
      .regex(/^(0?[1-9]|1[0-2])$/, 'error.month'),
    expiration_year: z
      .string()
      .trim()
      .regex(/^(\d{2}|\d{4})$/, 'error.year'),
    security_code: z.string().regex(/^\d{3,4}$/, 'error.csc'),
  })
  .superRefine((form, ctx) => {
    // 4 digits on the front of an American Express card, 3 on the back of the others
    if (/^\d{3,4}$/.test(form.security_code) && form.security_code.length !== securityCodeLength(cardBrand(form.card)))
      ctx.addIssue({ code: 'custom', path: ['security_code'], message: 'error.csc' });
  });
export type CardForm = z.output<typeof cardFormSchema>;
type CardField = keyof CardForm;

export interface FormProblem {
  key: MessageKey;
  params?: Record<string, string | number>;
}
/** Problems by field: the card form's, and the saved-card part's (views/partials/saved-cards.ejs, docs/checkout.md#saved-cards-for-returning-shoppers). */
export type CardFormErrors = Partial<Record<CardField | 'saved_card' | 'saved_security_code', FormProblem>>;

const FIELDS: CardField[] = ['cardholder', 'card', 'expiration_month', 'expiration_year', 'security_code'];

/** The checked form, or one problem per field at fault. */
export function readCardForm(body: Record<string, unknown>): { ok: true; form: CardForm } | { ok: false; errors: CardFormErrors } {
  const input = Object.fromEntries(FIELDS.map((k) => [k, typeof body[k] === 'string' ? body[k] : '']));
  const parsed = cardFormSchema.safeParse(input);
  if (parsed.success) return { ok: true, form: parsed.data };
  const errors: CardFormErrors = {};
  const pan = String(input.card).replace(/[\s-]/g, '');
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] as CardField;
    const key = issue.message as MessageKey;
    errors[field] ??= key === 'error.csc' ? { key, params: { digits: securityCodeLength(cardBrand(pan)) } } : { key };
  }
  return { ok: false, errors };
}

/** A card of a brand the account does not accept (its `card_brands`): the problem to show, else undefined. */
export function brandRefusal(pan: string, cardBrands: readonly string[]): FormProblem | undefined {
  if (cardBrands.length === 0) return undefined;
  const accepted = acceptedBrands(cardBrands);
  const brand = cardBrand(pan);
  if ((accepted as string[]).includes(brand)) return undefined;
  const name = brand in BRAND_NAMES ? BRAND_NAMES[brand as CardBrandCode] : brand;
  return { key: 'error.card_brand', params: { brand: name, brands: accepted.map((b) => BRAND_NAMES[b]).join(', ') } };
}

/** Digits as a number, or undefined when absent or not a small integer. */
function integer(v: unknown, min: number, max: number): number | undefined {
  if (typeof v !== 'string' || !/^-?\d{1,5}$/.test(v.trim())) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
}

/**
 * The 3-D Secure 2 browser data the page's script filled in, plus the request's own headers. Without the
 * script the fields are empty: JavaScript is then recorded as off. Anything malformed is dropped, never refused.
 */
export function readBrowserData(body: Record<string, unknown>, headers: { userAgent?: string; accept?: string }): BrowserInfo {
  const language = typeof body.browser_language === 'string' ? body.browser_language.trim() : '';
  const info: BrowserInfo = {
    java_enabled: body.browser_java_enabled === 'true',
    javascript_enabled: body.browser_javascript_enabled === 'true',
  };
  const width = integer(body.browser_screen_width, 1, 99_999);
  const height = integer(body.browser_screen_height, 1, 99_999);
  const depth = integer(body.browser_color_depth, 1, 99);
  const offset = integer(body.browser_tz_offset, -900, 900);
  if (width !== undefined) info.screen_width = width;
  if (height !== undefined) info.screen_height = height;
  if (depth !== undefined) info.color_depth = depth;
  if (offset !== undefined) info.tz_offset = offset;
  if (/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8}){0,4}$/.test(language)) info.language = language;
  if (headers.userAgent) info.user_agent = headers.userAgent.slice(0, 2048);
  if (headers.accept) info.accept_header = headers.accept.slice(0, 2048);
  return info;
}

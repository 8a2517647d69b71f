import type { z } from 'zod';
import { CALLS } from './calls/index.js';
import { PAGES } from './openapi/pages.js';
import { jsonSchemaOf } from './openapi/json-schema.js';
import { checkoutFieldNames } from './schemas/payment-request.js';
import { CHECKOUT_ALIASES } from '../core/checkout/form.js';
import { EVIDENCE_MAX_CHARS } from '../core/records/dispute-record.js';
import { maxPatternLength } from './pattern-length.js';
import { DEFAULT_BOUNDS, type BodyBounds } from './body-text.js';

export type { BodyBounds };
export { DEFAULT_BOUNDS };

/** Fields a merchant may add besides the documented ones, and the room each may take (undocumented, ignored). */
const SLACK_ELEMENTS = 64;
/** Undocumented fields /v1/checkout keeps for its loading form (schemas/common.ts boundExtraFields). */
const CHECKOUT_EXTRAS = { count: 32, name: 64, chars: 1024 };

type Json = Record<string, unknown>;

/** The largest a value is written in each encoding the gateway reads, in bytes, and its elements. */
interface Size {
  json: number;
  xml: number;
  /** as one form field's value (0: a value a form cannot carry) */
  form: number;
  elements: number;
}

/**
 * Each character of a value counts 3 bytes: any character of the Basic Multilingual Plane in UTF-8, or one
 * percent-escaped byte of a form. Twice the total (bytesOf) leaves room for every character escaped
 * (`\uXXXX` in JSON, two-byte UTF-8 characters percent-escaped in a form) and for white space.
 */
const CHAR_BYTES = 3;
/** A JSON number's longest shortest form (`-1.2345678901234567e-308`). */
const NUMBER_CHARS = 24;

const text = (chars: number): Size => ({ json: chars * CHAR_BYTES + 2, xml: chars * CHAR_BYTES, form: chars * CHAR_BYTES, elements: 0 });
const widest = (a: Size, b: Size): Size => ({
  json: Math.max(a.json, b.json),
  xml: Math.max(a.xml, b.xml),
  form: Math.max(a.form, b.form),
  elements: Math.max(a.elements, b.elements),
});

/** The longest text a string schema takes: its maxLength, its enum, its pattern's (and every allOf's) bound. */
function stringChars(s: Json, where: string): number {
  let max = Infinity;
  if (typeof s.maxLength === 'number') max = s.maxLength;
  if (Array.isArray(s.enum)) max = Math.min(max, Math.max(...s.enum.map((v) => String(v).length)));
  if (s.const !== undefined) max = Math.min(max, String(s.const).length);
  if (typeof s.pattern === 'string') max = Math.min(max, maxPatternLength(s.pattern));
  for (const part of (s.allOf as Json[] | undefined) ?? [])
    if (typeof part.pattern === 'string') max = Math.min(max, maxPatternLength(part.pattern));
  if (!Number.isFinite(max)) throw new Error(`body bounds: ${where} has no maximum length (give its schema one)`);
  return max;
}

function sizeOf(s: Json, where: string): Size {
  const branches = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (branches && s.type === undefined && s.properties === undefined) {
    return branches.map((b) => sizeOf(b, where)).reduce(widest);
  }
  if (s.type === 'object' || s.properties !== undefined) {
    const out: Size = { json: 2, xml: 0, form: 0, elements: 0 };
    for (const [name, member] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
      const inner = sizeOf(member, `${where}.${name}`);
      const items = member.type === 'array' ? Number(member.maxItems) : 1;
      out.json += name.length + 4 + inner.json;
      // an array member is its element repeated, one per item (http/middleware/xml-body.ts)
      out.xml += member.type === 'array' ? inner.xml + items * (2 * name.length + 5) : inner.xml + 2 * name.length + 5;
      out.form += name.length + 2 + inner.form;
      out.elements += 1 + inner.elements;
    }
    return { ...out, form: where === '' ? out.form : 0 };
  }
  if (s.type === 'array') {
    if (typeof s.maxItems !== 'number') throw new Error(`body bounds: ${where} has no maximum number of items`);
    const item = sizeOf((s.items ?? {}) as Json, `${where}[]`);
    return { json: 2 + s.maxItems * (item.json + 1), xml: s.maxItems * item.xml, form: 0, elements: s.maxItems * (1 + item.elements) };
  }
  if (s.type === 'string') return text(stringChars(s, where));
  if (s.type === 'number' || s.type === 'integer') return text(NUMBER_CHARS);
  if (s.type === 'boolean') return text(5);
  throw new Error(`body bounds: ${where} has no type the bounds know`);
}

/** The declaration `<?xml version="1.0" encoding="UTF-8"?>` and a root element named at most 64 characters. */
const XML_ENVELOPE = 40 + 2 * 64 + 5;

/** Bytes to allow for a body of this size: twice the largest encoding (escapes, white space), whole KB. */
const bytesOf = (size: Size): number => Math.ceil((2 * Math.max(size.json, size.xml + XML_ENVELOPE, size.form)) / 1024) * 1024;

/** The bounds of a request schema, plus any room its call declares beside it. */
export function boundsOfSchema(schema: z.ZodType, extra: Size = { json: 0, xml: 0, form: 0, elements: 0 }): BodyBounds {
  const size = sizeOf(jsonSchemaOf(schema, true), '');
  const total = { json: size.json + extra.json, xml: size.xml + extra.xml, form: size.form + extra.form, elements: size.elements };
  return { bytes: bytesOf(total), elements: size.elements + extra.elements + SLACK_ELEMENTS };
}

/** The bounds of a form's fields, each named with its maximum length. */
export function boundsOfForm(fields: Readonly<Record<string, number>>): BodyBounds {
  const size: Size = { json: 2, xml: 0, form: 0, elements: 0 };
  for (const [name, chars] of Object.entries(fields)) {
    size.json += name.length + 4 + text(chars).json;
    size.xml += 2 * name.length + 5 + text(chars).xml;
    size.form += name.length + 2 + text(chars).form;
    size.elements += 1;
  }
  return { bytes: bytesOf(size), elements: size.elements + SLACK_ELEMENTS };
}

/**
 * /v1/checkout: the merchant's request with its undocumented fields, and the loading page's own form post
 * (every field of the request, its aliases, the routing fields and `allParams`, the request again as one text),
 * which the shopper's browser sends to the same address: about three times the request.
 */
function checkoutBounds(schema: z.ZodType): BodyBounds {
  const extras = CHECKOUT_EXTRAS.count * (CHECKOUT_EXTRAS.name + 4 + text(CHECKOUT_EXTRAS.chars).json);
  const request = boundsOfSchema(schema, { json: extras, xml: extras, form: extras, elements: CHECKOUT_EXTRAS.count });
  const loadingFields = checkoutFieldNames.size + CHECKOUT_EXTRAS.count + CHECKOUT_ALIASES.length + 32;
  return { bytes: 3 * request.bytes, elements: Math.max(request.elements, loadingFields + SLACK_ELEMENTS) };
}

/** The hosted pages' and the portal's form posts, by their OpenAPI operationId: each field's longest value. */
const CSRF = 256;
const PAGE_FORMS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  cardPageSubmit: {
    cardholder: 64,
    card: 64,
    expiration_month: 2,
    expiration_year: 4,
    security_code: 4,
    browser_screen_width: 16,
    browser_screen_height: 16,
    browser_color_depth: 16,
    browser_tz_offset: 16,
    browser_language: 64,
    browser_java_enabled: 5,
    browser_javascript_enabled: 5,
    saved_card: 80,
    saved_security_code: 4,
    save_card: 1,
    attempt: 16,
  },
  savedCardRemove: { card_id: 80 },
  cancelConfirmSubmit: {},
  challengeSubmit: { code: 64, return_url: 2048, notify_url: 2048 },
  challengeCancel: { return_url: 2048, notify_url: 2048 },
  // what an acquirer's page posts back (Adyen's redirectResult; 3-D Secure 1's MD and PaRes)
  challengeReturnPost: { redirectResult: 16_384, payload: 16_384, MD: 1024, PaRes: 16_384, payment_intent: 255 },
  portalPostPortalLogin: { email: 254, password: 200, _csrf: CSRF },
  portalPostPortalLogout: { _csrf: CSRF },
  portalPostPortalInviteMerchantIdToken: { username: 254, new_password: 200 },
  portalPostPortalPaymentsTransactionIdCapture: { amount: 32, _csrf: CSRF },
  portalPostPortalPaymentsTransactionIdCancel: { _csrf: CSRF },
  portalPostPortalPaymentsTransactionIdRefund: { refund_amount: 32, refund_reason: 255, _csrf: CSRF },
  portalPostPortalPaymentsTransactionIdResend: { notify_id: 64, _csrf: CSRF },
  portalPostPortalSubscriptionsRecurringIdCancel: { _csrf: CSRF },
  portalPostPortalDisputesDisputeIdEvidence: {
    product_description: EVIDENCE_MAX_CHARS,
    customer_communication: EVIDENCE_MAX_CHARS,
    shipping_tracking: EVIDENCE_MAX_CHARS,
    uncategorized_text: EVIDENCE_MAX_CHARS,
    submit: 1,
    _csrf: CSRF,
  },
  portalPostPortalDisputesDisputeIdAccept: { _csrf: CSRF },
  portalPostPortalAccountPassword: { current_password: 200, new_password: 200, _csrf: CSRF },
};

/** Each call's bounds, by the path its declaration names (a merchant call of http/calls, or a page post such as `/portal/disputes/:disputeId/evidence`). */
export const BODY_BOUNDS: ReadonlyMap<string, BodyBounds> = new Map<string, BodyBounds>([
  ...CALLS.map((c): [string, BodyBounds] => [c.path, c.operationId === 'checkout' ? checkoutBounds(c.request) : boundsOfSchema(c.request)]),
  ...PAGES.filter((p) => p.method === 'post' && p.operationId in PAGE_FORMS).map((p): [string, BodyBounds] => [
    p.path,
    boundsOfForm(PAGE_FORMS[p.operationId]!),
  ]),
]);

/** The page posts' paths as patterns (`:name` is one path segment). */
const PATTERNS: readonly [RegExp, BodyBounds][] = [...BODY_BOUNDS]
  .filter(([path]) => path.includes(':'))
  .map(([path, bounds]) => [new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}$`), bounds]);

/** The bounds of the POST to `path`: its call's, else DEFAULT_BOUNDS. */
export function bodyBoundsFor(path: string): BodyBounds {
  const fixed = BODY_BOUNDS.get(path);
  if (fixed) return fixed;
  for (const [pattern, bounds] of PATTERNS) if (pattern.test(path)) return bounds;
  return DEFAULT_BOUNDS;
}

/** The pages' form posts declared above (a test checks every form post of the pages is). */
export const PAGE_FORM_IDS: readonly string[] = Object.keys(PAGE_FORMS);

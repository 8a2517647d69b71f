import { z } from 'zod';

type Json = Record<string, unknown>;

const AMOUNT_FIELDS = new Set([
  'amount',
  'refund_amount',
  'contract_amount',
  'item_total',
  'shipping',
  'handling',
  'tax_total',
  'insurance',
  'shipping_discount',
  'discount',
  'payment_amount',
  'source_amount',
]);

/**
 * zod's JSON Schema of a request keeps types, lengths, patterns and enums; what only code can check (an
 * amount's fraction digits against its currency) is said in a description here. In a request, a member
 * sent empty counts as absent (docs/api.md#bodies): a required text, object or array is therefore not empty.
 */
function annotate(node: unknown, request: boolean): void {
  if (Array.isArray(node)) return node.forEach((n) => annotate(n, request));
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  const props = obj.properties as Record<string, Json> | undefined;
  if (props) {
    const required = new Set((obj.required as string[] | undefined) ?? []);
    for (const [name, p] of Object.entries(props)) {
      if (request && required.has(name)) notEmpty(p);
      if (AMOUNT_FIELDS.has(name) && !p.description)
        p.description = 'decimal string with at most two fraction digits, e.g. "10.00" (whole units only in zero-decimal currencies)';
      if (/currency$/.test(name) && !p.description) p.description = 'ISO 4217 currency code, e.g. "USD"';
    }
  }
  for (const v of Object.values(obj)) annotate(v, request);
}

/** A required member's schema (each branch of its anyOf) made to refuse the empty value. */
function notEmpty(p: Json): void {
  const branches = (p.anyOf ?? p.oneOf) as Json[] | undefined;
  if (branches) return branches.forEach(notEmpty);
  if (p.type === 'string' && !(Number(p.minLength) >= 1)) p.minLength = 1;
  if (p.type === 'array' && !(Number(p.minItems) >= 1)) p.minItems = 1;
  if (p.type === 'object' && !(Number(p.minProperties) >= 1)) p.minProperties = 1;
}

/**
 * The JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a zod schema, as requests are read (io: input);
 * `request` for a request's schema (empty members count as absent), not for an answer's.
 */
export function jsonSchemaOf(schema: z.ZodType, request = false): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
  delete out.$schema;
  annotate(out, request);
  return out;
}

/** Whether a schema (or every branch of its anyOf) is an object or an array. */
function structured(schema: Json): boolean {
  if (schema.type === 'object' || schema.type === 'array') return true;
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return Array.isArray(branches) && branches.some((b) => b.type === 'object' || b.type === 'array');
}

/**
 * A form body's `encoding`: as merchants send them, the nested objects and arrays of a form-encoded request
 * are JSON text (a field `cart_items=[{...}]`), which OpenAPI says with contentType application/json.
 */
export function formEncoding(request: Json): { encoding?: Record<string, { contentType: string }> } {
  const props = (request.properties ?? {}) as Record<string, Json>;
  const nested = Object.entries(props).filter(([, p]) => structured(p));
  return nested.length ? { encoding: Object.fromEntries(nested.map(([name]) => [name, { contentType: 'application/json' }])) } : {};
}

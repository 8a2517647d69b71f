import { GatewayError, invalidField } from '../core/kernel/errors.js';
import { parseXmlDocument } from './middleware/xml-body.js';

/**
 * What a call's body may be before anything else is done with it (docs/security.md, "Bodies"): its size in
 * bytes and how many elements (JSON members and items, XML elements, form fields) it may hold. Each call's
 * are in http/body-bounds.ts; nesting is bounded for every call alike (MAX_DEPTH).
 */
export interface BodyBounds {
  bytes: number;
  elements: number;
}

/** Deeper JSON or XML is refused before it is parsed: no call has more than five levels, so 32 is generous. */
export const MAX_DEPTH = 32;
export const MAX_JSON_DEPTH = MAX_DEPTH;

/** Any POST the call tables do not name (an unknown address answers 404 once the body is read). */
export const DEFAULT_BOUNDS: BodyBounds = { bytes: 16 * 1024, elements: 64 };

/**
 * What a JSON text's shape passes first, counted in one pass without parsing (brackets and commas inside
 * strings do not count), stopping as soon as a bound is passed: a deeply nested or very wide body costs no
 * more than the part of it read. Elements are members and items (each comma, and each non-empty container's
 * first), an upper bound of what the parse would build.
 */
export function jsonShapeExceeds(text: string, maxDepth: number, maxElements: number): 'depth' | 'elements' | undefined {
  let depth = 0;
  let elements = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'depth';
      if (++elements > maxElements) return 'elements';
    } else if (c === 0x2c) {
      if (++elements > maxElements) return 'elements';
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/** The nesting depth of a JSON text passes `max` (jsonShapeExceeds without an element bound). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  return jsonShapeExceeds(text, max, Infinity) === 'depth';
}

/** How many fields a form text has, counted up to `max` + 1 (each `&` separates two). */
function formFieldsExceed(text: string, max: number): boolean {
  let fields = 1;
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) if (++fields > max) return true;
  return false;
}

/**
 * Bodies up to this length are parsed where they are read, on the event loop (well under a millisecond of CPU
 * however they are shaped), and a JSON one is checked for depth after parsing; longer ones and every XML
 * document are scanned first and parsed in the body workers (http/body-pool.ts).
 */
export const PARSE_INLINE_UP_TO = 16 * 1024;

/**
 * Whether the text has more than `max` opening brackets at all (inside strings too): a text with no more
 * cannot nest deeper than `max`. indexOf runs natively, so a typical call's body is cleared without walking
 * its parsed value.
 */
export function bracketsExceed(text: string, max: number): boolean {
  let n = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) if (++n > max) return true;
  }
  return false;
}

/** The nesting depth of a parsed JSON value (objects and arrays count, as in jsonDepthExceeds), past `max`. */
export function valueDepthExceeds(value: unknown, max: number, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth + 1 > max) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (valueDepthExceeds(v, max, depth + 1)) return true;
    return false;
  }
  for (const k in value) if (valueDepthExceeds((value as Record<string, unknown>)[k], max, depth + 1)) return true;
  return false;
}

/** Names that reach JavaScript's object machinery rather than a field (docs/api.md#bodies): refused as member names. */
export const RESERVED_MEMBER_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const reservedName = (path: string): GatewayError => invalidField(path, 'is a reserved name, not a field');

/**
 * Whether a JSON text may hold a reserved member name: one written out (each holds `proto` or `struct`), or
 * one behind a `\u` escape (the only way JSON spells a letter otherwise). Most bodies hold none of the three:
 * three native searches (under 1 µs for a 1 KB authorisation, a fifth of its JSON.parse) clear them, and only
 * the others have their parsed value walked.
 */
function mayHoldReservedName(text: string): boolean {
  return text.includes('proto') || text.includes('struct') || text.includes('\\u');
}

/** The path of the first member with a reserved name in a parsed JSON value (`capture_orders.0.__proto__`). */
export function reservedMemberPath(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = reservedMemberPath(value[i]);
      if (inner !== undefined) return `${i}.${inner}`;
    }
    return undefined;
  }
  for (const name of Object.keys(value)) {
    // checked before the value is read: reading "__proto__" would give the prototype, not the member
    if (RESERVED_MEMBER_NAMES.has(name)) return name;
    const inner = reservedMemberPath((value as Record<string, unknown>)[name]);
    if (inner !== undefined) return `${name}.${inner}`;
  }
  return undefined;
}

/**
 * Merchants send a JSON text whatever the declared content type. The raw body is read and taken as JSON
 * when it starts with `{` or `[`, as an XML document when it starts with `<` (xml-body.ts), otherwise as
 * form fields, whatever it was declared as (docs/api.md#bodies: form fields declared as XML are form fields). Errors
 * never quote the body: it may hold card data.
 */
export function parseBodyText(text: string, bounds: BodyBounds = DEFAULT_BOUNDS): Record<string, unknown> {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = unmarked.trim();
  if (trimmed === '') return {};
  if (trimmed[0] === '<') {
    return parseXmlDocument(trimmed, { maxDepth: MAX_DEPTH, maxElements: bounds.elements, reserved: RESERVED_MEMBER_NAMES });
  }
  if (trimmed[0] === '{' || trimmed[0] === '[') {
    const tooDeep = () => new GatewayError('INVALID_BODY', `body: is nested deeper than ${MAX_DEPTH} levels`, 'body');
    // a large body is scanned before parsing, so its shape cannot make the parse costly; a small one (every
    // single-order call) parses in well under a millisecond however it is shaped, and checking the parsed
    // value's depth is cheaper than a character scan on every request
    const small = trimmed.length <= PARSE_INLINE_UP_TO;
    if (!small) {
      const passed = jsonShapeExceeds(trimmed, MAX_DEPTH, bounds.elements);
      if (passed === 'depth') throw tooDeep();
      if (passed === 'elements') throw new GatewayError('INVALID_BODY', `body: has more than ${bounds.elements} elements`, 'body');
    }
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new GatewayError('INVALID_BODY', 'body: is not valid JSON', 'body');
    }
    if (small && bracketsExceed(trimmed, MAX_DEPTH) && valueDepthExceeds(value, MAX_DEPTH)) throw tooDeep();
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new GatewayError('INVALID_BODY', 'body: must be a JSON object', 'body');
    }
    // a member named __proto__ is an own member of what JSON.parse builds, but a copy made by assignment
    // takes it as its prototype: what the signature covered would no longer be what the schemas read
    const reserved = mayHoldReservedName(trimmed) ? reservedMemberPath(value) : undefined;
    if (reserved !== undefined) throw reservedName(reserved);
    return value as Record<string, unknown>;
  }
  if (formFieldsExceed(trimmed, bounds.elements))
    throw new GatewayError('INVALID_BODY', `body: has more than ${bounds.elements} fields`, 'body');
  // no prototype: a field named like one of Object's members (toString) is a field like any other
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of new URLSearchParams(trimmed)) {
    if (RESERVED_MEMBER_NAMES.has(k)) throw reservedName(k);
    if (!(k in fields)) fields[k] = v;
  }
  return fields;
}

/** Which reader a body text goes to: a document (`<`), JSON (`{`, `[`), or form fields. */
export function bodyKind(text: string): 'xml' | 'json' | 'form' {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfeff || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x3c ? 'xml' : c === 0x7b || c === 0x5b ? 'json' : 'form';
  }
  return 'form';
}

import express, { type NextFunction, type Request, type Response } from 'express';
import { GatewayError, invalidField } from '../../core/kernel/errors.js';
import { parseXmlDocument } from './xml-body.js';

/** Batch calls carry up to 100 orders; every other call is one order or a lookup. */
export const BATCH_BODY_LIMIT = 1024 * 1024;
export const BODY_LIMIT = 64 * 1024;
/** Deeper JSON is refused before it is parsed: no call has more than four levels, so 32 is generous. */
export const MAX_JSON_DEPTH = 32;

const BATCH_PATHS = new Set(['/v1/capture', '/v1/review', '/v1/cancel', '/v1/refund']);

/** Dispute evidence: four fields of up to 20,000 characters each (DESIGN 13), so the batch calls' limit. */
const EVIDENCE_PATHS = /^\/(?:v1\/disputeEvidence|portal\/disputes\/[^/]+\/evidence)$/;

/** The body limit of a path, in bytes (docs/security.md lists them). */
export function bodyLimitFor(path: string): number {
  return BATCH_PATHS.has(path) || EVIDENCE_PATHS.test(path) ? BATCH_BODY_LIMIT : BODY_LIMIT;
}

const kb = (bytes: number): string => `${bytes / 1024} KB`;

/**
 * The nesting depth of a JSON text, counted in one pass without parsing (brackets inside strings do not
 * count), stopping as soon as it passes `max`: a deeply nested body costs no more than its length.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Bodies up to this length are checked for depth after parsing (see parseBodyText). */
const SCAN_AFTER_PARSE_UP_TO = BODY_LIMIT;

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

/** Names that reach JavaScript's object machinery rather than a field (DESIGN 3): refused as member names. */
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
 * form fields, whatever it was declared as (DESIGN 3: form fields declared as XML are form fields). Errors
 * never quote the body: it may hold card data.
 */
export function parseBodyText(text: string): Record<string, unknown> {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = unmarked.trim();
  if (trimmed === '') return {};
  if (trimmed[0] === '<') return parseXmlDocument(trimmed, { maxDepth: MAX_JSON_DEPTH, reserved: RESERVED_MEMBER_NAMES });
  if (trimmed[0] === '{' || trimmed[0] === '[') {
    const tooDeep = () => new GatewayError('INVALID_BODY', `body: is nested deeper than ${MAX_JSON_DEPTH} levels`, 'body');
    // a large body is scanned before parsing, so its nesting cannot make the parse costly; a small one
    // (every single-order call) parses in well under a millisecond however it nests, and checking the
    // parsed value's depth is cheaper than a character scan on every request
    const small = trimmed.length <= SCAN_AFTER_PARSE_UP_TO;
    if (!small && jsonDepthExceeds(trimmed, MAX_JSON_DEPTH)) throw tooDeep();
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new GatewayError('INVALID_BODY', 'body: is not valid JSON', 'body');
    }
    if (small && bracketsExceed(trimmed, MAX_JSON_DEPTH) && valueDepthExceeds(value, MAX_JSON_DEPTH)) throw tooDeep();
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new GatewayError('INVALID_BODY', 'body: must be a JSON object', 'body');
    }
    // a member named __proto__ is an own member of what JSON.parse builds, but a copy made by assignment
    // takes it as its prototype: what the signature covered would no longer be what the schemas read
    const reserved = mayHoldReservedName(trimmed) ? reservedMemberPath(value) : undefined;
    if (reserved !== undefined) throw reservedName(reserved);
    return value as Record<string, unknown>;
  }
  // no prototype: a field named like one of Object's members (toString) is a field like any other
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of new URLSearchParams(trimmed)) {
    if (RESERVED_MEMBER_NAMES.has(k)) throw reservedName(k);
    if (!(k in fields)) fields[k] = v;
  }
  return fields;
}

const readers = new Map<number, ReturnType<typeof express.raw>>();
function rawReader(limit: number): ReturnType<typeof express.raw> {
  let reader = readers.get(limit);
  if (!reader) readers.set(limit, (reader = express.raw({ type: () => true, limit })));
  return reader;
}

/** The raw body text of a POST, kept for strict request signatures (docs/security.md). */
export function rawBodyOf(res: Response): string {
  return typeof res.locals.rawBody === 'string' ? res.locals.rawBody : '';
}

/**
 * The common case read directly: a declared Content-Length within the limit and no Content-Encoding. The
 * body-parser stack (content-type and type-is checks, raw-body's stream layers) showed in the profile of
 * the authorise path; every other request (chunked, compressed, too large, no length) still goes through
 * express.raw, so its errors and its decompression stay as they were.
 */
function readDeclared(req: Request, length: number, accept: (raw: string) => void, next: NextFunction): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let done = false;
  const finish = (err?: GatewayError) => {
    if (done) return;
    done = true;
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('aborted', onFail);
    req.removeListener('error', onFail);
    if (err) return next(err);
    accept(Buffer.concat(chunks, received).toString('utf8'));
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > length) return finish(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
    chunks.push(chunk);
  };
  const onEnd = () => finish(received === length ? undefined : new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
  const onFail = () => finish(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onFail);
  req.on('error', onFail);
}

/** Reads and parses every POST body into req.body; body-reader failures become typed errors. */
export function gatewayBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
    req.body = {};
    next();
    return;
  }
  const limit = bodyLimitFor(req.path);
  const accept = (raw: string): void => {
    try {
      res.locals.rawBody = raw;
      req.body = parseBodyText(raw);
      next();
    } catch (e) {
      next(e);
    }
  };
  const declared = req.headers['content-length'];
  const encoding = req.headers['content-encoding'];
  const length = declared !== undefined && /^\d{1,8}$/.test(declared) ? Number(declared) : -1;
  if (length >= 0 && length <= limit && req.headers['transfer-encoding'] === undefined && (!encoding || encoding === 'identity'))
    return readDeclared(req, length, accept, next);
  rawReader(limit)(req, res, (err?: unknown) => {
    if (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new GatewayError('BODY_TOO_LARGE', `body: must be at most ${kb(limit)}`, 'body'));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        return next(new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'body: unsupported encoding or charset', 'body'));
      }
      return next(new GatewayError('INVALID_BODY', 'body: could not be read', 'body'));
    }
    accept(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
  });
}

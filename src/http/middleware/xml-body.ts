import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { GatewayError, invalidField } from '../../core/kernel/errors.js';

/**
 * Members whose JSON form is an array: in an XML document each item is the element repeated
 * (`<capture_orders>…</capture_orders><capture_orders>…</capture_orders>`), and one item alone is still
 * an array of one.
 */
const ARRAY_MEMBERS: ReadonlySet<string> = new Set([
  'capture_orders',
  'review_orders',
  'cancel_orders',
  'refund_orders',
  'cart_items',
  'account_owner',
  'total_discount',
  'additional_information',
  'person_documents',
  'labels',
]);

const invalid = (message: string): GatewayError => new GatewayError('INVALID_BODY', `body: ${message}`, 'body');

/** Thrown by the tag-name hook: a reserved name found while parsing (fast-xml-parser's own error names no field). */
class ReservedElement extends Error {
  constructor(readonly element: string) {
    super(element);
  }
}

/** The parsed document copied into objects without a prototype, each element's text kept as a string. */
function fieldsOf(value: unknown, path: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => fieldsOf(v, `${path}.${i}`));
  if (value === null || typeof value !== 'object') return value === undefined || value === null ? '' : String(value);
  const out = Object.create(null) as Record<string, unknown>;
  const entries = Object.entries(value);
  for (const [name, v] of entries) {
    // text beside child elements is neither a field's value nor a field
    if (name === '#text') throw invalidField(path || 'body', 'mixes text with elements');
    out[name] = fieldsOf(v, path ? `${path}.${name}` : name);
  }
  return out;
}

export interface XmlLimits {
  /** elements nested below the root, at most (the JSON form's depth limit) */
  maxDepth: number;
  /** elements in the whole document, at most (the call's bound, http/body-bounds.ts) */
  maxElements: number;
  /** element names refused at any depth, as in the JSON form */
  reserved: ReadonlySet<string>;
}

/**
 * Reads an XML document (`<request><merchant_id>…</merchant_id>…</request>`) into the fields of its JSON
 * form: the root's child elements are the members, an element holding elements is an object, repeated
 * elements (and the array members above) are arrays, every value is text with its surrounding white space
 * removed; attributes, comments and processing instructions are ignored. No DOCTYPE is accepted, so no
 * entity is ever declared or expanded (only XML's own `&amp;`-style references and character references are
 * read); nesting is bounded like JSON's and the size by the body limit. A malformed document is refused
 * with a message that says so.
 */
export function parseXmlDocument(text: string, limits: XmlLimits): Record<string, unknown> {
  if (/<!DOCTYPE/i.test(text)) throw invalid('an XML document may not have a DOCTYPE (no DTD, no entity declarations)');
  const passed = xmlShapeExceeds(text, limits.maxDepth + 1, limits.maxElements + 1);
  if (passed === 'depth') throw invalid(`is nested deeper than ${limits.maxDepth} levels`);
  if (passed === 'elements') throw invalid(`has more than ${limits.maxElements} elements`);
  let valid: ReturnType<typeof XMLValidator.validate>;
  try {
    valid = XMLValidator.validate(text);
  } catch {
    throw invalid('is not a well-formed XML document');
  }
  if (valid !== true) throw invalid(`is not a well-formed XML document (line ${valid.err.line}: ${valid.err.msg})`);
  const parser = new XMLParser({
    ignoreAttributes: true,
    parseTagValue: false,
    trimValues: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // the standard references and character references (&#65;); a DOCTYPE's entities never reach here
    processEntities: true,
    htmlEntities: true,
    maxNestedTags: limits.maxDepth + 1,
    transformTagName: (name: string) => {
      if (limits.reserved.has(name)) throw new ReservedElement(name);
      return name;
    },
    isArray: (name: string, jPath: unknown) => ARRAY_MEMBERS.has(name) && String(jPath).includes('.'),
  });
  let document: Record<string, unknown>;
  try {
    document = parser.parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ReservedElement) throw invalidField(err.element, 'is a reserved name, not a field');
    if (err instanceof Error && /nested tags/i.test(err.message)) throw invalid(`is nested deeper than ${limits.maxDepth} levels`);
    throw invalid('is not a well-formed XML document');
  }
  const roots = Object.keys(document);
  if (roots.length !== 1) throw invalid('an XML document must have one root element holding the fields');
  const root = document[roots[0]!];
  if (root === '' || root === undefined) return Object.create(null) as Record<string, unknown>;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw invalid('the root element of an XML document must hold one element per field');
  }
  return fieldsOf(root, '') as Record<string, unknown>;
}

/**
 * What a document's shape passes first, read in one pass before any parser sees it and stopped as soon as a
 * bound is passed: the parser costs about a microsecond a byte, and much more on deep nesting, so a document
 * of a thousand levels or a million elements is refused for the price of reading its first bytes. Start tags
 * count as elements and open a level (unless they close themselves, `<a/>`), end tags close one; comments,
 * CDATA sections, processing instructions and declarations count nothing. A malformed document may be
 * counted loosely: the parser refuses it afterwards.
 */
export function xmlShapeExceeds(text: string, maxDepth: number, maxElements: number): 'depth' | 'elements' | undefined {
  let depth = 0;
  let elements = 0;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next === 0x2f) {
      depth--; // </name>
      continue;
    }
    if (next === 0x21) {
      // <!-- comment -->, <![CDATA[ ... ]]> or a declaration: skipped whole
      const close = text.startsWith('<!--', at) ? '-->' : text.startsWith('<![CDATA[', at) ? ']]>' : '>';
      const end = text.indexOf(close, at + 2);
      if (end === -1) return undefined;
      at = end;
      continue;
    }
    if (next === 0x3f) {
      const end = text.indexOf('?>', at + 2);
      if (end === -1) return undefined;
      at = end;
      continue;
    }
    if (++elements > maxElements) return 'elements';
    const end = tagEnd(text, at + 1);
    if (end === -1) return undefined;
    if (text.charCodeAt(end - 1) !== 0x2f && ++depth > maxDepth) return 'depth';
    at = end;
  }
  return undefined;
}

/** The position of the `>` that ends the tag begun before `from` (quoted attribute values may hold one). */
function tagEnd(text: string, from: number): number {
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i;
  }
  return -1;
}

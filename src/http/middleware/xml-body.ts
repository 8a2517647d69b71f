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

/**
 * The `respon` document of /v1/authorise, written by hand: its shape is fixed (text elements, and arrays of
 * flat objects as repeated elements), and on the payment hot path a general XML builder (fast-xml-parser's
 * XMLBuilder, same output) costs a measurable share of the request (docs/performance.md, "Library bypasses").
 * Every text is escaped, and characters XML 1.0 cannot carry are dropped.
 */

/** Characters XML 1.0 cannot carry, even escaped (C0 controls but tab and line breaks, lone surrogates, U+FFFE/F). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- matching these characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text with nothing to escape or drop: no markup character, no control character, no surrogate, no U+FFFE/F. */
// eslint-disable-next-line no-control-regex -- excluding these characters is the point
const PLAIN = /^[^&<>"'\u0000-\u001F\uD800-\uDFFF\uFFFE\uFFFF]*$/;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Element text: XML-escaped, with characters XML cannot carry removed (one of them in a merchant's note would make the document unreadable). */
export function xmlText(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  // most values (ids, codes, amounts, times) need neither: one test instead of two replaces
  if (PLAIN.test(text)) return text;
  return text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const NAME = /^[A-Za-z_][\w.-]*$/;
/** Names already checked: a document's names are the gateway's own field names, the same on every answer. */
const checkedNames = new Set<string>();

function checkName(name: string): void {
  if (checkedNames.has(name)) return;
  if (!NAME.test(name)) throw new Error(`not an XML element name: ${name}`);
  // bounded, should a caller ever name elements after data
  if (checkedNames.size < 1024) checkedNames.add(name);
}

function element(name: string, value: unknown, indent: string): string {
  checkName(name);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const deeper = `${indent}  `;
    let inner = '';
    for (const k of Object.keys(record)) inner += element(k, record[k], deeper);
    return `${indent}<${name}>\n${inner}${indent}</${name}>\n`;
  }
  return `${indent}<${name}>${xmlText(value)}</${name}>\n`;
}

/** An XML document with the given root; arrays become repeated elements, every text is escaped. */
export function xmlDocument(root: string, body: object): string {
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<${root}>\n`;
  const record = body as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (Array.isArray(value)) for (const item of value) out += element(name, item, '  ');
    else out += element(name, value, '  ');
  }
  return `${out}</${root}>\n`;
}

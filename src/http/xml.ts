import { XMLBuilder } from 'fast-xml-parser';

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, processEntities: true, suppressEmptyNode: false });

/** Characters XML 1.0 cannot carry, even escaped (C0 controls but tab and line breaks, lone surrogates, U+FFFE/F). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- matching these characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Every text of the answer without those characters: one of them (in a merchant's note, say) makes the document unreadable. */
function xmlText(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(NOT_XML, '');
  if (Array.isArray(value)) return value.map(xmlText);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, xmlText(v)]));
  return value;
}

/** An XML document with the given root; arrays become repeated elements, every text is escaped. */
export function xmlDocument(root: string, body: object): string {
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, [root]: xmlText(body) }) as string;
}

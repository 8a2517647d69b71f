import { XMLBuilder } from 'fast-xml-parser';

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, processEntities: true, suppressEmptyNode: false });

/** An XML document with the given root; arrays become repeated elements, every text is escaped. */
export function xmlDocument(root: string, body: object): string {
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, [root]: body }) as string;
}

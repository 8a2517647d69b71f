import { SIGN_KEY, signedRequest, testOrder } from './gateway.js';
import { FIELDS } from './sign.js';

/** A complete, valid, signed /v1/checkout body (no card data); overrides are re-signed. */
export function checkoutBody(
  overrides: Record<string, unknown> = {},
  key = SIGN_KEY,
): Record<string, unknown> & { encryption_data: string } {
  return signedRequest(
    {
      ...testOrder('CO'),
      open3d: 'do3DS',
      return_url: 'https://shop.example/return',
      cancel_url: 'https://shop.example/cancel',
      ...overrides,
    },
    FIELDS.checkout,
    key,
  );
}

/** An attribute value or element text as a browser reads it (the references the gateway's pages write). */
export function unescapeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hidden inputs of the loading page's form, in order, with their values as a browser reads them. */
export function hiddenFields(html: string): [string, string][] {
  const out: [string, string][] = [];
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    out.push([unescapeHtml(m[1]!), unescapeHtml(m[2]!)]);
  return out;
}

/** The value of an attribute of the element with the given id, as a browser reads it. */
export function attributeOf(html: string, id: string, attribute: string): string | undefined {
  const tag = new RegExp(`<[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0];
  const value = tag && new RegExp(`\\b${attribute}="([^"]*)"`).exec(tag)?.[1];
  return value === undefined ? undefined : unescapeHtml(value);
}

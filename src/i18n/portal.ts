/**
 * The merchant portal's language: its catalogues (catalogues/portal), the choice of a language among them,
 * and a translator for one language. Codes the portal shows as words (payment statuses, risk rules,
 * notification types, portal actions) have a key each; a code no key names gets the catalogue's `other`
 * sentence with the code in it, never a raw key.
 */
import { negotiate, tagsOf } from './index.js';
import { PORTAL_CATALOGUES } from './catalogues/portal/index.js';
import { portalEn, type PortalMessageKey } from './catalogues/portal/en.js';

export type { PortalMessageKey } from './catalogues/portal/en.js';
export { PORTAL_LANGUAGE_NAMES } from './catalogues/portal/index.js';

export const PORTAL_LANGUAGES: readonly string[] = Object.keys(PORTAL_CATALOGUES);
const SPOKEN: ReadonlySet<string> = new Set(PORTAL_LANGUAGES);

export type PortalTranslate = (key: PortalMessageKey, params?: Record<string, string | number>) => string;

/**
 * The portal's language: the first candidate (the user's choice, then Accept-Language) it speaks, each tag
 * matched as the hosted pages match it (`es-MX` is `es`); a language only the hosted pages speak (Italian,
 * say) gives way to the next candidate, and English is the last resort.
 */
export function negotiatePortal(...candidates: Array<string | undefined | null>): string {
  for (const candidate of candidates) {
    if (!candidate) continue;
    for (const tag of tagsOf(candidate)) {
      const found = negotiate(tag);
      // negotiate() answers English for a tag it cannot match: that is a match only for an English tag
      if (found === 'en' && !/^en(?:[-_]|$)/i.test(tag)) continue;
      if (SPOKEN.has(found)) return found;
    }
  }
  return 'en';
}

/** True when the tag is one of the portal's languages as written (what a language link or cookie holds). */
export const isPortalLanguage = (tag: unknown): tag is string => typeof tag === 'string' && SPOKEN.has(tag);

/** A portal message in the language (English for a language the portal does not speak), `{name}` filled. */
export function portalT(lang: string, key: PortalMessageKey, params: Record<string, string | number> = {}): string {
  // a key no catalogue has (a view is not type-checked) shows as itself rather than breaking the page
  const text: string = PORTAL_CATALOGUES[lang]?.[key] ?? portalEn[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** portalT bound to one language, for a page's views. */
export const portalTranslator =
  (lang: string): PortalTranslate =>
  (key, params) =>
    portalT(lang, key, params);

/** A key that names a code (`status.4000`, `risk.rule.high_amount`) when the catalogue has it. */
export function codeKey(prefix: string, code: string): PortalMessageKey | undefined {
  const key = `${prefix}.${code}`;
  return key in portalEn ? (key as PortalMessageKey) : undefined;
}

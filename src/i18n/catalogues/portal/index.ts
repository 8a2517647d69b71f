import { portalEn, type PortalCatalogue } from './en.js';
import { portalDe } from './de.js';
import { portalFr } from './fr.js';
import { portalEs } from './es.js';
import { portalJa } from './ja.js';
import { portalAr } from './ar.js';

/**
 * The languages the merchant portal speaks, by the hosted pages' tags (English first). The portal is for a
 * merchant's staff, so it speaks fewer languages than the shopper's pages; anyone asking for another reads
 * English (negotiatePortal in ../../portal.ts). A language added here must have every key.
 */
export const PORTAL_CATALOGUES: Record<string, PortalCatalogue> = {
  en: portalEn,
  de: portalDe,
  fr: portalFr,
  es: portalEs,
  ja: portalJa,
  ar: portalAr,
};

/** Each language's name in itself, for the language links. */
export const PORTAL_LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  ja: '日本語',
  ar: 'العربية',
};

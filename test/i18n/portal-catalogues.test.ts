import { describe, expect, it } from 'vitest';
import { PORTAL_CATALOGUES } from '../../src/i18n/catalogues/portal/index.js';
import { portalEn } from '../../src/i18n/catalogues/portal/en.js';
import { LANGUAGES } from '../../src/i18n/index.js';
import { negotiatePortal, PORTAL_LANGUAGES, portalT, type PortalMessageKey } from '../../src/i18n/portal.js';

/** The languages issue 40 asks the portal to speak; the hosted pages' other languages read the portal in English. */
const PORTAL_REQUIRED = ['en', 'de', 'fr', 'es', 'ja', 'ar'];

/** Messages that are the same in every language: a code, a protocol name, a symbol between two parameters. */
const SAME_EVERYWHERE = new Set([
  'payment.threeds',
  'delivery.http',
  'history.status',
  'history.action',
  'source.direct',
  'home.count_amount',
]);
/** Words a language writes as English does (checked here, so a forgotten translation is not mistaken for one). */
const SAME_AS_ENGLISH: Record<string, string[]> = {
  de: ['payments.status', 'payment.details'],
  fr: ['payment.date'],
  es: ['dreason.general'],
  ja: [],
  ar: [],
};

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
const englishKeys = Object.keys(portalEn).sort();

describe('when the portal catalogues are checked against the English one', () => {
  it('then the portal speaks exactly the six languages, each also a hosted-page language', () => {
    expect([...PORTAL_LANGUAGES].sort()).toEqual([...PORTAL_REQUIRED].sort());
    for (const lang of PORTAL_LANGUAGES) expect(LANGUAGES).toContain(lang);
  });

  it.each(PORTAL_REQUIRED.filter((l) => l !== 'en'))(
    'then %s has every key, no other, each translated with the same parameters',
    (lang) => {
      const catalogue = PORTAL_CATALOGUES[lang]!;
      expect(Object.keys(catalogue).sort()).toEqual(englishKeys);
      for (const key of englishKeys) {
        const text = catalogue[key as keyof typeof portalEn];
        const english = portalEn[key as keyof typeof portalEn];
        expect(text.trim(), `${lang} ${key} is empty`).not.toBe('');
        if (!SAME_EVERYWHERE.has(key) && !SAME_AS_ENGLISH[lang]!.includes(key)) {
          expect(text, `${lang} ${key} is the English text`).not.toBe(english);
        }
        expect(placeholders(text), `${lang} ${key} parameters`).toEqual(placeholders(english));
      }
    },
  );

  it('then every status, risk rule and notification type the portal words has its key', () => {
    for (const s of ['1000', '2000', '3000', '3100', '3200', '3300', '4000', '4100', '4200', '4300', '4400']) {
      expect(portalEn).toHaveProperty([`status.${s}`]);
      expect(portalEn).toHaveProperty([`payment.headline.${s}`]);
      expect(portalEn).toHaveProperty([`payment.amount.${s}`]);
    }
    for (const rule of ['email_test_trigger', 'disposable_email', 'high_amount', 'delivery_country_mismatch', 'missing_device_data']) {
      expect(portalEn).toHaveProperty([`risk.rule.${rule}`]);
    }
  });
});

describe('when the portal language is chosen', () => {
  it('then the first candidate the portal speaks wins, a regional tag falling back to its language', () => {
    expect(negotiatePortal('de', 'fr')).toBe('de');
    expect(negotiatePortal(undefined, 'es-MX')).toBe('es');
    expect(negotiatePortal(undefined, undefined, 'ar-EG,en;q=0.5')).toBe('ar');
    expect(negotiatePortal(undefined, undefined, 'ja;q=0.2, fr;q=0.9')).toBe('fr');
  });

  it('then a language only the hosted pages speak gives way to the next candidate, and English is the last resort', () => {
    expect(negotiatePortal('it', 'de')).toBe('de');
    expect(negotiatePortal(undefined, 'it-IT, ko;q=0.9, es;q=0.5')).toBe('es');
    expect(negotiatePortal('it')).toBe('en');
    expect(negotiatePortal(undefined, undefined, undefined)).toBe('en');
  });

  it('then a message of a language without a portal catalogue is the English one (the documented fallback)', () => {
    expect(portalT('it', 'payments.title')).toBe('Payments');
    expect(portalT('de', 'payments.title')).toBe('Zahlungen');
    expect(portalT('ar', 'copy.label', { what: 'X' })).toBe('نسخ X');
    expect(portalT('xx', 'payment.title', { id: '42' })).toBe('Payment 42');
  });

  it('then a key no catalogue has (a view is not type-checked) shows as itself, never breaking the page', () => {
    expect(portalT('de', 'no.such.key' as PortalMessageKey)).toBe('no.such.key');
  });
});

/**
 * The shopper's language for the hosted pages (docs/checkout.md): the catalogues, the negotiation of a language
 * from the order and the browser, and Intl formatting of amounts and times. Pages, public/card.js (through
 * clientMessages) and the merchant portal all take their strings from here.
 */
import { formatAmount as decimalAmount, type Minor } from '../core/kernel/money.js';
import { CATALOGUES } from './catalogues/index.js';
import { en, type MessageKey } from './catalogues/en.js';

export type { MessageKey } from './catalogues/en.js';

/** Tags of the languages we have a catalogue for, English first. */
export const LANGUAGES: readonly string[] = Object.keys(CATALOGUES);
export const DEFAULT_LANG = 'en';

const RTL = new Set(['ar', 'he', 'fa', 'ur']);
const BY_LOWER = new Map(LANGUAGES.map((tag) => [tag.toLowerCase(), tag]));

/** Tags that name a language we have under another tag: old codes, Chinese regions and scripts, Norwegian. */
const ALIASES: Record<string, string> = {
  zh: 'zh-Hans',
  'zh-cn': 'zh-Hans',
  'zh-sg': 'zh-Hans',
  'zh-my': 'zh-Hans',
  'zh-tw': 'zh-Hant',
  'zh-hk': 'zh-Hant',
  'zh-mo': 'zh-Hant',
  no: 'nb',
  nn: 'nb',
  iw: 'he',
  in: 'id',
  fil: 'en',
};

/** The language we have for one tag: itself, an alias, the same script (zh-Hant-TW), else its base language. */
function match(tag: string): string | undefined {
  const lower = tag.trim().replace(/_/g, '-').toLowerCase();
  if (!/^[a-z]{1,8}(-[a-z0-9]{1,8})*$/.test(lower)) return undefined;
  const parts = lower.split('-');
  for (let n = parts.length; n > 0; n--) {
    const prefix = parts.slice(0, n).join('-');
    const found = BY_LOWER.get(prefix) ?? ALIASES[prefix];
    if (found && CATALOGUES[found]) return found;
  }
  return undefined;
}

/** Tags of one candidate: a single tag, or an Accept-Language list ordered by its q-values (q=0 and * dropped). */
export function tagsOf(candidate: string): string[] {
  return candidate
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((p) => p.trim());
      const q = params.find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((c) => c.tag && c.tag !== '*' && c.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((c) => c.tag);
}

/**
 * The first candidate we speak, in the caller's order of preference; English when none. Each candidate is a
 * tag (`default_lang`, `browser_lang`) or an Accept-Language header; `es-MX` falls back to `es`,
 * `pt-BR` to `pt-BR` then `pt`, `zh-TW` to traditional Chinese.
 */
export function negotiate(...candidates: Array<string | undefined | null>): string {
  for (const candidate of candidates) {
    if (!candidate) continue;
    for (const tag of tagsOf(candidate)) {
      const found = match(tag);
      if (found) return found;
    }
  }
  return DEFAULT_LANG;
}

export function dirOf(lang: string): 'rtl' | 'ltr' {
  return RTL.has(lang.split('-')[0]!.toLowerCase()) ? 'rtl' : 'ltr';
}

/** A message of the language's catalogue (English for a language or key we lack), with `{name}` filled. */
export function t(lang: string, key: MessageKey, params: Record<string, string | number> = {}): string {
  const text: string = CATALOGUES[lang]?.[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/**
 * Intl formatters, made once per language and currency (or time zone): constructing one costs far more
 * than formatting with it (a third of the card page's time when each call made its own). Bounded: the
 * languages are the catalogues', the currencies ISO 4217's, and a full cache simply starts again.
 */
const FORMATTERS_MAX = 1024;
function cachedFormatter<F>(cache: Map<string, F>, key: string, make: () => F): F {
  let f = cache.get(key);
  if (f === undefined) {
    f = make();
    if (cache.size >= FORMATTERS_MAX) cache.clear();
    cache.set(key, f);
  }
  return f;
}
const DIGITS = new Map<string, number>();
const AMOUNTS = new Map<string, Intl.NumberFormat>();
const SIGNS = new Map<string, [string, string] | null>();
const TIMES = new Map<string, Intl.DateTimeFormat>();

/** Fraction digits of the currency's minor unit (ISO 4217: JPY 0, USD 2, KWD 3). */
export function currencyDigits(currency: string): number {
  return cachedFormatter(
    DIGITS,
    currency,
    () => new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2,
  );
}

/**
 * An amount for the shopper: the language's digits, separators and currency sign, always with the
 * currency's own number of fraction digits. The decimal string goes to Intl as text, so no float is used.
 */
export function formatAmount(lang: string, minor: Minor, currency: string): string {
  const key = `${lang}\u0000${currency}`;
  const format = cachedFormatter(AMOUNTS, key, () => {
    const digits = currencyDigits(currency);
    return new Intl.NumberFormat(lang, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  });
  const text = format.format(decimalAmount(minor) as unknown as number);
  const sign = cachedFormatter(SIGNS, key, () => isolatedSign(lang, format));
  return sign ? text.replace(sign[0], sign[1]) : text;
}

/**
 * A currency sign written in Latin letters on a right-to-left page, kept whole: CLDR's Arabic "‏25.00 US$" would
 * otherwise show as "$US 25.00", the "$" (a neutral character at the end) taking the page's direction. The sign
 * is wrapped in a left-to-right isolate (U+2066 ... U+2069), so it reads "US$" where CLDR puts it.
 */
function isolatedSign(lang: string, format: Intl.NumberFormat): [string, string] | null {
  if (dirOf(lang) !== 'rtl') return null;
  const sign = format.formatToParts(0).find((p) => p.type === 'currency')?.value;
  return sign && /[A-Za-z]/.test(sign) ? [sign, `\u2066${sign}\u2069`] : null;
}

/** A time of day with its zone, for "open until" notices; the card page shows it again in the shopper's zone. */
export function formatTime(lang: string, epochMs: number, timeZone = 'UTC'): string {
  const format = cachedFormatter(
    TIMES,
    `${lang}\u0000${timeZone}`,
    () => new Intl.DateTimeFormat(lang, { hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }),
  );
  return format.format(epochMs);
}

/** The messages public/card.js shows itself, for the page's data attribute. */
export function clientMessages(lang: string): Partial<Record<MessageKey, string>> {
  const keys: MessageKey[] = [
    'error.summary',
    'error.cardholder',
    'error.card_digits',
    'error.card_invalid',
    'error.card_brand',
    'error.month',
    'error.year',
    'error.expired',
    'error.csc',
    'card.csc_hint',
    'card.csc_hint_amex',
    'card.open_until',
  ];
  return Object.fromEntries(keys.map((k) => [k, CATALOGUES[lang]?.[k] ?? en[k]]));
}

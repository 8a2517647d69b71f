/**
 * Money inside the gateway is an integer count of hundredths of the currency unit, because the interface
 * writes every amount as a decimal string with exactly two fraction digits. Requests may send fewer
 * fraction digits (`"10"`, `"10.5"`: docs/api.md#bodies); answers always write two. Currencies whose minor unit has
 * no decimals (JPY, KRW, ...) take whole amounts only (`"1000"` or `"1000.00"`); three-decimal currencies
 * are carried at two decimals as the interface fixes. Connectors take the currency's own minor units
 * (acquirerAmount). Floating point never touches an amount.
 */
export type Minor = number;

/** The ISO 4217 codes the gateway takes (the OpenAPI document lists them as the currency fields' values). */
export const ISO_4217: readonly string[] = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
  'CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP ' +
  'GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW ' +
  'KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN ' +
  'NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL ' +
  'SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES ' +
  'VND VUV WST XAF XAG XAU XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL'
).split(' ');
const CURRENCIES = new Set(ISO_4217);

/** Currencies whose minor unit has no decimals: an amount in them must be whole. */
const ZERO_DECIMAL = new Set('BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' '));

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

export function isZeroDecimal(code: string): boolean {
  return ZERO_DECIMAL.has(code);
}

/** ISO 4217 currencies whose minor unit is a thousandth (or a ten-thousandth: CLF, UYW). */
const THREE_DECIMAL = new Set('BHD IQD JOD KWD LYD OMR TND'.split(' '));
const FOUR_DECIMAL = new Set(['CLF', 'UYW']);

/** The currency's ISO 4217 exponent: JPY 0, USD 2, KWD 3. */
export function currencyExponent(code: string): number {
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  if (FOUR_DECIMAL.has(code)) return 4;
  return 2;
}

/**
 * The amount an acquirer takes: an integer of the currency's own minor unit (ISO 4217 exponent), converted
 * from the gateway's hundredths at the connector boundary. JPY 1000.00 -> 1000, USD 10.00 -> 1000, KWD 1.50 ->
 * 1500. Zero-decimal amounts are whole units by the time they get here (the schemas refuse other cents).
 */
export function acquirerAmount(minor: Minor, currency: string): number {
  const exp = currencyExponent(currency);
  if (exp >= 2) return minor * 10 ** (exp - 2);
  const whole = minor / 10 ** (2 - exp);
  if (!Number.isInteger(whole)) throw new Error(`${currency} amount ${formatAmount(minor)} has a fraction its currency lacks`);
  return whole;
}

/** The inverse of acquirerAmount, for connectors that reason about the interface's amounts. */
export function fromAcquirerAmount(amount: number, currency: string): Minor {
  const exp = currencyExponent(currency);
  return exp >= 2 ? amount / 10 ** (exp - 2) : amount * 10 ** (2 - exp);
}

/** Largest amount we accept: well inside Number.MAX_SAFE_INTEGER so sums stay exact. */
export const MAX_MINOR = 99_999_999_999_99;

/** Digits, then at most two fraction digits: no sign, exponent, spaces, leading zeros or bare point. */
const DECIMAL = /^(0|[1-9]\d{0,12})(?:\.(\d{1,2}))?$/;

/**
 * Parses a decimal amount into minor units: "12.34", and as existing integrations send them "12" and
 * "12.3" (read 12.00, 12.30). Undefined for more fraction digits, signs, exponents or any other text.
 */
export function parseAmount(text: string): Minor | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const minor = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return minor <= MAX_MINOR ? minor : undefined;
}

/** False when the amount has a fraction its currency cannot carry (any fraction in JPY, KRW, ...). */
export function fitsCurrency(minor: Minor, currency: string): boolean {
  return !isZeroDecimal(currency) || minor % 100 === 0;
}

/** The 400 text of an amount with a fraction in a zero-decimal currency. */
export const wholeUnitsMessage = (currency: string): string => `must be a whole amount: ${currency} has no minor unit`;

/** Writes minor units as the interface's two-decimal string. */
export function formatAmount(minor: Minor): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const units = Math.trunc(abs / 100);
  const cents = abs % 100;
  return `${sign}${units}.${cents < 10 ? '0' : ''}${cents}`;
}

import { isCurrency, isZeroDecimal, type Minor } from '../kernel/money.js';

/**
 * Exchange rates for payouts. A table names a base currency and, for every other currency, how many units
 * of it one unit of the base buys, as a decimal string ("0.92"). Rates are kept as exact fractions of
 * BigInts (digits over a power of ten), so conversion never touches floating point.
 */
export interface Rate {
  /** the rate's digits */
  num: bigint;
  /** 10^(fraction digits) */
  den: bigint;
}

export interface RateTable {
  base: string;
  /** the base itself included (rate 1) */
  rates: ReadonlyMap<string, Rate>;
}

/** Built-in table (units per 1 USD) used when FX_RATES_FILE is not set: a sandbox, not a market feed. */
export const DEFAULT_RATES = {
  base: 'USD',
  rates: {
    EUR: '0.92',
    GBP: '0.79',
    JPY: '151.50',
    CNY: '7.24',
    HKD: '7.82',
    SGD: '1.35',
    AUD: '1.52',
    CAD: '1.37',
    CHF: '0.88',
    BRL: '5.05',
    MXN: '17.10',
    INR: '83.30',
    KRW: '1350.00',
  },
};

const RATE_TEXT = /^(\d{1,12})(?:\.(\d{1,12}))?$/;

/** Parses a decimal-string rate; undefined when it is malformed or zero. */
export function parseRate(text: string): Rate | undefined {
  const m = RATE_TEXT.exec(text);
  if (!m) return undefined;
  const frac = m[2] ?? '';
  const num = BigInt(m[1]! + frac);
  if (num === 0n) return undefined;
  return { num, den: 10n ** BigInt(frac.length) };
}

/** Builds a table from its JSON form; throws an Error naming the bad entry. */
export function buildRateTable(json: unknown): RateTable {
  if (!json || typeof json !== 'object') throw new Error('must be a JSON object {"base": "USD", "rates": {"EUR": "0.92"}}');
  const { base, rates } = json as { base?: unknown; rates?: unknown };
  if (typeof base !== 'string' || !isCurrency(base)) throw new Error('base: must be an ISO 4217 currency code');
  if (!rates || typeof rates !== 'object' || Array.isArray(rates))
    throw new Error('rates: must be an object of currency -> decimal string');
  const table = new Map<string, Rate>([[base, { num: 1n, den: 1n }]]);
  for (const [code, text] of Object.entries(rates as Record<string, unknown>)) {
    if (!isCurrency(code)) throw new Error(`rates.${code}: is not an ISO 4217 currency code`);
    const rate = typeof text === 'string' ? parseRate(text) : undefined;
    if (!rate) throw new Error(`rates.${code}: must be a positive decimal string such as "0.92"`);
    if (code !== base) table.set(code, rate);
  }
  if (!table.has('USD')) throw new Error('rates: must include USD (the fee schedule is written in USD)');
  return { base, rates: table };
}

/** Smallest amount step of a currency in the gateway's hundredths: 100 for zero-decimal currencies. */
export function minorStep(currency: string): bigint {
  return isZeroDecimal(currency) ? 100n : 1n;
}

/** n / d rounded half up to a multiple of `step` (n, d >= 0). */
export function roundHalfUp(n: bigint, d: bigint, step = 1n): bigint {
  const unit = d * step;
  return ((2n * n + unit) / (2n * unit)) * step;
}

export function hasRate(table: RateTable, currency: string): boolean {
  return table.rates.has(currency);
}

/**
 * Converts an amount (hundredths of `from`) into hundredths of `to`, rounded half up to the smallest unit of
 * `to` (whole units for zero-decimal currencies). The cross rate is rate[to] / rate[from].
 */
export function convert(table: RateTable, amount: Minor, from: string, to: string): Minor {
  if (from === to) return amount;
  const rf = table.rates.get(from);
  const rt = table.rates.get(to);
  if (!rf || !rt) throw new Error(`no exchange rate for ${rf ? to : from}`);
  const n = BigInt(amount) * rt.num * rf.den;
  const d = rt.den * rf.num;
  return Number(roundHalfUp(n, d, minorStep(to)));
}

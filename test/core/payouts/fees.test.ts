import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildRateTable, convert, DEFAULT_RATES } from '../../../src/core/records/fx.js';
import { quotePayout, type PayoutTerms } from '../../../src/core/records/fees.js';
import { ConfigError, loadConfig } from '../../../src/config.js';

const table = buildRateTable(DEFAULT_RATES);
const halves = buildRateTable({ base: 'USD', rates: { EUR: '0.5' } });

describe('when an amount is converted through the rate table', () => {
  it.each([
    // [what, table, amount (hundredths), from, to, expected (hundredths)]
    ['base to quote', table, 10_000, 'USD', 'EUR', 9_200],
    ['quote to base, 10869.565 rounds up', table, 10_000, 'EUR', 'USD', 10_870],
    ['cross rate 0.79/0.92, 8586.956 rounds up', table, 10_000, 'EUR', 'GBP', 8_587],
    ['into a zero-decimal currency, exact', table, 1_000, 'USD', 'JPY', 151_500],
    ['into a zero-decimal currency, 10.605 JPY rounds to 11 JPY', table, 7, 'USD', 'JPY', 1_100],
    ['out of a zero-decimal currency, 660.066 rounds down', table, 100_000, 'JPY', 'USD', 660],
    ['into KRW', table, 100, 'USD', 'KRW', 135_000],
    ['a tie (0.5 cent) rounds half up', halves, 1, 'USD', 'EUR', 1],
    ['a tie (1.5 cent) rounds half up', halves, 3, 'USD', 'EUR', 2],
    ['same currency is unchanged', table, 12_345, 'EUR', 'EUR', 12_345],
  ] as const)('when %s, then the result is exact', (_what, t, amount, from, to, expected) => {
    expect(convert(t, amount, from, to)).toBe(expected);
  });
});

const base: PayoutTerms = {
  payment_method: 'SWIFT',
  fee_paid_by: 'PAYER',
  swift_charge_option: 'SHARED',
  source_currency: 'USD',
  payment_currency: 'USD',
  payment_amount: 100_000,
};

describe('when a payout is quoted', () => {
  it.each([
    // [what, terms, payer pays, beneficiary receives, fee (source currency)]
    ['SWIFT SHARED, fee_paid_by PAYER: payer bears the transfer fee, beneficiary the correspondent fee', {}, 102_000, 99_000, 3_000],
    [
      'SWIFT OUR: payer bears every fee whatever fee_paid_by says',
      { swift_charge_option: 'OUR', fee_paid_by: 'BENEFICIARY' },
      103_000,
      100_000,
      3_000,
    ],
    ['SWIFT BEN: beneficiary bears every fee whatever fee_paid_by says', { swift_charge_option: 'BEN' }, 100_000, 97_000, 3_000],
    ['SWIFT SHARED, fee_paid_by BENEFICIARY: beneficiary bears both', { fee_paid_by: 'BENEFICIARY' }, 100_000, 97_000, 3_000],
    [
      'LOCAL, fee_paid_by PAYER: 0.20% + 1.00 USD on the payer',
      { payment_method: 'LOCAL', swift_charge_option: '' },
      100_300,
      100_000,
      300,
    ],
    ['LOCAL, fee_paid_by BENEFICIARY', { payment_method: 'LOCAL', fee_paid_by: 'BENEFICIARY' }, 100_000, 99_700, 300],
    [
      'LOCAL EUR -> USD by payment_amount: principal 92.00 EUR, fee 0.18 + 0.92 EUR',
      { payment_method: 'LOCAL', source_currency: 'EUR', payment_amount: 10_000 },
      9_310,
      10_000,
      110,
    ],
    [
      'LOCAL EUR -> USD by source_amount, beneficiary bears 1.10 EUR = 1.20 USD',
      { payment_method: 'LOCAL', fee_paid_by: 'BENEFICIARY', source_currency: 'EUR', payment_amount: undefined, source_amount: 9_200 },
      9_200,
      9_880,
      110,
    ],
    [
      'SWIFT USD -> JPY: 660.07 USD principal, correspondent fee 1515 JPY off the payment',
      { payment_currency: 'JPY', payment_amount: 10_000_000 },
      67_837,
      9_848_500,
      2_830,
    ],
    [
      'both amounts given and agreeing at the rate',
      { payment_method: 'LOCAL', source_currency: 'EUR', payment_amount: 10_000, source_amount: 9_200 },
      9_310,
      10_000,
      110,
    ],
  ] as const)('when %s, then the amounts are exact', (_what, changes, payerPays, receives, fee) => {
    const r = quotePayout(table, { ...base, ...(changes as Partial<PayoutTerms>) });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.quote.amount_payer_pays).toBe(payerPays);
    expect(r.quote.amount_beneficiary_receives).toBe(receives);
    expect(r.quote.fee_amount).toBe(fee);
  });

  it.each([
    [
      'source_amount disagrees with payment_amount at the rate',
      { source_currency: 'EUR', payment_amount: 10_000, source_amount: 9_300 },
      'source_amount',
      /expected 92\.00 EUR/,
    ],
    ['neither amount is given', { payment_amount: undefined }, 'payment_amount', /required/],
    [
      'the beneficiary fees eat the whole amount',
      { payment_method: 'LOCAL', fee_paid_by: 'BENEFICIARY', payment_amount: 100 },
      'payment_amount',
      /does not cover/,
    ],
  ] as const)('when %s, then it is refused naming the field', (_what, changes, field, message) => {
    const r = quotePayout(table, { ...base, ...(changes as Partial<PayoutTerms>) });
    expect(r).toMatchObject({ ok: false, field });
    if (!r.ok) expect(r.message).toMatch(message);
  });
});

describe('when a rate table is read', () => {
  it.each([
    [{ base: 'XXX', rates: {} }, /base/],
    [{ base: 'USD', rates: { EUR: 'abc' } }, /rates\.EUR/],
    [{ base: 'USD', rates: { EUR: '0' } }, /rates\.EUR/],
    [{ base: 'USD', rates: { EUR: 0.92 } }, /rates\.EUR/],
    [{ base: 'EUR', rates: { GBP: '0.86' } }, /USD/],
  ])('when it is %j, then it is refused naming the entry', (json, message) => {
    expect(() => buildRateTable(json)).toThrow(message);
  });

  it('when FX_RATES_FILE holds a bad table, then the start stops naming FX_RATES_FILE', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fx-')), 'rates.json');
    writeFileSync(file, JSON.stringify({ base: 'USD', rates: { EUR: '-1' } }));
    expect(() => loadConfig({ FX_RATES_FILE: file })).toThrow(ConfigError);
    expect(() => loadConfig({ FX_RATES_FILE: file })).toThrow(/^FX_RATES_FILE: rates\.EUR/);
  });

  it('when FX_RATES_FILE holds a good table, then conversions use it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fx-')), 'rates.json');
    writeFileSync(file, JSON.stringify({ base: 'USD', rates: { EUR: '0.8' } }));
    const config = loadConfig({ FX_RATES_FILE: file });
    expect(convert(config.fxRates, 10_000, 'USD', 'EUR')).toBe(8_000);
  });
});

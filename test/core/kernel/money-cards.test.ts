import { describe, expect, it } from 'vitest';
import { fitsCurrency, formatAmount, isCurrency, parseAmount } from '../../../src/core/kernel/money.js';
import { cardBrand, expiryPassed, luhnValid, maskCard } from '../../../src/core/kernel/cards.js';

describe('money as integer minor units', () => {
  it.each([
    ['10.00', 1000],
    ['0.01', 1],
    ['0.00', 0],
    ['1234567.89', 123456789],
    ['19.99', 1999],
  ])('when %s is parsed, then it is %i minor units and formats back the same', (text, minor) => {
    expect(parseAmount(text)).toBe(minor);
    expect(formatAmount(minor)).toBe(text);
  });

  it.each([
    ['10', 1000],
    ['10.5', 1050],
    ['10.0', 1000],
    ['0', 0],
    ['0.5', 50],
  ])('when %s (fewer fraction digits, docs/api.md#bodies) is parsed, then it is %i minor units, written with two', (text, minor) => {
    expect(parseAmount(text)).toBe(minor);
    expect(formatAmount(minor)).toMatch(/^\d+\.\d{2}$/);
  });

  it('when an amount has a fraction in a zero-decimal currency, then it does not fit; whole amounts do', () => {
    expect(fitsCurrency(parseAmount('1000')!, 'JPY')).toBe(true);
    expect(fitsCurrency(parseAmount('1000.00')!, 'JPY')).toBe(true);
    expect(fitsCurrency(parseAmount('1000.5')!, 'JPY')).toBe(false);
    expect(fitsCurrency(parseAmount('1000.5')!, 'USD')).toBe(true);
  });

  it.each(['10.000', '10.', '.5', '-1.00', '+1.00', '1e3', '01.00', '00', ' 1.00', '1.00 ', '1,00', '0x10', 'NaN', ''])(
    'when %j is parsed, then it is refused',
    (text) => {
      expect(parseAmount(text)).toBeUndefined();
    },
  );

  it('when 0.10 is added to 0.20 in minor units, then it is exactly 0.30', () => {
    expect(formatAmount(parseAmount('0.10')! + parseAmount('0.20')!)).toBe('0.30');
  });

  it('when currency codes are checked, then ISO 4217 codes pass and others fail', () => {
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('JPY')).toBe(true);
    expect(isCurrency('usd')).toBe(false);
    expect(isCurrency('XYZ')).toBe(false);
  });
});

describe('cards', () => {
  it('when test cards are checked, then Luhn accepts them and rejects a changed digit', () => {
    for (const pan of ['4242424242424242', '4000002500003155', '5555555555554444', '4000000000000119']) expect(luhnValid(pan)).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('42424242')).toBe(false);
  });

  it('when a card is masked, then only the first 6 and last 4 digits remain', () => {
    expect(maskCard('4242424242424242')).toBe('424242***4242');
  });

  it('when brands are read, then Visa, Mastercard and Amex are told apart', () => {
    expect(cardBrand('4242424242424242')).toBe('VISA');
    expect(cardBrand('5555555555554444')).toBe('MASTERCARD');
    expect(cardBrand('378282246310005')).toBe('AMEX');
  });

  it('when an expiry is checked, then the card is good through its expiry month', () => {
    const nov2026 = Date.UTC(2026, 10, 21);
    expect(expiryPassed('11', '2026', nov2026)).toBe(false);
    expect(expiryPassed('10', '2026', nov2026)).toBe(true);
    expect(expiryPassed('12', '26', nov2026)).toBe(false);
    expect(expiryPassed('01', '25', nov2026)).toBe(true);
  });
});

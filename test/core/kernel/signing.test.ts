import { describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import {
  signFields,
  signValues,
  signatureMatches,
  requestSignatureMatches,
  notificationHeader,
  REQUEST_SIGNATURE_FIELDS,
  RESPONSE_SIGNATURE_FIELDS,
} from '../../../src/core/kernel/signing.js';

const KEY = 'k3y-for-tests';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('signatures (docs/api.md#signatures), expected values computed here from the documented order', () => {
  const authorise = {
    merchant_id: '1000001',
    account_id: '1000001001',
    order_no: 'ORD 1',
    currency: 'USD',
    amount: '10.00',
    first_name: 'Ada Mary',
    last_name: 'Lovelace',
    card: '4242424242424242',
    expiration_year: '2034',
    expiration_month: '12',
    security_code: '737',
    shopper_email: 'a@b.com',
  };

  it('when an authorise request is signed, then the value is SHA-256 of the fields in order, spaces removed, then the key', () => {
    const expected = sha('10000011000001001ORD1USD10.00AdaMaryLovelace4242424242424242203412737a@b.com' + KEY);
    expect(signFields(authorise, REQUEST_SIGNATURE_FIELDS.authorise, KEY)).toBe(expected);
  });

  it('when a field is missing, then it counts as the empty string', () => {
    const { first_name: _f, ...rest } = authorise;
    const expected = sha('10000011000001001ORD1USD10.00Lovelace4242424242424242203412737a@b.com' + KEY);
    expect(signFields(rest, REQUEST_SIGNATURE_FIELDS.authorise, KEY)).toBe(expected);
  });

  it('when a checkout request is signed, then it covers the eight checkout fields', () => {
    const expected = sha('10000011000001001ORD1USD10.00AdaMaryLovelacea@b.com' + KEY);
    expect(signFields(authorise, REQUEST_SIGNATURE_FIELDS.checkout, KEY)).toBe(expected);
  });

  it('when a request is signed over its values as sent (spaces kept), then that form is accepted too, and the spaces-removed one', () => {
    const values = REQUEST_SIGNATURE_FIELDS.authorise.map((f) => authorise[f as keyof typeof authorise]);
    const asSent = sha('10000011000001001ORD 1USD10.00Ada MaryLovelace4242424242424242203412737a@b.com' + KEY);
    expect(signValues(values, KEY, 'as-sent')).toBe(asSent);
    expect(requestSignatureMatches(asSent, values, KEY)).toBe(true);
    expect(requestSignatureMatches(asSent.toUpperCase(), values, KEY)).toBe(true);
    expect(requestSignatureMatches(signValues(values, KEY), values, KEY)).toBe(true);
    expect(requestSignatureMatches(sha('wrong' + KEY), values, KEY)).toBe(false);
    expect(requestSignatureMatches(asSent, values, 'other-key')).toBe(false);
    expect(requestSignatureMatches(undefined, values, KEY)).toBe(false);
  });

  it('when a batch is signed, then each transaction_id follows merchant_id and account_id in order', () => {
    expect(signValues(['1000001', '1000001001', 'T1', 'T2'], KEY)).toBe(sha('10000011000001001T1T2' + KEY));
  });

  it('when a value is a number, then its JSON text is signed', () => {
    expect(signValues(['a', 12, true], KEY)).toBe(sha('a12true' + KEY));
  });

  it('when answers and notifications are signed, then they use the documented fields', () => {
    const answer = { merchant_id: 'm', account_id: 'a', order_no: 'o', currency: 'USD', amount: '1.00', order_status: '1' };
    expect(signFields(answer, RESPONSE_SIGNATURE_FIELDS.payment, KEY)).toBe(sha('maoUSD1.001' + KEY));
    expect(signFields({ merchant_id: 'm', account_id: 'a', return_status: '1' }, RESPONSE_SIGNATURE_FIELDS.batch, KEY)).toBe(
      sha('ma1' + KEY),
    );
    expect(
      signFields(
        { merchant_id: 'm', account_id: 'a', notify_type: 'payment', notify_id: 'n1', order_no: 'o' },
        RESPONSE_SIGNATURE_FIELDS.notification,
        KEY,
      ),
    ).toBe(sha('mapaymentn1o' + KEY));
  });

  it('when a signature is compared, then case does not matter and any other value fails', () => {
    const good = sha('x');
    expect(signatureMatches(good.toUpperCase(), good)).toBe(true);
    expect(signatureMatches(good.slice(0, 63) + (good[63] === '0' ? '1' : '0'), good)).toBe(false);
    // as long as a signature in characters, longer in bytes: a refusal, never an exception
    expect(signatureMatches('\u00e9'.repeat(64), good)).toBe(false);
    expect(signatureMatches('\u0130'.repeat(64), good)).toBe(false);
    expect(signatureMatches(good.slice(0, 10), good)).toBe(false);
    expect(signatureMatches(undefined, good)).toBe(false);
    expect(signatureMatches(42, good)).toBe(false);
  });

  it('when a notification header is made, then it is t=<seconds>,v1=<HMAC-SHA256 of "t.body">', () => {
    const body = 'notify_type=payment&notify_id=n1';
    const mac = createHmac('sha256', KEY).update(`1700000000.${body}`).digest('hex');
    expect(notificationHeader(body, KEY, 1700000000)).toBe(`t=1700000000,v1=${mac}`);
  });
});

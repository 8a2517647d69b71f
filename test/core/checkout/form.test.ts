import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHECKOUT_ALIASES, fieldText, loadingFormFields, routingFields, type LoadingFormInput } from '../../../src/core/checkout/form.js';
import { ACCOUNT_ID, makeGateway, MERCHANT_ID } from '../../support/gateway.js';

/**
 * The loading form as an object builds it (the first implementation): routing fields, the request's fields,
 * website, the aliases, checkout_token; a later value keeps the name's first place, and array-index names
 * come first, ascending, as JavaScript enumerates them.
 */
function referenceForm(input: LoadingFormInput): [string, string][] {
  const request: Record<string, string> = {};
  for (const [k, val] of Object.entries(input.request)) request[k] = fieldText(val);
  const routing = routingFields(input.account, request.website || input.account.website, input.timezone);
  const form: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, routing, request);
  form.website = routing.website!;
  const ctx = { request, routing, resultUrl: input.resultUrl, cancelUrl: input.cancelUrl, sourceIp: input.sourceIp };
  for (const [alias, source] of CHECKOUT_ALIASES) {
    if ('field' in source) form[alias] = request[source.field] ?? '';
    // values the gateway supplies are compared by the form itself below; only their place matters here
    else form[alias] = source.value({ ...ctx, allParams: '', logoNo: '', logoName: '' });
  }
  form.checkout_token = input.checkoutToken;
  return Object.entries(form);
}

const gw = makeGateway({ name: 'checkout-form' });
const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;

/** names a request may carry: the body reader refuses __proto__, constructor and prototype before they get here */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
const names = fc.oneof(
  fc.constantFrom('0', '1', '7', '10', '4294967294', '4294967295', '01', '-1', 'order_no', 'website', 'orderNo', 'return_url', 'gbc_id'),
  fc.stringMatching(/^[a-z_]{1,12}$/).filter((n) => !RESERVED.has(n)),
  fc.nat({ max: 5000 }).map(String),
);

describe('when the loading form is built from a stored checkout request', () => {
  it('then every name, its place and the value of every request field and alias are those of the object form (fast-check)', () => {
    fc.assert(
      fc.property(fc.dictionary(names, fc.string({ maxLength: 12 }), { maxKeys: 40 }), (extra) => {
        const input: LoadingFormInput = {
          account,
          request: { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: 'ORD-1', amount: '10.00', ...extra },
          resultUrl: 'https://gw.example/result',
          cancelUrl: 'https://gw.example/cancel',
          sourceIp: '203.0.113.7',
          timezone: 'UTC',
          checkoutToken: 'tok',
        };
        const form = [...loadingFormFields(input)];
        const reference = referenceForm(input);
        expect(form.map(([k]) => k)).toEqual(reference.map(([k]) => k));
        const supplied = new Set(CHECKOUT_ALIASES.filter(([, s]) => !('field' in s)).map(([a]) => a));
        expect(form.filter(([k]) => !supplied.has(k))).toEqual(reference.filter(([k]) => !supplied.has(k)));
      }),
      { numRuns: 500 },
    );
  });

  it('then a merchant field named as an array index comes first, as the page always wrote it', () => {
    const form = loadingFormFields({
      account,
      request: { merchant_id: MERCHANT_ID, 10: 'ten', 2: 'two' },
      resultUrl: 'r',
      cancelUrl: 'c',
      sourceIp: '',
      timezone: 'UTC',
      checkoutToken: 't',
    });
    expect([...form.keys()].slice(0, 3)).toEqual(['2', '10', 'gbc_id']);
    expect(form.get('10')).toBe('ten');
  });
});

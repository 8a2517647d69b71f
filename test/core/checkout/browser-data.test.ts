import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { CardAuthorisation } from '../../../src/core/ports/card-connector.js';
import { makeGateway, MERCHANT_ID, type TestGateway } from '../../support/gateway.js';
import { checkoutBody } from '../../support/checkout.js';
import { CARDS, TEST_SECURITY_CODE } from '../../support/cards.js';

/** The real sandbox connector, with the requests it was asked (the acquirer's side of the wire). */
let asked: CardAuthorisation[] = [];
let gw: TestGateway;

beforeAll(() => {
  gw = makeGateway({
    name: 'browser-data',
    // a wrapper that delegates each call (not a prototype copy: that would inherit forMerchant, which answers
    // the sandbox itself for a merchant's payments, and the wrapper would see none of them)
    wrapConnector: (sandbox) => ({
      code: sandbox.code,
      displayName: sandbox.displayName,
      authorise: (req: CardAuthorisation) => {
        asked.push(req);
        return sandbox.authorise(req);
      },
      completeChallenge: (ref, code, reference) => sandbox.completeChallenge(ref, code, reference),
      capture: (ref, amount, currency, reference) => sandbox.capture(ref, amount, currency, reference),
      void: (ref, reference) => sandbox.void(ref, reference),
      refund: (ref, amount, currency, reference) => sandbox.refund(ref, amount, currency, reference),
      status: (reference) => sandbox.status(reference),
    }),
  });
});
afterAll(async () => {
  await gw?.close();
});

async function payWith(extra: Record<string, string>) {
  asked = [];
  const body = checkoutBody({ open3d: 'no3DS' });
  const open = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));
  const card = new URL(open.body.checkout_url as string).pathname;
  const paid = await request(gw.app)
    .post(`${card}/pay`)
    .set('User-Agent', 'Mozilla/5.0 (test)')
    .set('Accept', 'text/html')
    .type('form')
    .send({
      cardholder: 'Ada Lovelace',
      card: CARDS.approved,
      expiration_month: '12',
      expiration_year: '2034',
      security_code: TEST_SECURITY_CODE,
      ...extra,
    });
  expect(paid.status).toBe(303);
  return gw.deps.store.findPaymentByOrder(MERCHANT_ID, String(body.account_id), String(body.order_no));
}

describe('when the card page sends 3-D Secure 2 browser data', () => {
  it("then it is kept as the payment's device data and reaches the connector with the authorisation", async () => {
    const payment = await payWith({
      browser_screen_width: '390',
      browser_screen_height: '844',
      browser_color_depth: '24',
      browser_tz_offset: '-120',
      browser_language: 'de-DE',
      browser_java_enabled: 'false',
      browser_javascript_enabled: 'true',
    });
    const expected = {
      screen_width: 390,
      screen_height: 844,
      color_depth: 24,
      tz_offset: -120,
      language: 'de-DE',
      java_enabled: false,
      javascript_enabled: true,
      user_agent: 'Mozilla/5.0 (test)',
      accept_header: 'text/html',
    };
    expect(payment?.device).toEqual(expected);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.browser).toEqual(expected);
  });

  it('then without the script JavaScript is recorded as off, and malformed values are dropped, never refused', async () => {
    const none = await payWith({});
    expect(none?.device).toEqual({
      java_enabled: false,
      javascript_enabled: false,
      user_agent: 'Mozilla/5.0 (test)',
      accept_header: 'text/html',
    });
    const odd = await payWith({
      browser_screen_width: '<script>',
      browser_tz_offset: '99999',
      browser_language: 'de DE;',
      browser_javascript_enabled: 'true',
    });
    expect(odd?.device).toEqual({
      java_enabled: false,
      javascript_enabled: true,
      user_agent: 'Mozilla/5.0 (test)',
      accept_header: 'text/html',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { KvGatewayStore } from '../../src/store/gateway-store.js';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { AcquirerJournal } from '../../src/core/acquirers/journal.js';
import { StripeConnector } from '../../src/connectors/stripe/connector.js';
import { AdyenConnector } from '../../src/connectors/adyen/connector.js';
import type { CardAuthorisation, CardConnector } from '../../src/core/ports/card-connector.js';

/**
 * Run by hand against the acquirers' real test modes (never in CI, which has no keys):
 *   STRIPE_TEST_KEY=sk_test_... npm run test:live
 *   ADYEN_TEST_KEY=... ADYEN_MERCHANT_ACCOUNT=... npm run test:live
 * Each runs the connector's operations once against the acquirer: the same checks as the stub tests, so a
 * stub that drifted from the real API shows here. Without the variables every test is skipped.
 */
const stripeKey = process.env.STRIPE_TEST_KEY;
const adyenKey = process.env.ADYEN_TEST_KEY;
const adyenAccount = process.env.ADYEN_MERCHANT_ACCOUNT;
const journal = (code: string) => new AcquirerJournal(new KvGatewayStore(new MemoryKv()), code, () => Date.now());

const card = (pan: string, currency: string, amount = 1000): CardAuthorisation => ({
  reference: `live-${randomUUID().slice(0, 18)}`,
  pan,
  expMonth: '03',
  expYear: '2030',
  securityCode: '737',
  amount,
  currency,
  threeDS: 'no3DS',
});

async function lifecycle(c: CardConnector, currency: string): Promise<void> {
  const a = card('4242424242424242', currency);
  const approved = await c.authorise(a);
  expect(approved).toMatchObject({ kind: 'approved' });
  const ref = (approved as { connectorRef: string }).connectorRef;
  // the same reference again answers the first authorisation: no second charge
  expect(await c.authorise(a)).toMatchObject({ kind: 'approved', connectorRef: ref });
  expect(await c.capture(ref, 600, currency, `${a.reference}-cap`)).toMatchObject({ ok: true });
  expect(await c.capture(ref, 600, currency, `${a.reference}-cap`)).toMatchObject({ ok: true });
  expect(await c.refund(ref, 200, currency, `${a.reference}-01`)).toMatchObject({ ok: true });
  expect(await c.refund(ref, 100, currency, `${a.reference}-02`)).toMatchObject({ ok: true });
  expect(await c.status(`${a.reference}-03`)).toBeUndefined();
  const b = card('4242424242424242', currency);
  const other = (await c.authorise(b)) as { connectorRef: string };
  expect(await c.void(other.connectorRef, `${b.reference}-void`)).toMatchObject({ ok: true });
  expect(await c.authorise(card('4000000000000002', currency))).toMatchObject({ kind: 'declined', reason: 'DECLINED' });
  expect(await c.authorise(card('4000000000009995', currency))).toMatchObject({ kind: 'declined', reason: 'INSUFFICIENT_FUNDS' });
}

describe.skipIf(!stripeKey)('Stripe test mode (STRIPE_TEST_KEY)', () => {
  it('when the connector runs each operation against Stripe, then Stripe answers as the stub does', async () => {
    const stripe = new StripeConnector({ secretKey: stripeKey!, webhookSecret: 'unused' }, journal('stripe'), () => Date.now());
    await lifecycle(stripe, 'USD');
  }, 120_000);
});

describe.skipIf(!adyenKey || !adyenAccount)('Adyen test environment (ADYEN_TEST_KEY, ADYEN_MERCHANT_ACCOUNT)', () => {
  it('when the connector runs each operation against Adyen, then Adyen answers as the stub does', async () => {
    const adyen = new AdyenConnector(
      { apiKey: adyenKey!, hmacKey: '00', merchantAccount: adyenAccount!, environment: 'TEST', returnUrl: 'https://gateway.example' },
      journal('adyen'),
    );
    await lifecycle(adyen, 'EUR');
  }, 120_000);
});

it('when the live tests are run, then the keys of at least one acquirer are given (else nothing was tried)', () => {
  expect(Boolean(stripeKey) || Boolean(adyenKey && adyenAccount), 'set STRIPE_TEST_KEY, or ADYEN_TEST_KEY and ADYEN_MERCHANT_ACCOUNT').toBe(
    true,
  );
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { AcquirerJournal } from '../../../src/core/acquirers/journal.js';
import { AdyenConnector } from '../../../src/connectors/adyen/connector.js';
import type { CardAuthorisation } from '../../../src/core/ports/card-connector.js';
import { AdyenStub } from '../../support/acquirers/adyen-stub.js';

const stub = new AdyenStub();
const clock = new ManualClock();
const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
let seq = 0;

function connector(environment: 'TEST' | 'LIVE' = 'TEST'): AdyenConnector {
  const journal = new AcquirerJournal(new KvGatewayStore(new MemoryKv()), 'adyen', () => clock.now());
  return new AdyenConnector(
    {
      apiKey: 'AQE_stub',
      hmacKey: HMAC_KEY,
      merchantAccount: 'ShopECOM',
      environment,
      apiBase: stub.baseUrl,
      returnUrl: 'http://gateway.test',
      timeoutMs: 2_000,
    },
    journal,
  );
}

const card = (pan: string, more: Partial<CardAuthorisation> = {}): CardAuthorisation => ({
  reference: `A${Date.now()}${++seq}`,
  pan,
  expMonth: '12',
  expYear: '2034',
  securityCode: '123',
  amount: 1000,
  currency: 'EUR',
  threeDS: 'no3DS',
  ...more,
});

beforeAll(() => stub.start());
afterAll(() => stub.stop());

describe('Adyen connector against the Adyen Checkout stub', () => {
  it('when a test card is authorised, then it travels as Adyen’s test card, with the reference as merchant reference, for manual capture', async () => {
    const req = card('4242424242424242');
    const outcome = await connector().authorise(req);
    const payment = stub.paymentFor(req.reference)!;
    expect(outcome).toEqual({ kind: 'approved', connectorRef: payment.pspReference, threedsResult: 'not performed' });
    expect(payment.amount).toEqual({ value: 1000, currency: 'EUR' });
  });

  it('when Adyen refuses, then its refusal reasons are the gateway’s, and an Error result is an error', async () => {
    const adyenTest = connector();
    expect(await adyenTest.authorise(card('4000000000000002'))).toMatchObject({ kind: 'declined', reason: 'DECLINED' });
    expect(await adyenTest.authorise(card('4000000000009995'))).toMatchObject({ kind: 'declined', reason: 'INSUFFICIENT_FUNDS' });
    expect(await adyenTest.authorise(card('4000000000000069'))).toMatchObject({ kind: 'declined', reason: 'EXPIRED_CARD' });
    expect(await adyenTest.authorise(card('4000000000000119'))).toMatchObject({ kind: 'error' });
  });

  it('when Adyen refuses as FRAUD, then it is the gateway’s suspected fraud (3010)', async () => {
    expect(await connector().authorise(card('4100000000000019'))).toMatchObject({ kind: 'declined', reason: 'SUSPECTED_FRAUD' });
  });

  it('when Adyen answers RedirectShopper, then it is a challenge with Adyen’s page, finished through /payments/details', async () => {
    const adyenTest = connector();
    const passes = card('4000002500003155', { threeDS: 'do3DS' });
    const challenge = await adyenTest.authorise(passes);
    const psp = stub.paymentFor(passes.reference)!.pspReference;
    expect(challenge).toEqual({ kind: 'challenge', connectorRef: passes.reference, redirectUrl: `${stub.baseUrl}/challenge/${psp}` });
    expect(await adyenTest.completeChallenge(passes.reference, stub.redirectResult(psp, true), `${passes.reference}-3ds`)).toMatchObject({
      kind: 'approved',
      connectorRef: psp,
    });
    const fails = card('4000002500003155', { threeDS: 'do3DS' });
    await adyenTest.authorise(fails);
    const failing = stub.paymentFor(fails.reference)!.pspReference;
    expect(await adyenTest.completeChallenge(fails.reference, stub.redirectResult(failing, false), `${fails.reference}-3ds`)).toMatchObject(
      {
        kind: 'declined',
        reason: 'THREEDS_FAILED',
      },
    );
  });

  it('when the answer is lost after Adyen acted, then status is unknown until its notification, and a retry gets the first answer', async () => {
    const adyenTest = connector();
    const req = card('4242424242424242');
    stub.server.fail('act-then-drop');
    await expect(adyenTest.authorise(req)).rejects.toThrow(/did not answer/);
    await expect(adyenTest.status(req.reference)).rejects.toThrow(/no answer or notification/);
    // the same reference again: Adyen's idempotency answers the first payment
    const again = await adyenTest.authorise(req);
    expect(again).toMatchObject({ kind: 'approved', connectorRef: stub.paymentFor(req.reference)!.pspReference });
    expect([...stub.payments.values()].filter((p) => p.reference === req.reference)).toHaveLength(1);
    expect(await adyenTest.status(req.reference)).toMatchObject({
      op: 'authorise',
      outcome: { kind: 'approved' },
      amount: 1000,
      currency: 'EUR',
    });
  });

  it('when Adyen cannot be reached or answers 5xx, then the outcome is unknown; a reference never sent is a definite no', async () => {
    const adyenTest = connector();
    const req = card('4242424242424242');
    expect(await adyenTest.status(req.reference)).toBeUndefined();
    stub.server.down();
    try {
      await expect(adyenTest.authorise(req)).rejects.toThrow(/did not answer/);
    } finally {
      stub.server.down(false);
    }
    stub.server.fail('5xx');
    await expect(adyenTest.authorise(card('4242424242424242'))).rejects.toThrow(/did not answer/);
    await expect(adyenTest.status(req.reference)).rejects.toThrow(/no answer or notification/);
  });

  it('when every attempt under a reference is refused at connect, then status says no record; once one may have reached Adyen, unknown', async () => {
    const adyenTest = connector();
    const req = card('4242424242424242');
    await stub.server.refuse();
    try {
      await expect(adyenTest.authorise(req)).rejects.toThrow(/ECONNREFUSED/);
      await expect(adyenTest.authorise(req)).rejects.toThrow(/ECONNREFUSED/);
      // no byte of either attempt left: Adyen definitely has no payment under this reference
      expect(await adyenTest.status(req.reference)).toBeUndefined();
    } finally {
      await stub.server.refuse(false);
    }
    // a third attempt is received and its answer lost: from now on Adyen may have it
    stub.server.fail('drop');
    await expect(adyenTest.authorise(req)).rejects.toThrow(/did not answer/);
    await expect(adyenTest.status(req.reference)).rejects.toThrow(/no answer or notification/);
    // the repeat under the same Idempotency-Key is the probe: one payment, whatever came before
    expect(await adyenTest.authorise(req)).toMatchObject({ kind: 'approved' });
    expect([...stub.payments.values()].filter((p) => p.reference === req.reference)).toHaveLength(1);
  });

  it('when Adyen’s RedirectShopper answer is lost, then status says the challenge (Adyen sends nothing while the shopper is away)', async () => {
    const adyenTest = connector();
    const req = card('4000002500003155', { threeDS: 'do3DS' });
    expect(await adyenTest.authorise(req)).toMatchObject({ kind: 'challenge' });
    // the wrapper above the connector lost it: the reference's record still says what Adyen answered
    expect(await adyenTest.status(req.reference)).toMatchObject({ op: 'authorise', outcome: { kind: 'challenge' } });
  });

  it('when Adyen answers 704 (the same Idempotency-Key in progress), then the outcome is unknown, never a refusal', async () => {
    const adyenTest = connector();
    const req = card('4242424242424242');
    stub.server.fail('in-progress');
    await expect(adyenTest.authorise(req)).rejects.toThrow(/did not answer/);
    await expect(adyenTest.status(req.reference)).rejects.toThrow(/no answer or notification/);
  });

  it('when captured in part, refunded several times and voided, then each is one modification per reference', async () => {
    const adyenTest = connector();
    const a = card('4242424242424242', { amount: 5000 });
    const { connectorRef } = (await adyenTest.authorise(a)) as { connectorRef: string };
    stub.server.fail('act-then-drop', (r) => r.path.endsWith('/captures'));
    await expect(adyenTest.capture(connectorRef, 3000, 'EUR', `${a.reference}-cap`)).rejects.toThrow(/did not answer/);
    expect(await adyenTest.capture(connectorRef, 3000, 'EUR', `${a.reference}-cap`)).toEqual({ ok: true, connectorRef });
    expect(await adyenTest.capture(connectorRef, 1000, 'EUR', `${a.reference}-cap2`)).toMatchObject({ ok: false });
    expect(await adyenTest.refund(connectorRef, 1000, 'EUR', `${a.reference}-01`)).toMatchObject({ ok: true });
    expect(await adyenTest.refund(connectorRef, 1500, 'EUR', `${a.reference}-02`)).toMatchObject({ ok: true });
    expect(await adyenTest.refund(connectorRef, 1000, 'EUR', `${a.reference}-03`)).toMatchObject({ ok: false });
    expect(await adyenTest.status(`${a.reference}-02`)).toMatchObject({ op: 'refund', outcome: { ok: true }, amount: 1500 });
    const mods = stub.modifications.filter((m) => m.paymentPspReference === connectorRef);
    expect(mods.map((m) => [m.kind, m.amount?.value])).toEqual([
      ['capture', 3000],
      ['refund', 1000],
      ['refund', 1500],
    ]);
    const b = card('4242424242424242');
    const authorised = (await adyenTest.authorise(b)) as { connectorRef: string };
    expect(await adyenTest.void(authorised.connectorRef, `${b.reference}-void`)).toEqual({
      ok: true,
      connectorRef: authorised.connectorRef,
    });
    expect(await adyenTest.status(`${b.reference}-void`)).toMatchObject({ op: 'void', outcome: { ok: true } });
  });

  it('when a notification is checked, then only this account’s HMAC key and merchant account pass', () => {
    const adyenTest = connector();
    const item = stub.notification('AUTHORISATION', 'whatever', HMAC_KEY);
    expect(adyenTest.verifyNotification(item)).toBe(true);
    expect(adyenTest.verifyNotification({ ...item, amount: { value: 1, currency: 'EUR' } })).toBe(false);
    expect(adyenTest.verifyNotification(stub.notification('AUTHORISATION', 'whatever', 'AB'.repeat(32)))).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { AcquirerJournal } from '../../../src/core/acquirers/journal.js';
import { STRIPE_SEARCH_LAG_MS, StripeConnector } from '../../../src/connectors/stripe/connector.js';
import type { CardAuthorisation } from '../../../src/core/ports/card-connector.js';
import { StripeStub } from '../../support/acquirers/stripe-stub.js';

const stub = new StripeStub();
const clock = new ManualClock();
let seq = 0;

function connector(secretKey = 'sk_test_stub'): StripeConnector {
  const journal = new AcquirerJournal(new KvGatewayStore(new MemoryKv()), 'stripe', () => clock.now());
  return new StripeConnector({ secretKey, webhookSecret: 'whsec_stub', apiBase: stub.baseUrl, timeoutMs: 2_000 }, journal, () =>
    clock.now(),
  );
}

const card = (pan: string, more: Partial<CardAuthorisation> = {}): CardAuthorisation => ({
  reference: `T${Date.now()}${++seq}`,
  pan,
  expMonth: '12',
  expYear: '2034',
  securityCode: '123',
  amount: 1000,
  currency: 'USD',
  threeDS: 'no3DS',
  ...more,
});

beforeAll(() => stub.start());
afterAll(() => stub.stop());

describe('Stripe connector against the Stripe stub', () => {
  it('when a test card is authorised, then it travels as Stripe’s test payment method and is approved for manual capture', async () => {
    const stripe = connector();
    const req = card('4242424242424242');
    const outcome = await stripe.authorise(req);
    expect(outcome).toMatchObject({ kind: 'approved' });
    const pi = stub.intentFor(req.reference)!;
    expect(pi).toMatchObject({ card: 'pm_card_visa', capture_method: 'manual', amount: 1000, currency: 'usd', status: 'requires_capture' });
    expect(outcome).toMatchObject({ connectorRef: pi.id });
  });

  it('when a live key is used, then the card number itself is sent (no test instrument)', async () => {
    const req = card('4242424242424242');
    await connector('sk_live_stub').authorise(req);
    expect(stub.intentFor(req.reference)!.card).toBe('4242424242424242');
  });

  it('when Stripe declines, then each decline code is the gateway’s reason, and a processing error is an error', async () => {
    const stripe = connector();
    expect(await stripe.authorise(card('4000000000000002'))).toMatchObject({ kind: 'declined', reason: 'DECLINED' });
    expect(await stripe.authorise(card('4000000000009995'))).toMatchObject({ kind: 'declined', reason: 'INSUFFICIENT_FUNDS' });
    expect(await stripe.authorise(card('4000000000000069'))).toMatchObject({ kind: 'declined', reason: 'EXPIRED_CARD' });
    expect(await stripe.authorise(card('4000000000000119'))).toMatchObject({ kind: 'error' });
  });

  it('when Stripe declines a card as fraudulent, then it is the gateway’s suspected fraud (3010)', async () => {
    expect(await connector('sk_live_stub').authorise(card('4100000000000019'))).toMatchObject({
      kind: 'declined',
      reason: 'SUSPECTED_FRAUD',
    });
  });

  it('when Stripe asks for 3-D Secure, then it is a challenge, and its result is read back after the shopper’s return', async () => {
    const stripe = connector();
    const passes = card('4000002500003155', { threeDS: 'do3DS' });
    const challenge = await stripe.authorise(passes);
    expect(challenge).toMatchObject({ kind: 'challenge' });
    const id = (challenge as { connectorRef: string }).connectorRef;
    // not back yet: the challenge is not completed
    const fails = card('4000002500003155', { threeDS: 'do3DS' });
    const other = (await stripe.authorise(fails)) as { connectorRef: string };
    stub.finishChallenge(id, true);
    expect(await stripe.completeChallenge(id, '', `${passes.reference}-3ds`)).toMatchObject({ kind: 'approved', connectorRef: id });
    stub.finishChallenge(other.connectorRef, false);
    expect(await stripe.completeChallenge(other.connectorRef, '', `${fails.reference}-3ds`)).toMatchObject({
      kind: 'declined',
      reason: 'THREEDS_FAILED',
    });
    expect(await stripe.status(`${passes.reference}-3ds`)).toMatchObject({ op: 'authorise', outcome: { kind: 'approved' } });
  });

  it('when the shopper comes back before finishing Stripe’s challenge, then it is declined and the intent is cancelled, so a late pass authorises nothing', async () => {
    const stripe = connector();
    const early = card('4000002500003155', { threeDS: 'do3DS' });
    const id = ((await stripe.authorise(early)) as { connectorRef: string }).connectorRef;
    expect(stub.intents.get(id)!.status).toBe('requires_action');
    expect(await stripe.completeChallenge(id, '', `${early.reference}-3ds`)).toMatchObject({ kind: 'declined', reason: 'THREEDS_FAILED' });
    expect(stub.intents.get(id)!.status).toBe('canceled');
    // and a shopper who passed meanwhile is the outcome: approved, not cancelled
    const meanwhile = card('4000002500003155', { threeDS: 'do3DS' });
    const other = ((await stripe.authorise(meanwhile)) as { connectorRef: string }).connectorRef;
    stub.finishChallenge(other, true);
    expect(await stripe.completeChallenge(other, '', `${meanwhile.reference}-3ds`)).toMatchObject({ kind: 'approved' });
    expect(stub.intents.get(other)!.status).not.toBe('canceled');
  });

  it('when a recurring charge needs authentication, then it is declined (no shopper to challenge)', async () => {
    expect(await connector().authorise(card('4000002500003155', { recurring: true, securityCode: undefined }))).toMatchObject({
      kind: 'declined',
      reason: 'THREEDS_FAILED',
    });
  });

  it('when the answer is lost after Stripe acted, then the retry under the same reference gets the first answer and Stripe charged once', async () => {
    const stripe = connector();
    const req = card('4242424242424242');
    stub.server.fail('act-then-drop', undefined, 2);
    await expect(stripe.authorise(req)).rejects.toThrow(/did not answer/);
    // unknown, not "no": the intent is found by its metadata
    expect(await stripe.status(req.reference)).toMatchObject({
      op: 'authorise',
      outcome: { kind: 'approved' },
      amount: 1000,
      currency: 'USD',
    });
    const again = await stripe.authorise(req);
    expect(again).toMatchObject({ kind: 'approved', connectorRef: stub.intentFor(req.reference)!.id });
    expect([...stub.intents.values()].filter((pi) => pi.metadata.gateway_reference === req.reference)).toHaveLength(1);
  });

  it('when Stripe cannot be reached, then the call and the status throw (unknown), and a reference never sent is a definite no', async () => {
    const stripe = connector();
    const req = card('4242424242424242');
    expect(await stripe.status(req.reference)).toBeUndefined();
    stub.server.down();
    try {
      await expect(stripe.authorise(req)).rejects.toThrow(/did not answer/);
      await expect(stripe.status(req.reference)).rejects.toThrow(/did not answer/);
    } finally {
      stub.server.down(false);
    }
    // sent, not found: unknown until Stripe's search has surely caught up, then "no record"
    await expect(stripe.status(req.reference)).rejects.toThrow(/search has not caught up/);
    clock.advance(STRIPE_SEARCH_LAG_MS);
    expect(await stripe.status(req.reference)).toBeUndefined();
  });

  it('when a 5xx comes back, then the outcome is unknown (thrown), not a refusal', async () => {
    stub.server.fail('5xx');
    await expect(connector().authorise(card('4242424242424242'))).rejects.toThrow(/did not answer/);
  });

  it('when captured in part, voided, refunded several times, then each maps to its PaymentIntent call once per reference', async () => {
    const stripe = connector();
    const a = card('4242424242424242', { amount: 5000 });
    const { connectorRef } = (await stripe.authorise(a)) as { connectorRef: string };
    stub.server.fail('act-then-drop', (r) => r.path.endsWith('/capture'), 2);
    await expect(stripe.capture(connectorRef, 3000, 'USD', `${a.reference}-cap`)).rejects.toThrow(/did not answer/);
    expect(await stripe.status(`${a.reference}-cap`)).toMatchObject({ op: 'capture', outcome: { ok: true }, amount: 3000 });
    expect(await stripe.capture(connectorRef, 3000, 'USD', `${a.reference}-cap`)).toEqual({ ok: true, connectorRef });
    expect(stub.captures.filter(([id]) => id === connectorRef)).toEqual([[connectorRef, 3000]]);
    // a second capture under another reference is Stripe's refusal
    expect(await stripe.capture(connectorRef, 1000, 'USD', `${a.reference}-cap2`)).toMatchObject({ ok: false });

    expect(await stripe.refund(connectorRef, 1000, 'USD', `${a.reference}-01`)).toMatchObject({ ok: true });
    stub.server.fail('act-then-drop', (r) => r.path === '/v1/refunds', 2);
    await expect(stripe.refund(connectorRef, 1500, 'USD', `${a.reference}-02`)).rejects.toThrow(/did not answer/);
    expect(await stripe.status(`${a.reference}-02`)).toMatchObject({ op: 'refund', outcome: { ok: true }, amount: 1500, currency: 'USD' });
    expect(await stripe.refund(connectorRef, 1500, 'USD', `${a.reference}-02`)).toMatchObject({ ok: true });
    expect(await stripe.refund(connectorRef, 1000, 'USD', `${a.reference}-03`)).toMatchObject({
      ok: false,
      message: /greater than unrefunded/,
    });
    expect(await stripe.status(`${a.reference}-04`)).toBeUndefined();
    expect([...stub.refunds.values()].filter((r) => r.payment_intent === connectorRef).map((r) => r.amount)).toEqual([1000, 1500]);

    const b = card('4242424242424242');
    const authorised = (await stripe.authorise(b)) as { connectorRef: string };
    expect(await stripe.void(authorised.connectorRef, `${b.reference}-void`)).toEqual({ ok: true, connectorRef: authorised.connectorRef });
    expect(await stripe.status(`${b.reference}-void`)).toMatchObject({ op: 'void', outcome: { ok: true } });
    expect(await stripe.status(`${b.reference}-cap`)).toBeUndefined();
  });

  it('when amounts are in a zero- or three-decimal currency, then they travel in its own minor units', async () => {
    const req = card('4242424242424242', { amount: 1234, currency: 'JPY' });
    await connector().authorise(req);
    expect(stub.intentFor(req.reference)).toMatchObject({ amount: 1234, currency: 'jpy' });
  });
});

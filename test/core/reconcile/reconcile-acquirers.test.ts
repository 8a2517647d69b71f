import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adyenDelivery } from '../../support/acquirers/deliveries.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { PASS_EVERY_MS } from '../../../src/core/reconcile/job.js';
import { connectorFor } from '../../../src/core/ports/connector.js';
import { referencesOf } from '../../../src/core/reconcile/reconcile-payment.js';
import { ACCOUNT_ID, MERCHANT_ID, makeGateway, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref, type Paid } from '../../support/operations.js';
import { StripeStub } from '../../support/acquirers/stripe-stub.js';
import { AdyenStub } from '../../support/acquirers/adyen-stub.js';
import { ADYEN_ENV, ADYEN_HMAC, STRIPE_ENV, acquirerMerchants } from '../../support/acquirers/accounts.js';
import { discrepancyMetric, reconcilePass } from '../../support/reconcile.js';

/**
 * Reconciliation against Stripe's books (the intent, its refunds and disputes, read through the stub) and
 * Adyen's (the journal): what a webhook that never came would have done is caught up, once, with the merchant
 * notified as for the webhook; what no transition explains is a discrepancy.
 */
const stripe = new StripeStub();
const adyen = new AdyenStub();
const NOTIFY = { notify_url: 'https://merchant.example/notify' };
const gateways: TestGateway[] = [];
beforeAll(async () => {
  await Promise.all([stripe.start(), adyen.start()]);
});
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await Promise.all([stripe.stop(), adyen.stop()]);
});

function gateway(code: 'stripe' | 'adyen', name: string, clock = new ManualClock()): TestGateway {
  const gw = makeGateway({
    name: `reconcile-${code}-${name}`,
    clock,
    merchants: acquirerMerchants(code, code === 'stripe' ? stripe.baseUrl : adyen.baseUrl),
    env: code === 'stripe' ? STRIPE_ENV : ADYEN_ENV,
  });
  gateways.push(gw);
  return gw;
}

/** A payment of 100.00 EUR captured whole and refunded 60.00, each accepted by the acquirer. */
async function refundedInPart(gw: TestGateway): Promise<Paid> {
  const paid = await pay(gw.app, { amount: '100.00', currency: 'EUR', ...NOTIFY });
  expect((await postBatch(gw.app, 'capture', [ref(paid, { amount: '100.00' })])).body.capture_orders[0].capture_status).toBe('1');
  const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '60.00', refund_reason: 'returned' })]);
  expect(refund.body.refund_orders[0].refund_status).toBe('1');
  return paid;
}

/** The notifications of a type the merchant was sent (queued) for an order, oldest first. */
async function notices(gw: TestGateway, paid: Paid, type: string) {
  const all = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, paid.order_no, 50);
  return all.filter((n) => n.notify_type === type).reverse();
}

describe('when Stripe has settled what its webhook never told the gateway', () => {
  it('then a refund Stripe failed is recorded failed and notified once, over two passes', async () => {
    const clock = new ManualClock();
    const gw = gateway('stripe', 'refund-failed', clock);
    const paid = await refundedInPart(gw);
    const refund = [...stripe.refunds.values()].find((r) => r.metadata.gateway_reference === `${paid.transaction_id}-01`)!;
    // Stripe failed it later; its refund.failed webhook never arrived
    refund.status = 'failed';

    expect(await reconcilePass(gw)).toMatchObject({ compared: 1, caught_up: 1, discrepancies: 0 });
    const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
    expect(p).toMatchObject({ status: '3100', refunded: 0, captured: 10000 });
    expect(p!.refunds[0]).toMatchObject({ refund_status: '0', refund_message: expect.stringContaining('reconciliation') });
    expect((await notices(gw, paid, 'refund')).map((n) => n.fields.refund_status).sort()).toEqual(['0', '1']);

    clock.advance(PASS_EVERY_MS + 1_000);
    expect(await reconcilePass(gw)).toMatchObject({ compared: 1, caught_up: 0, discrepancies: 0 });
    expect((await notices(gw, paid, 'refund')).map((n) => n.fields.refund_status).sort()).toEqual(['0', '1']);
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([]);
  });

  it('then a dispute the gateway never heard of is opened, debited and notified, once', async () => {
    const clock = new ManualClock();
    const gw = gateway('stripe', 'dispute', clock);
    const paid = await pay(gw.app, { amount: '50.00', currency: 'EUR', ...NOTIFY });
    await postBatch(gw.app, 'capture', [ref(paid, { amount: '50.00' })]);
    const dueBy = Math.floor(clock.now() / 1000) + 10 * 86_400;
    const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'fraudulent', 'needs_response', dueBy);

    expect(await reconcilePass(gw)).toMatchObject({ caught_up: 1, discrepancies: 0 });
    const dispute = await gw.deps.store.getDispute(MERCHANT_ID, `${paid.transaction_id}-D01`);
    expect(dispute).toMatchObject({
      acquirer_ref: dp.id,
      status: 'needs_response',
      reason: 'fraudulent',
      amount: 5000,
      due_at: dueBy * 1000,
    });
    expect((await notices(gw, paid, 'dispute')).map((n) => n.fields.dispute_status)).toEqual(['needs_response']);

    // Stripe decides it lost; that webhook never comes either: the next pass moves it
    stripe.disputes.get(dp.id)!.status = 'lost';
    clock.advance(PASS_EVERY_MS + 1_000);
    expect(await reconcilePass(gw)).toMatchObject({ caught_up: 1 });
    expect(await gw.deps.store.getDispute(MERCHANT_ID, `${paid.transaction_id}-D01`)).toMatchObject({ status: 'lost' });
    clock.advance(PASS_EVERY_MS + 1_000);
    expect(await reconcilePass(gw)).toMatchObject({ caught_up: 0 });
    expect((await notices(gw, paid, 'dispute')).map((n) => n.fields.dispute_status)).toEqual(['needs_response', 'lost']);
  });
});

describe('when money moved at Stripe in a way no transition explains', () => {
  it('then a refund made in Stripe’s Dashboard is a refunds discrepancy naming Stripe’s refund, counted once', async () => {
    const clock = new ManualClock();
    const gw = gateway('stripe', 'dashboard-refund', clock);
    const paid = await refundedInPart(gw);
    const direct = stripe.refundInDashboard(stripe.intentFor(paid.transaction_id)!.id, 1000);
    const before = await discrepancyMetric(gw, 'stripe', 'refunds');

    expect(await reconcilePass(gw)).toMatchObject({ discrepancies: 1, caught_up: 0 });
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([
      expect.objectContaining({
        kind: 'refunds',
        connector: 'stripe',
        acquirer_amount: 7000,
        gateway_amount: 6000,
        references: [direct.id],
      }),
    ]);
    clock.advance(PASS_EVERY_MS + 1_000);
    expect(await reconcilePass(gw)).toMatchObject({ discrepancies: 0 });
    expect(await discrepancyMetric(gw, 'stripe', 'refunds')).toBe(before + 1);
    expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ refunded: 6000 });
  });
});

describe('when Stripe authorised a payment the gateway recorded declined', () => {
  it('then it is an authorisation discrepancy: Stripe holds the amount, the gateway nothing', async () => {
    const gw = gateway('stripe', 'late-approval');
    const paid = await pay(gw.app, { amount: '50.00', currency: 'EUR', card: '4000000000000002' });
    expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '4000' });
    // the intent was approved at Stripe after all, and never cancelled
    const pi = stripe.intentFor(paid.transaction_id)!;
    Object.assign(pi, { status: 'requires_capture', amount_capturable: pi.amount, last_payment_error: null });
    const before = await discrepancyMetric(gw, 'stripe', 'authorisation');

    expect(await reconcilePass(gw)).toMatchObject({ discrepancies: 1 });
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([
      expect.objectContaining({
        kind: 'authorisation',
        acquirer_amount: 5000,
        gateway_amount: 0,
        references: [paid.transaction_id, pi.id],
      }),
    ]);
    expect(await discrepancyMetric(gw, 'stripe', 'authorisation')).toBe(before + 1);
  });
});

describe('when Adyen’s books are the journal', () => {
  it('then a refund is pending until its REFUND notification settles it, and the books agree with the gateway', async () => {
    const gw = gateway('adyen', 'journal');
    const paid = await refundedInPart(gw);
    const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
    const books = () =>
      gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id).then((p) => connectorFor(gw.deps, account).books!(referencesOf(p!)));
    const before = await books();
    expect(before.authorisations).toEqual([
      expect.objectContaining({
        reference: paid.transaction_id,
        status: 'approved',
        amount: 10000,
        currency: 'EUR',
        voided: false,
        final: true,
      }),
    ]);
    expect(before.refunds).toEqual([expect.objectContaining({ reference: `${paid.transaction_id}-01`, status: 'pending', final: false })]);
    // Adyen's capture is never final in the journal: reconciliation does not compare it
    expect(before.capture.final).toBe(false);

    const item = adyen.notification('REFUND', `${paid.transaction_id}-01`, ADYEN_HMAC, true);
    expect((await adyenDelivery(gw, item)).text).toBe('[accepted]');
    expect((await books()).refunds).toEqual([
      expect.objectContaining({ reference: `${paid.transaction_id}-01`, amount: 6000, status: 'succeeded', final: true }),
    ]);
    expect(await reconcilePass(gw)).toMatchObject({ compared: 1, caught_up: 0, discrepancies: 0 });
  });
});

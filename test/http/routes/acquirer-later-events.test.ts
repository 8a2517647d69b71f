import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, MERCHANT_ID, makeGateway, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref, type Paid } from '../../support/operations.js';
import { StripeStub } from '../../support/acquirers/stripe-stub.js';
import { AdyenStub } from '../../support/acquirers/adyen-stub.js';
import { ADYEN_ENV, ADYEN_HMAC, STRIPE_ENV, acquirerMerchants } from '../../support/acquirers/accounts.js';
import { adyenDelivery, stripeDelivery } from '../../support/acquirers/deliveries.js';
import { disputeCall } from '../../support/disputes.js';
import { jobOf } from '../../support/jobs.js';

/**
 * Later events at the acquirer (issue 38): a refund that fails after the acquirer accepted it is recorded on
 * the payment (refund_status 0, the amount no longer refunded) and notified as refunds are; a dispute opened
 * at the acquirer becomes the gateway's dispute (docs/disputes.md) and follows the acquirer's decision. Each event is
 * applied once, however often it is sent.
 */
const stripe = new StripeStub();
const adyen = new AdyenStub();
const NOTIFY = { notify_url: 'https://merchant.example/notify' };
beforeAll(async () => {
  await Promise.all([stripe.start(), adyen.start()]);
});
afterAll(async () => {
  await Promise.all([stripe.stop(), adyen.stop()]);
});

function gateway(code: 'stripe' | 'adyen', name: string): TestGateway {
  return makeGateway({
    name: `later-${code}-${name}`,
    clock: new ManualClock(),
    merchants: acquirerMerchants(code, code === 'stripe' ? stripe.baseUrl : adyen.baseUrl),
    env: code === 'stripe' ? STRIPE_ENV : ADYEN_ENV,
  });
}

/** A payment captured whole and refunded in part (60.00 of 100.00), the refund accepted by the acquirer. */
async function refundedInPart(gw: TestGateway): Promise<{ paid: Paid; refundReference: string }> {
  const paid = await pay(gw.app, { amount: '100.00', currency: 'EUR', ...NOTIFY });
  expect((await postBatch(gw.app, 'capture', [ref(paid, { amount: '100.00' })])).status).toBe(200);
  expect((await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '60.00', refund_reason: 'returned' })])).status).toBe(200);
  const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
  expect(p).toMatchObject({ status: '3200', refunded: 6000 });
  return { paid, refundReference: p!.refunds[0]!.refund_reference_id };
}

/** A payment of 50.00 EUR captured whole: what a dispute at the acquirer is opened on. */
async function captured(gw: TestGateway): Promise<Paid> {
  const paid = await pay(gw.app, { amount: '50.00', currency: 'EUR', ...NOTIFY });
  expect((await postBatch(gw.app, 'capture', [ref(paid, { amount: '50.00' })])).status).toBe(200);
  return paid;
}

/** A captured payment disputed at Stripe (fraudulent, needs_response), its charge.dispute.created applied. */
async function stripeDisputeOpened(gw: TestGateway, eventId: string) {
  const paid = await captured(gw);
  const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'fraudulent', 'needs_response');
  expect((await stripeDelivery(gw, 'charge.dispute.created', dp, eventId)).text).toBe('applied');
  return { paid, dp, disputeId: `${paid.transaction_id}-D01` };
}

/** The dispute's due_date passed (by a second) and the dispute steps run: its deadline falls due. */
async function pastDueDate(gw: TestGateway, disputeId: string): Promise<void> {
  const d = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
  (gw.deps.clock as ManualClock).advance(d.due_at - gw.deps.clock.now() + 1_000);
  await jobOf(gw, 'dispute-steps').runOnce();
}

/**
 * A Stripe dispute on a captured payment, and the merchant's evidence for it ('proof') taken by Stripe with
 * both of its answers dropped (Stripe's SDK sends a dropped request once more by itself): the call answered.
 */
async function evidenceAnswerLost(gw: TestGateway, eventId: string) {
  const { dp, disputeId } = await stripeDisputeOpened(gw, eventId);
  stripe.server.fail('act-then-drop', (r) => r.path.startsWith('/v1/disputes/'), 2);
  const lost = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: 'proof', submit: '1' });
  expect(stripe.disputes.get(dp.id)).toMatchObject({ status: 'under_review', evidence_details: { submission_count: 1 } });
  return { dp, disputeId, lost };
}

/** The refund_status of the payment's refund notifications (one each: the acceptance and the failure). */
async function refundNotices(gw: TestGateway, orderNo: string): Promise<string[]> {
  const all = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, orderNo, 50);
  return all
    .filter((n) => n.notify_type === 'refund')
    .map((n) => n.fields.refund_status!)
    .sort();
}

describe('a refund that fails at the acquirer after it was accepted', () => {
  it('when Stripe sends refund.failed (twice), then the refund is recorded failed once, the amount is no longer refunded, and the merchant is notified', async () => {
    const gw = gateway('stripe', 'refund-failed');
    try {
      const { paid, refundReference } = await refundedInPart(gw);
      const refund = [...stripe.refunds.values()].find((r) => r.metadata.gateway_reference === refundReference)!;
      // Stripe's own record of the refund says failed too (its money is back on the payment)
      refund.status = 'failed';
      const failed = { ...refund, failure_reason: 'expired_or_canceled_card' };
      for (const expected of ['applied', 'duplicate']) {
        const res = await stripeDelivery(gw, 'refund.failed', failed, `evt_refund_failed_${refund.id}`);
        expect([res.status, res.text]).toEqual([200, expected]);
      }
      const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      expect(p).toMatchObject({ status: '3100', refunded: 0, captured: 10000 });
      expect(p!.refunds[0]).toMatchObject({ refund_status: '0', refund_message: expect.stringContaining('expired_or_canceled_card') });
      expect(await refundNotices(gw, paid.order_no)).toEqual(['0', '1']);
      // the query shows it: the refund failed
      const query = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '100.00', refund_reason: 'again' })]);
      expect(query.status).toBe(200);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '3300', refunded: 10000 });
    } finally {
      await gw.close();
    }
  });

  it('when Adyen sends REFUND_FAILED for an accepted refund, then the refund is recorded failed and notified', async () => {
    const gw = gateway('adyen', 'refund-failed');
    try {
      const { paid, refundReference } = await refundedInPart(gw);
      const item = adyen.notification('REFUND_FAILED', refundReference, ADYEN_HMAC, true, 'Refund rejected by the issuer');
      // sent twice (Adyen sends until acknowledged): acknowledged each time, applied once (one failure notice)
      for (let i = 0; i < 2; i++) {
        const res = await adyenDelivery(gw, item);
        expect([res.status, res.text]).toEqual([200, '[accepted]']);
      }
      const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      expect(p).toMatchObject({ status: '3100', refunded: 0 });
      expect(p!.refunds[0]).toMatchObject({ refund_status: '0', refund_message: expect.stringContaining('Refund rejected by the issuer') });
      expect(await refundNotices(gw, paid.order_no)).toEqual(['0', '1']);
    } finally {
      await gw.close();
    }
  });
});

describe('a capture that fails at the acquirer after it was accepted', () => {
  it('when Adyen sends CAPTURE_FAILED (twice) for an accepted capture, then the payment is expired with nothing captured, notified once, and cannot be captured or refunded', async () => {
    const gw = gateway('adyen', 'capture-failed');
    try {
      const paid = await captured(gw);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '3100', captured: 5000 });
      const item = adyen.notification('CAPTURE_FAILED', `${paid.transaction_id}-cap`, ADYEN_HMAC, true, 'Authorisation expired');
      for (let i = 0; i < 2; i++) {
        const res = await adyenDelivery(gw, item);
        expect([res.status, res.text]).toEqual([200, '[accepted]']);
      }
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({
        status: '4400',
        captured: 0,
        result_code: '3011',
      });
      const notices = (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, paid.order_no, 50)).filter(
        (n) => n.notify_type === 'capture',
      );
      // the capture's notice, then its failure's
      expect(notices.map((n) => [n.fields.payment_status, n.fields.captured_amount, n.fields.result_info]).sort()).toEqual([
        ['3100', '50.00', '0000:Success'],
        ['4400', '0.00', '3011:Capture failed at the acquirer'],
      ]);
      const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '10.00', refund_reason: 'goodwill' })]);
      expect(refund.body.refund_orders[0].refund_status).toBe('0');
      const capture = await postBatch(gw.app, 'capture', [ref(paid, { amount: '50.00' })]);
      expect(capture.body.capture_orders[0].capture_status).toBe('0');
    } finally {
      await gw.close();
    }
  });

  it('when Adyen answers a capture the gateway recorded with CAPTURE success false, then it is recorded as failed: expired, nothing captured', async () => {
    const gw = gateway('adyen', 'capture-success-false');
    try {
      const paid = await captured(gw);
      // Adyen received the capture (the gateway recorded it), then could not make it
      const res = await adyenDelivery(
        gw,
        adyen.notification('CAPTURE', `${paid.transaction_id}-cap`, ADYEN_HMAC, false, 'Insufficient balance'),
      );
      expect([res.status, res.text]).toEqual([200, '[accepted]']);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({
        status: '4400',
        captured: 0,
        result_code: '3011',
      });
    } finally {
      await gw.close();
    }
  });

  it('when the payment was refunded in part before Adyen’s CAPTURE_FAILED arrives, then it is left as it is for the operator, and the event is acknowledged', async () => {
    const gw = gateway('adyen', 'capture-failed-refunded');
    try {
      const { paid } = await refundedInPart(gw);
      const before = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      const item = adyen.notification('CAPTURE_FAILED', `${paid.transaction_id}-cap`, ADYEN_HMAC, true, 'Authorisation expired');
      const res = await adyenDelivery(gw, item);
      expect([res.status, res.text]).toEqual([200, '[accepted]']);
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({
        status: '3200',
        version: before!.version,
      });
    } finally {
      await gw.close();
    }
  });
});

describe('a dispute opened at the acquirer', () => {
  it('when Stripe reports an inquiry, escalates it and closes it lost, then the gateway’s dispute follows each step once', async () => {
    const gw = gateway('stripe', 'dispute');
    try {
      const paid = await captured(gw);
      const intent = stripe.intentFor(paid.transaction_id)!;
      const dispute = {
        id: 'dp_stub_1',
        object: 'dispute',
        payment_intent: intent.id,
        amount: 5000,
        currency: 'eur',
        reason: 'fraudulent',
      };
      const statusOf = async () => (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.disputes;
      for (const expected of ['applied', 'duplicate']) {
        const res = await stripeDelivery(gw, 'charge.dispute.created', { ...dispute, status: 'warning_needs_response' }, 'evt_dp_created');
        expect([res.status, res.text]).toEqual([200, expected]);
      }
      expect(await statusOf()).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'inquiry', amount: 5000 }]);
      const [opened] = await gw.deps.store.getDisputes(MERCHANT_ID, [`${paid.transaction_id}-D01`]);
      expect(opened).toMatchObject({ reason: 'fraudulent', amount: 5000, acquirer_ref: 'dp_stub_1' });
      const escalated = await stripeDelivery(gw, 'charge.dispute.updated', { ...dispute, status: 'needs_response' }, 'evt_dp_updated');
      expect([escalated.status, escalated.text]).toEqual([200, 'applied']);
      expect(await statusOf()).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'needs_response', amount: 5000 }]);
      const closed = await stripeDelivery(gw, 'charge.dispute.closed', { ...dispute, status: 'lost' }, 'evt_dp_closed');
      expect([closed.status, closed.text]).toEqual([200, 'applied']);
      expect(await statusOf()).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'lost', amount: 5000 }]);
    } finally {
      await gw.close();
    }
  });

  it('when Stripe closes won a dispute the gateway still has awaiting a response (the merchant answered at Stripe), then it is recorded reviewed, then won', async () => {
    const gw = gateway('stripe', 'dispute-won');
    try {
      const paid = await captured(gw);
      const intent = stripe.intentFor(paid.transaction_id)!;
      const dispute = { id: 'dp_stub_won', object: 'dispute', payment_intent: intent.id, amount: 5000, currency: 'eur', reason: 'general' };
      const created = await stripeDelivery(gw, 'charge.dispute.created', { ...dispute, status: 'needs_response' }, 'evt_dpw_created');
      expect([created.status, created.text]).toEqual([200, 'applied']);
      const closed = await stripeDelivery(gw, 'charge.dispute.closed', { ...dispute, status: 'won' }, 'evt_dpw_closed');
      expect([closed.status, closed.text]).toEqual([200, 'applied']);
      const [won] = await gw.deps.store.getDisputes(MERCHANT_ID, [`${paid.transaction_id}-D01`]);
      expect(won).toMatchObject({ status: 'won' });
      expect(won!.history.map((h) => h.to)).toEqual(['needs_response', 'under_review', 'won']);
      expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.disputes).toEqual([
        { dispute_id: `${paid.transaction_id}-D01`, status: 'won', amount: 5000 },
      ]);
    } finally {
      await gw.close();
    }
  });

  it('when the merchant sends evidence through the gateway on a Stripe dispute, then Stripe gets it submitted once, and its decision closes the gateway’s dispute', async () => {
    const gw = gateway('stripe', 'dispute-evidence');
    try {
      const paid = await captured(gw);
      const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'product_not_received', 'needs_response');
      expect((await stripeDelivery(gw, 'charge.dispute.created', dp, 'evt_dpe_created')).text).toBe('applied');
      const disputeId = `${paid.transaction_id}-D01`;
      const evidence = {
        product_description: 'A blue T-shirt, size M',
        customer_communication: 'The shopper thanked us on 21 November',
        shipping_tracking: 'TRACK-0001',
        uncategorized_text: 'Delivered to the door',
        submit: '1',
      };
      const sent = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, ...evidence });
      expect(sent.body).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
      expect(stripe.disputes.get(dp.id)).toMatchObject({
        status: 'under_review',
        evidence_details: { submission_count: 1 },
        evidence: {
          product_description: 'A blue T-shirt, size M',
          shipping_tracking_number: 'TRACK-0001',
          uncategorized_text: 'Customer communication:\nThe shopper thanked us on 21 November\n\nDelivered to the door',
        },
      });
      // sent again (a double click): refused by the gateway, nothing more at Stripe
      const again = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, ...evidence });
      expect(again.body).toMatchObject({ return_status: '0' });
      expect(stripe.disputes.get(dp.id)!.evidence_details.submission_count).toBe(1);
      // Stripe's updates on the way (under review) change nothing; its decision closes the dispute
      expect((await stripeDelivery(gw, 'charge.dispute.updated', stripe.disputes.get(dp.id), 'evt_dpe_review')).text).toBe('applied');
      stripe.disputes.get(dp.id)!.status = 'won';
      expect((await stripeDelivery(gw, 'charge.dispute.closed', stripe.disputes.get(dp.id), 'evt_dpe_won')).text).toBe('applied');
      const [won] = await gw.deps.store.getDisputes(MERCHANT_ID, [disputeId]);
      expect(won!.history.map((h) => h.to)).toEqual(['needs_response', 'under_review', 'won']);
    } finally {
      await gw.close();
    }
  });

  it('when Stripe takes the evidence but its answer is lost, then the merchant is told the outcome is unknown (never refused), and the same call again records it once', async () => {
    const gw = gateway('stripe', 'dispute-lost-answer');
    try {
      const { dp, disputeId, lost } = await evidenceAnswerLost(gw, 'evt_dpl_created');
      expect(lost.body).toMatchObject({ return_status: '0', dispute_status: 'needs_response' });
      expect(String(lost.body.return_message)).toContain('unknown');
      expect(String(lost.body.return_message)).not.toContain('refused');
      const again = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: 'proof', submit: '1' });
      expect(again.body).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
      expect(stripe.disputes.get(dp.id)!.evidence_details.submission_count).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('when Stripe takes the evidence, its answer is lost and the merchant never sends it again, then the deadline asks Stripe again and records the dispute under review, never lost', async () => {
    const gw = gateway('stripe', 'dispute-lost-answer-deadline');
    try {
      const { dp, disputeId, lost } = await evidenceAnswerLost(gw, 'evt_dpd_created');
      expect(String(lost.body.return_message)).toContain('unknown');
      // the due_date passes without another call from the merchant, and the deadline step runs
      const before = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      await pastDueDate(gw, disputeId);
      const after = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(after).toMatchObject({ status: 'under_review', evidence: { uncategorized_text: 'proof' } });
      expect(after.evidence_submitted_at).toBeLessThan(before.due_at);
      expect(after.sent).toBeUndefined();
      expect(after.history.map((h) => h.cause)).not.toContain('deadline');
      expect(stripe.disputes.get(dp.id)!.evidence_details.submission_count).toBe(1);
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it('when Stripe took evidence whose answer was lost and the merchant then sends other evidence, then the dispute is recorded under review with the evidence Stripe took, and the deadline never closes it lost', async () => {
    const gw = gateway('stripe', 'dispute-lost-answer-other');
    try {
      const { dp, disputeId } = await evidenceAnswerLost(gw, 'evt_dpo_created');
      const other = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: 'more proof', submit: '1' });
      // the new evidence is not taken (Stripe reviews the first), and the merchant is told so
      expect(other.body).toMatchObject({ return_status: '0', dispute_status: 'under_review' });
      expect(String(other.body.return_message)).toContain('already');
      const now = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(now).toMatchObject({ status: 'under_review', evidence: { uncategorized_text: 'proof' } });
      await pastDueDate(gw, disputeId);
      const after = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(after.history.map((h) => h.cause)).not.toContain('deadline');
      expect(stripe.disputes.get(dp.id)).toMatchObject({ status: 'under_review', evidence: { uncategorized_text: 'proof' } });
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it('when Stripe took evidence whose answer was lost and the merchant then accepts the dispute, then the acceptance is refused and the dispute is recorded under review, never lost', async () => {
    const gw = gateway('stripe', 'dispute-lost-answer-accept');
    try {
      const { dp, disputeId } = await evidenceAnswerLost(gw, 'evt_dpx_created');
      const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: disputeId });
      expect(accepted.body).toMatchObject({ return_status: '0', dispute_status: 'under_review' });
      await pastDueDate(gw, disputeId);
      const after = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(after).toMatchObject({ status: 'under_review', evidence: { uncategorized_text: 'proof' } });
      expect(after.history.map((h) => h.cause)).not.toContain('accepted');
      expect(stripe.disputes.get(dp.id)).toMatchObject({ status: 'under_review' });
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it('when two different evidence texts both went unanswered and Stripe had neither, then the deadline sends the latest, and Stripe reviews that one', async () => {
    const gw = gateway('stripe', 'dispute-two-unknown');
    try {
      const { dp, disputeId } = await stripeDisputeOpened(gw, 'evt_dp2_created');
      for (const text of ['first draft of proof', 'the proof']) {
        stripe.server.fail('drop', (r) => r.path.startsWith('/v1/disputes/'), 2);
        const r = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: text, submit: '1' });
        expect(String(r.body.return_message)).toContain('unknown');
      }
      expect(stripe.disputes.get(dp.id)!.evidence_details.submission_count).toBe(0);
      const before = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(before.sent!.map((a) => a.n)).toEqual([1, 2]);
      await pastDueDate(gw, disputeId);
      expect(await gw.deps.store.getDispute(MERCHANT_ID, disputeId)).toMatchObject({
        status: 'under_review',
        evidence: { uncategorized_text: 'the proof' },
      });
      expect(stripe.disputes.get(dp.id)).toMatchObject({ status: 'under_review', evidence: { uncategorized_text: 'the proof' } });
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it('when ten different answers of a dispute have no known outcome, then an eleventh is refused until one of them is sent again', async () => {
    const gw = gateway('stripe', 'dispute-many-unknown');
    try {
      const { dp, disputeId } = await stripeDisputeOpened(gw, 'evt_dp10_created');
      stripe.server.fail('drop', (r) => r.path.startsWith('/v1/disputes/'), 1_000);
      for (let i = 1; i <= 10; i++) {
        const r = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: `proof ${i}`, submit: '1' });
        expect(String(r.body.return_message)).toContain('unknown');
      }
      const eleventh = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: 'proof 11', submit: '1' });
      expect(eleventh.body).toMatchObject({ return_status: '0', dispute_status: 'needs_response' });
      expect(String(eleventh.body.return_message)).toContain('10 answers sent to the acquirer have no known outcome');
      expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.sent).toHaveLength(10);
      stripe.server.clearFaults();
      const last = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: 'proof 10', submit: '1' });
      expect(last.body).toMatchObject({ return_status: '1', dispute_status: 'under_review' });
      expect(stripe.disputes.get(dp.id)).toMatchObject({ evidence: { uncategorized_text: 'proof 10' } });
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it("when Stripe closed an inquiry on the merchant's acceptance whose answer was lost, then its closure webhook records the dispute accepted (lost), not won", async () => {
    const gw = gateway('stripe', 'dispute-accept-lost-answer');
    try {
      const paid = await captured(gw);
      const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'general', 'warning_needs_response');
      expect((await stripeDelivery(gw, 'charge.dispute.created', dp, 'evt_dpi_created')).text).toBe('applied');
      const disputeId = `${paid.transaction_id}-D01`;
      stripe.server.fail('act-then-drop', (r) => r.path.startsWith('/v1/disputes/'), 2);
      const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: disputeId });
      expect(String(accepted.body.return_message)).toContain('unknown');
      expect(stripe.disputes.get(dp.id)!.status).toBe('warning_closed');
      // Stripe's closure arrives before the merchant sends the acceptance again; while Stripe cannot be asked
      // about that acceptance, the webhook is not acknowledged (Stripe sends it again), and nothing moves
      stripe.server.fail('drop', (r) => r.path.startsWith('/v1/disputes/'), 2);
      const early = await stripeDelivery(gw, 'charge.dispute.closed', stripe.disputes.get(dp.id)!, 'evt_dpi_closed');
      expect(early.status).toBe(503);
      expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('inquiry');
      const closed = await stripeDelivery(gw, 'charge.dispute.closed', stripe.disputes.get(dp.id)!, 'evt_dpi_closed');
      expect(closed.status).toBe(200);
      const d = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(d.status).toBe('lost');
      expect(d.history.map((h) => h.cause)).toContain('accepted');
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it("when Stripe gives a dispute its due_by, then that is the dispute's due_date, an escalation's new due_by moves it and its deadline, and the deadline ends evidence but leaves the decision to Stripe", async () => {
    const gw = gateway('stripe', 'dispute-due-by');
    try {
      const paid = await captured(gw);
      const DAY = 86_400_000;
      const first = Math.floor((gw.deps.clock.now() + 10 * DAY) / 1000);
      const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'general', 'warning_needs_response', first);
      expect((await stripeDelivery(gw, 'charge.dispute.created', dp, 'evt_dpd2_created')).text).toBe('applied');
      const disputeId = `${paid.transaction_id}-D01`;
      expect(await gw.deps.store.getDispute(MERCHANT_ID, disputeId)).toMatchObject({ status: 'inquiry', due_at: first * 1000 });
      // the inquiry becomes a chargeback with a due date of its own, 20 days on
      const second = first + 10 * 86_400;
      const escalated = { ...dp, status: 'needs_response', evidence_details: { submission_count: 0, due_by: second } };
      expect((await stripeDelivery(gw, 'charge.dispute.updated', escalated, 'evt_dpd2_updated')).text).toBe('applied');
      expect(await gw.deps.store.getDispute(MERCHANT_ID, disputeId)).toMatchObject({ status: 'needs_response', due_at: second * 1000 });
      // the first due date passes: nothing closes, evidence is still taken
      (gw.deps.clock as ManualClock).advance(first * 1000 - gw.deps.clock.now() + 1_000);
      await jobOf(gw, 'dispute-steps').runOnce();
      expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('needs_response');
      // the second passes: evidence is refused from then on, and the dispute waits for Stripe's decision
      await pastDueDate(gw, disputeId);
      expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('needs_response');
      const late = await disputeCall(gw.app, 'disputeEvidence', { dispute_id: disputeId, uncategorized_text: 'late', submit: '1' });
      expect(late.body).toMatchObject({ return_status: '0', dispute_status: 'needs_response' });
      expect(String(late.body.return_message)).toContain('due_date for evidence has passed');
      expect(await gw.deps.store.dueCount(MERCHANT_ID, 'dispute')).toBe(0);
      const lost = { ...escalated, status: 'lost' };
      expect((await stripeDelivery(gw, 'charge.dispute.closed', lost, 'evt_dpd2_closed')).text).toBe('applied');
      const d = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(d.status).toBe('lost');
      expect(d.history.map((h) => h.cause)).toEqual(['opened', 'escalated', 'decided']);
    } finally {
      await gw.close();
    }
  });

  it("when the merchant answers a Stripe dispute in Stripe's Dashboard, then Stripe's update puts it under review, the deadline leaves it, and Stripe's decision closes it won", async () => {
    const gw = gateway('stripe', 'dispute-dashboard');
    try {
      const { dp, disputeId } = await stripeDisputeOpened(gw, 'evt_dpdash_created');
      const reviewed = { ...dp, status: 'under_review', evidence: { uncategorized_text: 'sent in the Dashboard' } };
      expect((await stripeDelivery(gw, 'charge.dispute.updated', reviewed, 'evt_dpdash_updated')).text).toBe('applied');
      const d = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      expect(d).toMatchObject({ status: 'under_review', evidence_submitted_at: gw.deps.clock.now() });
      expect(d.history.map((h) => h.cause)).toEqual(['opened', 'evidence']);
      await pastDueDate(gw, disputeId);
      expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('under_review');
      const won = { ...reviewed, status: 'won' };
      expect((await stripeDelivery(gw, 'charge.dispute.closed', won, 'evt_dpdash_closed')).text).toBe('applied');
      expect((await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!.status).toBe('won');
    } finally {
      await gw.close();
    }
  });

  it('when Stripe cannot be reached at the deadline either, then the dispute stays open and the deadline asks again later', async () => {
    const gw = gateway('stripe', 'dispute-deadline-unreachable');
    try {
      const { dp, disputeId } = await evidenceAnswerLost(gw, 'evt_dpu_created');
      const before = (await gw.deps.store.getDispute(MERCHANT_ID, disputeId))!;
      (gw.deps.clock as ManualClock).advance(before.due_at - gw.deps.clock.now() + 1_000);
      stripe.server.fail('drop', (r) => r.path.startsWith('/v1/disputes/'), 2);
      await jobOf(gw, 'dispute-steps').runOnce();
      expect(await gw.deps.store.getDispute(MERCHANT_ID, disputeId)).toMatchObject({
        status: 'needs_response',
        sent: [{ act: 'evidence', n: 1, evidence: { uncategorized_text: 'proof' } }],
      });
      (gw.deps.clock as ManualClock).advance(61_000);
      await jobOf(gw, 'dispute-steps').runOnce();
      expect(await gw.deps.store.getDispute(MERCHANT_ID, disputeId)).toMatchObject({ status: 'under_review' });
      expect(stripe.disputes.get(dp.id)!.evidence_details.submission_count).toBe(1);
    } finally {
      stripe.server.clearFaults();
      await gw.close();
    }
  });

  it('when the merchant accepts a Stripe dispute through the gateway, then it is closed at Stripe too; and evidence Stripe refuses is refused, the dispute left as it was', async () => {
    const gw = gateway('stripe', 'dispute-accept');
    try {
      const paid = await captured(gw);
      const intent = stripe.intentFor(paid.transaction_id)!.id;
      const dp = stripe.openDispute(intent, 'fraudulent', 'needs_response');
      expect((await stripeDelivery(gw, 'charge.dispute.created', dp, 'evt_dpa_created')).text).toBe('applied');
      const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: `${paid.transaction_id}-D01` });
      expect(accepted.body).toMatchObject({ return_status: '1', dispute_status: 'lost' });
      expect(stripe.disputes.get(dp.id)).toMatchObject({ status: 'lost' });

      // a second payment's dispute that Stripe has closed already (its webhook not arrived yet)
      const other = await captured(gw);
      const closed = stripe.openDispute(stripe.intentFor(other.transaction_id)!.id, 'general', 'needs_response');
      expect((await stripeDelivery(gw, 'charge.dispute.created', closed, 'evt_dpa_created_2')).text).toBe('applied');
      stripe.disputes.get(closed.id)!.status = 'lost';
      const refused = await disputeCall(gw.app, 'disputeEvidence', {
        dispute_id: `${other.transaction_id}-D01`,
        uncategorized_text: 'too late',
        submit: '1',
      });
      expect(refused.body).toMatchObject({
        return_status: '0',
        return_message: expect.stringContaining('the acquirer refused it: stripe: This dispute is lost') as unknown,
        dispute_status: 'needs_response',
      });
      const [left] = await gw.deps.store.getDisputes(MERCHANT_ID, [`${other.transaction_id}-D01`]);
      expect(left).toMatchObject({ status: 'needs_response', evidence_submitted_at: null });
      // refused under its own reference, it is not kept to be sent again at the deadline
      expect(left!.sent).toBeUndefined();
    } finally {
      await gw.close();
    }
  });

  it('when two accounts share one acquirer account (one webhook secret or HMAC key), then each account’s address applies the events of its own payments, and the other’s records nothing of them', async () => {
    for (const code of ['stripe', 'adyen'] as const) {
      const gw = gateway(code, 'shared-secret');
      try {
        // a payment of the auto-capture account; both accounts' secrets verify the acquirer's events
        const paid = await pay(gw.app, { amount: '50.00', currency: 'EUR' }, true);
        expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.account_id).toBe(AUTO_ACCOUNT_ID);
        const deliver = async (account: string, id: string) => {
          if (code === 'stripe') {
            const dp =
              [...stripe.disputes.values()].find((d) => d.payment_intent === stripe.intentFor(paid.transaction_id)!.id) ??
              stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'fraudulent', 'needs_response');
            return (await stripeDelivery(gw, 'charge.dispute.created', dp, id, undefined, account)).text;
          }
          const item = adyen.notification('NOTIFICATION_OF_CHARGEBACK', paid.transaction_id, ADYEN_HMAC, true, 'Fraud');
          const res = await adyenDelivery(gw, item, account);
          return String(res.status);
        };
        // at the other account's address: acknowledged, nothing recorded (not even the event as seen for the owner)
        expect(await deliver(ACCOUNT_ID, 'evt_shared_1')).toBe(code === 'stripe' ? 'ignored' : '200');
        expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.disputes ?? []).toEqual([]);
        // at its own account's address: applied
        expect(await deliver(AUTO_ACCOUNT_ID, 'evt_shared_1')).toBe(code === 'stripe' ? 'applied' : '200');
        const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
        expect(p!.disputes, code).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'needs_response', amount: 5000 }]);
      } finally {
        await gw.close();
      }
    }
  });

  it("when Adyen's chargeback says when its defense period ends, then that is the dispute's due_date", async () => {
    const gw = gateway('adyen', 'dispute-defense-period');
    try {
      const paid = await captured(gw);
      const item = adyen.notification('NOTIFICATION_OF_CHARGEBACK', paid.transaction_id, ADYEN_HMAC, true, 'Fraud');
      // outside the signed fields, as Adyen's additionalData is
      (item.additionalData as Record<string, string>).defensePeriodEndsAt = '2026-12-10T10:15:30+01:00';
      expect((await adyenDelivery(gw, item)).status).toBe(200);
      const [d] = await gw.deps.store.getDisputes(MERCHANT_ID, [`${paid.transaction_id}-D01`]);
      expect(d).toMatchObject({ status: 'needs_response', reason: 'fraudulent', due_at: Date.UTC(2026, 11, 10, 9, 15, 30) });
    } finally {
      await gw.close();
    }
  });

  it('when Adyen notifies a chargeback and then its second chargeback, then the gateway opens its dispute and records it lost', async () => {
    const gw = gateway('adyen', 'dispute');
    try {
      const paid = await captured(gw);
      const chargeback = (eventCode: string) => adyen.notification(eventCode, paid.transaction_id, ADYEN_HMAC, true, 'Goods not received');
      expect((await adyenDelivery(gw, chargeback('NOTIFICATION_OF_CHARGEBACK'))).status).toBe(200);
      expect((await adyenDelivery(gw, chargeback('NOTIFICATION_OF_CHARGEBACK'))).status).toBe(200);
      let p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      expect(p!.disputes).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'needs_response', amount: 5000 }]);
      const [opened] = await gw.deps.store.getDisputes(MERCHANT_ID, [`${paid.transaction_id}-D01`]);
      expect(opened).toMatchObject({ reason: 'product_not_received', amount: 5000 });
      expect((await adyenDelivery(gw, chargeback('SECOND_CHARGEBACK'))).status).toBe(200);
      p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      expect(p!.disputes).toEqual([{ dispute_id: `${paid.transaction_id}-D01`, status: 'lost', amount: 5000 }]);
    } finally {
      await gw.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { connectorFor } from '../../../src/core/ports/connector.js';
import { referencesOf } from '../../../src/core/reconcile/reconcile-payment.js';
import { PASS_EVERY_MS } from '../../../src/core/reconcile/job.js';
import { DECISION_DELAY_MS } from '../../../src/core/disputes/rules.js';
import { REFUND_FAILS_AFTER_MS } from '../../../src/connectors/sandbox/sandbox-cards.js';
import { ACCOUNT_ID, AUTO_ACCOUNT_ID, MERCHANT_ID, makeGateway, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref, type Paid } from '../../support/operations.js';
import { CARDS } from '../../support/cards.js';
import { disputeCall } from '../../support/disputes.js';
import { jobOf } from '../../support/jobs.js';
import { reconcilePass } from '../../support/reconcile.js';

/**
 * The sandbox's books agree with the gateway after every ordinary flow: reconciliation finds nothing to catch
 * up and no discrepancy, on either account (manual and auto capture). A dispute decided at the sandbox when
 * the evidence arrived is left to the gateway's own decision step, a day later.
 */
async function books(gw: TestGateway, paid: Paid, accountId = ACCOUNT_ID) {
  const account = gw.deps.merchants.find(MERCHANT_ID, accountId)!;
  const p = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
  return connectorFor(gw.deps, account).books!(referencesOf(p));
}

describe('when every ordinary flow has run on the sandbox', () => {
  it('then its books agree with the gateway: no catch-up, no discrepancy, on manual and auto capture', async () => {
    const clock = new ManualClock();
    const gw = makeGateway({ name: 'reconcile-agrees', clock });
    try {
      const authorised = await pay(gw.app, { amount: '10.00' });
      const partly = await pay(gw.app, { amount: '30.00' });
      await postBatch(gw.app, 'capture', [ref(partly, { amount: '25.00' })]);
      await postBatch(gw.app, 'refund', [ref(partly, { refund_amount: '5.00' })]);
      await postBatch(gw.app, 'refund', [ref(partly, { refund_amount: '5.13' })]); // refused by the sandbox: nothing refunded
      const cancelled = await pay(gw.app, { amount: '12.00' });
      await postBatch(gw.app, 'cancel', [ref(cancelled)]);
      const rejected = await pay(gw.app, { shopper_email: 'r+review@example.com' });
      await postBatch(gw.app, 'review', [ref(rejected, { review_flag: '0' })]);
      const approved = await pay(gw.app, { shopper_email: 'a+review@example.com' });
      await postBatch(gw.app, 'review', [ref(approved, { review_flag: '1' })]);
      await pay(gw.app, { card: CARDS.declined });
      await pay(gw.app, { card: CARDS.processingError });
      const challenged = await pay(gw.app, { card: CARDS.challenge, open3d: 'do3DS' });
      const auto = await pay(gw.app, { amount: '40.00' }, true);
      await postBatch(gw.app, 'refund', [ref(auto, { refund_amount: '40.00' })], true);
      const disputed = await pay(gw.app, { card: CARDS.disputeFraud, amount: '60.00' });
      await postBatch(gw.app, 'capture', [ref(disputed, { amount: '60.00' })]);
      const dispute = `${disputed.transaction_id}-D01`;
      expect(await gw.deps.store.getDispute(MERCHANT_ID, dispute)).toMatchObject({ status: 'needs_response' });
      await disputeCall(gw.app, 'disputeEvidence', { dispute_id: dispute, uncategorized_text: 'winning_evidence', submit: '1' });

      // what the books say of three of them
      expect((await books(gw, auto, AUTO_ACCOUNT_ID)).capture).toEqual({ status: 'succeeded', amount: 4000, final: true });
      expect((await books(gw, cancelled)).authorisations).toEqual([expect.objectContaining({ status: 'approved', voided: true })]);
      expect((await books(gw, challenged)).authorisations).toEqual([expect.objectContaining({ status: 'pending', final: true })]);
      expect((await books(gw, disputed)).disputes).toEqual([expect.objectContaining({ status: 'won', final: true })]);

      // one run of the job steps every account's pass
      expect(await reconcilePass(gw)).toMatchObject({ caught_up: 0, discrepancies: 0 });
      const [, autoPass] = await gw.deps.store.getReconcilePasses(MERCHANT_ID, [ACCOUNT_ID, AUTO_ACCOUNT_ID]);
      expect(autoPass).toMatchObject({ phase: 'done', compared: 1, caught_up: 0, discrepancies: 0 });
      // the sandbox decided the dispute as the evidence came: the gateway records it a day later, by its own step
      expect(await gw.deps.store.getDispute(MERCHANT_ID, dispute)).toMatchObject({ status: 'under_review' });
      clock.advance(Math.max(DECISION_DELAY_MS, PASS_EVERY_MS) + 1_000);
      await jobOf(gw, 'dispute-steps').runOnce();
      expect(await gw.deps.store.getDispute(MERCHANT_ID, dispute)).toMatchObject({ status: 'won' });
      expect(await reconcilePass(gw)).toMatchObject({ caught_up: 0, discrepancies: 0 });
      for (const p of [authorised, partly, cancelled, rejected, approved, auto, disputed])
        expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, p.transaction_id)).toEqual([]);
    } finally {
      await gw.close();
    }
  });
});

describe('when a sandbox refund of the failing-refund card fails at the bank ten minutes after it was accepted', () => {
  it('then a pass before that sees it in flight and does nothing; the first pass after records it failed and notifies the merchant, once', async () => {
    const clock = new ManualClock();
    const gw = makeGateway({ name: 'reconcile-refund-fails', clock });
    try {
      const paid = await pay(gw.app, { card: CARDS.refundFailsLater, amount: '30.00', notify_url: 'https://merchant.example/notify' });
      await postBatch(gw.app, 'capture', [ref(paid, { amount: '30.00' })]);
      const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '10.00' })]);
      expect(refund.body.refund_orders[0].refund_status).toBe('1');
      expect((await books(gw, paid)).refunds).toEqual([expect.objectContaining({ status: 'pending', final: false })]);
      expect(await reconcilePass(gw)).toMatchObject({ caught_up: 0, discrepancies: 0 });

      clock.advance(Math.max(REFUND_FAILS_AFTER_MS, PASS_EVERY_MS) + 1_000);
      expect(await reconcilePass(gw)).toMatchObject({ caught_up: 1, discrepancies: 0 });
      const p = await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id);
      expect(p).toMatchObject({ status: '3100', refunded: 0 });
      expect(p!.refunds[0]).toMatchObject({ refund_status: '0' });
      clock.advance(PASS_EVERY_MS + 1_000);
      expect(await reconcilePass(gw)).toMatchObject({ caught_up: 0, discrepancies: 0 });
      const notices = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, paid.order_no, 50);
      expect(
        notices
          .filter((n) => n.notify_type === 'refund')
          .map((n) => n.fields.refund_status)
          .sort(),
      ).toEqual(['0', '1']);
    } finally {
      await gw.close();
    }
  });
});

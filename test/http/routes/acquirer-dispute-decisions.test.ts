import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import adyenLibrary from '@adyen/api-library';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID, makeGateway, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, postQuery, ref, type Paid } from '../../support/operations.js';
import { StripeStub } from '../../support/acquirers/stripe-stub.js';
import { AdyenStub } from '../../support/acquirers/adyen-stub.js';
import { ADYEN_ENV, ADYEN_HMAC, STRIPE_ENV, acquirerMerchants } from '../../support/acquirers/accounts.js';
import { adyenDelivery, stripeDelivery } from '../../support/acquirers/deliveries.js';
import { disputeCall } from '../../support/disputes.js';
import { jobOf } from '../../support/jobs.js';

/**
 * The acquirer decides disputes (docs/disputes.md): the due date ends evidence, not the dispute, and a
 * decision is not final against the acquirer. Each reversal and each charge back again moves the balance once
 * and is notified; every dispute event is applied once, in any order.
 */
const stripe = new StripeStub();
const adyen = new AdyenStub();
const NOTIFY = { notify_url: 'https://merchant.example/notify' };
/** the disputed amount (50.00 EUR) and the dispute fee, in hundredths */
const AMOUNT = 5000;
const FEE = 1500;
beforeAll(async () => {
  await Promise.all([stripe.start(), adyen.start()]);
});
afterAll(async () => {
  await Promise.all([stripe.stop(), adyen.stop()]);
});

function gateway(code: 'stripe' | 'adyen', name: string): TestGateway {
  return makeGateway({
    name: `decisions-${code}-${name}`,
    clock: new ManualClock(),
    merchants: acquirerMerchants(code, code === 'stripe' ? stripe.baseUrl : adyen.baseUrl),
    env: code === 'stripe' ? STRIPE_ENV : ADYEN_ENV,
  });
}

async function captured(gw: TestGateway): Promise<Paid> {
  const paid = await pay(gw.app, { amount: '50.00', currency: 'EUR', ...NOTIFY });
  expect((await postBatch(gw.app, 'capture', [ref(paid, { amount: '50.00' })])).status).toBe(200);
  return paid;
}

/** The account's EUR deposit balance (it opens at 0: a dispute takes it below). */
async function balance(gw: TestGateway): Promise<number> {
  return (await gw.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'EUR'))?.available ?? 0;
}

const LIFECYCLE = ['inquiry', 'needs_response', 'under_review', 'won', 'lost'];

/**
 * The dispute notifications of the payment, oldest first (one per status change): by time, and those of one
 * commit (the same time) in the lifecycle's order, the only order one commit moves through.
 */
async function notified(gw: TestGateway, paid: Paid): Promise<string[]> {
  const all = await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, paid.order_no, 50);
  const rank = (s: string | undefined) => LIFECYCLE.indexOf(s ?? '');
  return all
    .filter((n) => n.notify_type === 'dispute')
    .sort((a, b) => a.created_at - b.created_at || rank(a.fields.dispute_status) - rank(b.fields.dispute_status))
    .map((n) => n.fields.dispute_status!);
}

async function queried(gw: TestGateway, paid: Paid): Promise<string> {
  return (await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: paid.transaction_id })).body.orders_list[0].dispute_status;
}

/** An Adyen dispute notification about the payment, sent (twice when `twice`: Adyen sends until acknowledged). */
async function adyenSays(gw: TestGateway, paid: Paid, eventCode: string, twice = false): Promise<void> {
  (gw.deps.clock as ManualClock).advance(1_000);
  const item = adyen.notification(eventCode, paid.transaction_id, ADYEN_HMAC, true, 'Goods not received');
  for (let i = 0; i < (twice ? 2 : 1); i++) {
    const res = await adyenDelivery(gw, item);
    expect([res.status, res.text], eventCode).toEqual([200, '[accepted]']);
  }
}

const disputeOf = async (gw: TestGateway, paid: Paid) => (await gw.deps.store.getDispute(MERCHANT_ID, `${paid.transaction_id}-D01`))!;

describe('Adyen reverses its decision, and charges back again', () => {
  it('when Adyen reverses a chargeback and then sends its second chargeback, then the dispute is won then lost, the amount credited then debited again, each move notified once', async () => {
    const gw = gateway('adyen', 'second-chargeback');
    const clock = gw.deps.clock as ManualClock;
    try {
      const paid = await captured(gw);
      await adyenSays(gw, paid, 'NOTIFICATION_OF_CHARGEBACK');
      await adyenSays(gw, paid, 'CHARGEBACK');
      expect(await balance(gw)).toBe(-AMOUNT - FEE);
      clock.advance(86_400_000);
      await adyenSays(gw, paid, 'CHARGEBACK_REVERSED', true);
      expect(await disputeOf(gw, paid)).toMatchObject({ status: 'won', closed_at: clock.now() });
      expect(await balance(gw)).toBe(-FEE);
      clock.advance(86_400_000);
      await adyenSays(gw, paid, 'SECOND_CHARGEBACK', true);
      const lost = await disputeOf(gw, paid);
      expect(lost).toMatchObject({ status: 'lost', closed_at: clock.now() });
      expect(lost.history.map((h) => [h.to, h.cause])).toEqual([
        ['needs_response', 'opened'],
        ['under_review', 'decided'],
        ['won', 'decided'],
        ['lost', 'decided'],
      ]);
      // the money Adyen took again, once however often it was sent, and the fee never twice
      expect(await balance(gw)).toBe(-AMOUNT - FEE);
      expect(await notified(gw, paid)).toEqual(['needs_response', 'under_review', 'won', 'lost']);
      expect(await queried(gw, paid)).toBe('lost');
      expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.disputes).toEqual([
        { dispute_id: lost.dispute_id, status: 'lost', amount: AMOUNT },
      ]);
    } finally {
      await gw.close();
    }
  });

  it('when the second chargeback arrives before the reversal it follows, then the dispute is lost once and the late reversal changes nothing', async () => {
    const gw = gateway('adyen', 'out-of-order');
    try {
      const paid = await captured(gw);
      await adyenSays(gw, paid, 'NOTIFICATION_OF_CHARGEBACK');
      await adyenSays(gw, paid, 'SECOND_CHARGEBACK');
      await adyenSays(gw, paid, 'CHARGEBACK_REVERSED');
      // and the chargeback itself, delivered last
      await adyenSays(gw, paid, 'CHARGEBACK');
      expect(await disputeOf(gw, paid)).toMatchObject({ status: 'lost', acquirer_order: 50 });
      expect(await balance(gw)).toBe(-AMOUNT - FEE);
      expect(await notified(gw, paid)).toEqual(['needs_response', 'lost']);
    } finally {
      await gw.close();
    }
  });

  it('when the same second chargeback is delivered twice at once, then it is applied once: one debit, one notification', async () => {
    const gw = gateway('adyen', 'concurrent');
    try {
      const paid = await captured(gw);
      await adyenSays(gw, paid, 'NOTIFICATION_OF_CHARGEBACK');
      await adyenSays(gw, paid, 'CHARGEBACK_REVERSED');
      const item = adyen.notification('SECOND_CHARGEBACK', paid.transaction_id, ADYEN_HMAC, true, 'Goods not received');
      const answers = await Promise.all([adyenDelivery(gw, item), adyenDelivery(gw, item)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect((await disputeOf(gw, paid)).status).toBe('lost');
      expect(await balance(gw)).toBe(-AMOUNT - FEE);
      expect((await notified(gw, paid)).filter((s) => s === 'lost')).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });

  it('when pre-arbitration is won after a second chargeback, or lost after a reversal, then each moves the dispute and the balance once more', async () => {
    const gw = gateway('adyen', 'prearbitration');
    try {
      const won = await captured(gw);
      await adyenSays(gw, won, 'CHARGEBACK');
      await adyenSays(gw, won, 'CHARGEBACK_REVERSED');
      await adyenSays(gw, won, 'SECOND_CHARGEBACK');
      await adyenSays(gw, won, 'PREARBITRATION_WON');
      expect((await disputeOf(gw, won)).status).toBe('won');
      expect(await balance(gw)).toBe(-FEE);

      const lost = await captured(gw);
      await adyenSays(gw, lost, 'CHARGEBACK');
      await adyenSays(gw, lost, 'CHARGEBACK_REVERSED');
      await adyenSays(gw, lost, 'PREARBITRATION_LOST');
      expect((await disputeOf(gw, lost)).status).toBe('lost');
      expect(await balance(gw)).toBe(-FEE - AMOUNT - FEE);
      expect(await notified(gw, lost)).toEqual(['needs_response', 'under_review', 'won', 'lost']);
    } finally {
      await gw.close();
    }
  });

  it("when Adyen's other dispute notifications arrive, then each does what it means: comments and fraud reports move nothing, an undefended period's end loses, a lapsed inquiry is won, a defence goes under review", async () => {
    const gw = gateway('adyen', 'other-events');
    try {
      const fraud = await captured(gw);
      await adyenSays(gw, fraud, 'NOTIFICATION_OF_FRAUD');
      expect((await gw.deps.store.getPayment(MERCHANT_ID, fraud.transaction_id))!.disputes).toBeUndefined();

      const undefended = await captured(gw);
      await adyenSays(gw, undefended, 'CHARGEBACK');
      await adyenSays(gw, undefended, 'ISSUER_COMMENTS');
      expect((await disputeOf(gw, undefended)).status).toBe('needs_response');
      await adyenSays(gw, undefended, 'DISPUTE_DEFENSE_PERIOD_ENDED');
      expect((await disputeOf(gw, undefended)).status).toBe('lost');
      // the issuer's "no answer in time" after a chargeback moves nothing: the reversal gives the money back
      await adyenSays(gw, undefended, 'ISSUER_RESPONSE_TIMEFRAME_EXPIRED');
      expect((await disputeOf(gw, undefended)).status).toBe('lost');

      const inquiry = await captured(gw);
      await adyenSays(gw, inquiry, 'REQUEST_FOR_INFORMATION');
      await adyenSays(gw, inquiry, 'INFORMATION_SUPPLIED');
      expect((await disputeOf(gw, inquiry)).status).toBe('under_review');
      await adyenSays(gw, inquiry, 'ISSUER_RESPONSE_TIMEFRAME_EXPIRED');
      expect((await disputeOf(gw, inquiry)).status).toBe('won');
    } finally {
      await gw.close();
    }
  });
});

describe('refunds and a dispute lost, reversed and lost again', () => {
  const refundOf = async (gw: TestGateway, paid: Paid, amount: string) =>
    (await postBatch(gw.app, 'refund', [ref(paid, { amount: '50.00', refund_amount: amount, refund_reason: `r ${amount}` })])).body
      .refund_orders[0] as Record<string, string>;

  it('when a partly disputed payment is lost, reversed and charged back again, then the amount left to refund follows: refused, allowed, refused', async () => {
    const gw = gateway('adyen', 'refunds');
    try {
      const paid = await captured(gw);
      // the chargeback takes 30.00 of the 50.00 captured
      const item = (code: string) => {
        const it = adyen.notification(code, paid.transaction_id, ADYEN_HMAC, true, 'Goods not received');
        it.amount = { value: 3000, currency: 'EUR' };
        it.additionalData = { hmacSignature: new adyenLibrary.hmacValidator().calculateHmac(it, ADYEN_HMAC) };
        return it;
      };
      const send = async (code: string) => {
        (gw.deps.clock as ManualClock).advance(1_000);
        const res = await adyenDelivery(gw, item(code));
        expect(res.status, code).toBe(200);
      };
      await send('CHARGEBACK');
      expect(await refundOf(gw, paid, '1.00')).toMatchObject({ refund_message: expect.stringMatching(/^V2011:/) as unknown });
      await send('DISPUTE_DEFENSE_PERIOD_ENDED');
      // lost: 20.00 left to refund
      expect(await refundOf(gw, paid, '20.01')).toMatchObject({
        refund_status: '0',
        refund_message: `V3006:Refund amount exceeds what is left after a lost dispute: ${paid.transaction_id}-D01`,
      });
      expect(await refundOf(gw, paid, '15.00')).toMatchObject({ refund_status: '1' });
      expect(await refundOf(gw, paid, '5.01')).toMatchObject({ refund_message: expect.stringMatching(/^V3006:/) as unknown });
      // reversed: the 30.00 is the merchant's again, and may be refunded
      await send('CHARGEBACK_REVERSED');
      expect(await refundOf(gw, paid, '30.00')).toMatchObject({ refund_status: '1' });
      // charged back again: nothing is left to refund (the refunds made stand), and beyond the captured amount
      // less the refunds it is the usual refusal
      await send('SECOND_CHARGEBACK');
      expect(await refundOf(gw, paid, '5.00')).toMatchObject({ refund_message: expect.stringMatching(/^V3006:/) as unknown });
      expect(await refundOf(gw, paid, '5.01')).toMatchObject({ refund_message: expect.stringMatching(/^V3002:/) as unknown });
      expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ refunded: 4500, captured: 5000 });
      expect(adyen.modifications.filter((m) => m.kind === 'refund').map((m) => m.amount?.value)).toEqual([1500, 3000]);
    } finally {
      await gw.close();
    }
  });
});

describe('Stripe decides after the due date, and reverses its decisions', () => {
  /** A Stripe dispute on a captured payment due in 7 days, its charge.dispute.created applied (at `t` seconds). */
  async function opened(gw: TestGateway, t: number) {
    const paid = await captured(gw);
    const dueBy = Math.floor(gw.deps.clock.now() / 1000) + 7 * 86_400;
    const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'fraudulent', 'needs_response', dueBy);
    expect((await stripeDelivery(gw, 'charge.dispute.created', dp, `evt_${dp.id}_created`, t)).text).toBe('applied');
    return { paid, dp };
  }

  it("when the merchant answers in Stripe's Dashboard and Stripe decides won after the due date, then the gateway's dispute is won with the amount credited back, not lost at the deadline", async () => {
    const gw = gateway('stripe', 'late-won');
    const clock = gw.deps.clock as ManualClock;
    try {
      const { paid, dp } = await opened(gw, 100);
      expect(await balance(gw)).toBe(-AMOUNT - FEE);
      clock.advance(7 * 86_400_000 + 1_000);
      await jobOf(gw, 'dispute-steps').runOnce();
      expect((await disputeOf(gw, paid)).status).toBe('needs_response');
      const reviewed = { ...dp, status: 'under_review' };
      expect((await stripeDelivery(gw, 'charge.dispute.updated', reviewed, `evt_${dp.id}_review`, 200)).text).toBe('applied');
      expect((await disputeOf(gw, paid)).status).toBe('under_review');
      clock.advance(86_400_000);
      expect((await stripeDelivery(gw, 'charge.dispute.closed', { ...dp, status: 'won' }, `evt_${dp.id}_won`, 300)).text).toBe('applied');
      expect(await disputeOf(gw, paid)).toMatchObject({ status: 'won', closed_at: clock.now() });
      expect(await balance(gw)).toBe(-FEE);
      expect(await notified(gw, paid)).toEqual(['needs_response', 'under_review', 'won']);
      expect(await queried(gw, paid)).toBe('won');
    } finally {
      await gw.close();
    }
  });

  it('when Stripe reinstates the funds of a lost dispute and then withdraws them again, then it is won then lost, the balance moved once each way; each event sent again changes nothing', async () => {
    const gw = gateway('stripe', 'funds');
    try {
      const { paid, dp } = await opened(gw, 100);
      const events: [string, string, number][] = [
        ['charge.dispute.closed', 'lost', 200],
        ['charge.dispute.funds_reinstated', 'won', 300],
        ['charge.dispute.funds_withdrawn', 'won', 400],
      ];
      const after: [string, number][] = [];
      for (const [type, status, t] of events) {
        (gw.deps.clock as ManualClock).advance(1_000);
        for (const expected of ['applied', 'duplicate']) {
          const res = await stripeDelivery(gw, type, { ...dp, status }, `evt_${dp.id}_${t}`, t);
          expect([res.status, res.text]).toEqual([200, expected]);
        }
        after.push([(await disputeOf(gw, paid)).status, await balance(gw)]);
      }
      expect(after).toEqual([
        ['lost', -AMOUNT - FEE],
        ['won', -FEE],
        ['lost', -AMOUNT - FEE],
      ]);
      expect(await notified(gw, paid)).toEqual(['needs_response', 'lost', 'won', 'lost']);
    } finally {
      await gw.close();
    }
  });

  it("when Stripe's events arrive out of order (an update after the closure, a withdrawal before the reinstatement it follows), then the latest by Stripe's time stands", async () => {
    const gw = gateway('stripe', 'out-of-order');
    try {
      const { paid, dp } = await opened(gw, 100);
      expect((await stripeDelivery(gw, 'charge.dispute.closed', { ...dp, status: 'won' }, 'evt_o_won', 300)).text).toBe('applied');
      // the update that came before the closure, delivered after it
      expect((await stripeDelivery(gw, 'charge.dispute.updated', { ...dp, status: 'under_review' }, 'evt_o_review', 200)).text).toBe(
        'applied',
      );
      expect((await disputeOf(gw, paid)).status).toBe('won');

      const other = await opened(gw, 100);
      const dp2 = other.dp;
      for (const [type, status, t] of [
        ['charge.dispute.funds_withdrawn', 'won', 400],
        ['charge.dispute.closed', 'lost', 200],
        ['charge.dispute.funds_reinstated', 'won', 300],
      ] as const)
        expect((await stripeDelivery(gw, type, { ...dp2, status }, `evt_o2_${t}`, t)).text).toBe('applied');
      expect(await disputeOf(gw, other.paid)).toMatchObject({ status: 'lost', acquirer_order: 4005 });
      expect(await notified(gw, other.paid)).toEqual(['needs_response', 'lost']);
      // both disputes: one's amount credited back, the other's held; two fees
      expect(await balance(gw)).toBe(-FEE - AMOUNT - FEE);
    } finally {
      await gw.close();
    }
  });

  it('when Stripe reports a dispute prevented or an appeal of a lost one, then prevented is won and an appeal stays lost', async () => {
    const gw = gateway('stripe', 'prevented');
    try {
      const prevented = await opened(gw, 100);
      expect((await stripeDelivery(gw, 'charge.dispute.closed', { ...prevented.dp, status: 'prevented' }, 'evt_p', 200)).text).toBe(
        'applied',
      );
      expect((await disputeOf(gw, prevented.paid)).status).toBe('won');
      const appealed = await opened(gw, 100);
      expect((await stripeDelivery(gw, 'charge.dispute.closed', { ...appealed.dp, status: 'lost' }, 'evt_a1', 200)).text).toBe('applied');
      const appeal = { ...appealed.dp, status: 'appeal_under_review' };
      expect((await stripeDelivery(gw, 'charge.dispute.updated', appeal, 'evt_a2', 300)).text).toBe('applied');
      expect((await disputeOf(gw, appealed.paid)).status).toBe('lost');
    } finally {
      await gw.close();
    }
  });

  it('when the merchant accepts an inquiry and Stripe reports it closed (warning_closed, as it reports a lapsed one), then it stays lost: a closure never reverses a decision', async () => {
    const gw = gateway('stripe', 'inquiry-accepted');
    try {
      const paid = await captured(gw);
      const dp = stripe.openDispute(stripe.intentFor(paid.transaction_id)!.id, 'general', 'warning_needs_response');
      expect((await stripeDelivery(gw, 'charge.dispute.created', dp, 'evt_ia_created', 100)).text).toBe('applied');
      const accepted = await disputeCall(gw.app, 'disputeAccept', { dispute_id: `${paid.transaction_id}-D01` });
      expect(accepted.body).toMatchObject({ return_status: '1', dispute_status: 'lost' });
      expect(stripe.disputes.get(dp.id)!.status).toBe('warning_closed');
      expect((await stripeDelivery(gw, 'charge.dispute.closed', stripe.disputes.get(dp.id), 'evt_ia_closed', 200)).text).toBe('applied');
      expect((await disputeOf(gw, paid)).status).toBe('lost');
      expect(await balance(gw)).toBe(-AMOUNT - FEE);
    } finally {
      await gw.close();
    }
  });

  it('when evidence is sent after the due date through the gateway, then it is refused saying so, and the dispute stays open for Stripe to decide', async () => {
    const gw = gateway('stripe', 'evidence-closed');
    const clock = gw.deps.clock as ManualClock;
    try {
      const { paid } = await opened(gw, 100);
      clock.advance(7 * 86_400_000 + 1_000);
      await jobOf(gw, 'dispute-steps').runOnce();
      const late = await disputeCall(gw.app, 'disputeEvidence', {
        dispute_id: `${paid.transaction_id}-D01`,
        uncategorized_text: 'late',
        submit: '1',
      });
      expect(late.body).toMatchObject({ return_status: '0', dispute_status: 'needs_response' });
      expect(String(late.body.return_message)).toContain('due_date for evidence has passed');
      expect(await notified(gw, paid)).toEqual(['needs_response']);
    } finally {
      await gw.close();
    }
  });
});

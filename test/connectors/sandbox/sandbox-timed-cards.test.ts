import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID, authoriseBody, makeGateway, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref } from '../../support/operations.js';
import { jobOf } from '../../support/jobs.js';
import { clockCall, compact, newClock, runClockJobs } from '../../support/clocks.js';
import { CARDS } from '../../support/cards.js';

/**
 * The sandbox's timed test cards, as a merchant tests an integration against an acquirer that is not instant
 * (docs/api.md): an authorisation processing for minutes, and answers lost while the sandbox acts later.
 */
const NOTIFY = { notify_url: 'http://127.0.0.1:9/notify' };

function gateway(name: string): { gw: TestGateway; clock: ManualClock } {
  const clock = new ManualClock();
  return { gw: makeGateway({ name: `sandbox-timed-${name}`, clock }), clock };
}

const stored = (gw: TestGateway, transactionId: string) => gw.deps.store.getPayment(MERCHANT_ID, transactionId);
const notified = async (gw: TestGateway, orderNo: string, type: string) =>
  (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, orderNo, 50)).filter((n) => n.notify_type === type);

/** Minutes pass with the recovery job running each minute, as in a running gateway. */
async function minutesPass(gw: TestGateway, clock: ManualClock, minutes: number): Promise<void> {
  for (let i = 0; i < minutes; i++) {
    clock.advance(60_000);
    await jobOf(gw, 'pending-resolve').runOnce();
  }
}

const authorise = (gw: TestGateway, body: Record<string, unknown>) =>
  request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));

describe('the sandbox’s processing test cards', () => {
  it.each([
    [CARDS.processingApproved, '3000', '1'],
    [CARDS.processingDeclined, '4000', '0'],
  ])(
    'when %s is authorised, then the payment is pending (2003) with no notification, and three minutes later it is %s, notified once',
    async (card, status, orderStatus) => {
      const { gw, clock } = gateway(`processing-${card}`);
      try {
        const body = authoriseBody({ card, ...NOTIFY });
        const res = await authorise(gw, body);
        expect(res.status).toBe(200);
        expect(res.text).toMatch(/<order_status>2<\/order_status>/);
        expect(res.text).toMatch(/<result_info>2003:Processing<\/result_info>/);
        const transactionId = /<transaction_id>([^<]+)</.exec(res.text)![1]!;
        await minutesPass(gw, clock, 2);
        expect((await stored(gw, transactionId))?.status).toBe('1000');
        expect(await notified(gw, String(body.order_no), 'payment')).toHaveLength(0);
        // the merchant asking again meanwhile gets the pending payment at once
        expect((await authorise(gw, body)).text).toMatch(/<order_status>2<\/order_status>/);
        await minutesPass(gw, clock, 3);
        const p = await stored(gw, transactionId);
        expect([p?.status, p?.claim]).toEqual([status, undefined]);
        expect((await notified(gw, String(body.order_no), 'payment')).map((n) => n.fields.order_status)).toEqual([orderStatus]);
      } finally {
        await gw.close();
      }
    },
  );

  it('when the processing card pays on a test clock, then the clock’s advance decides it, in the clock’s time', async () => {
    const { gw, clock } = gateway('processing-clock');
    try {
      const start = Date.UTC(2027, 0, 10, 9, 0, 0);
      const id = await newClock(gw.app, start);
      const res = await authorise(gw, authoriseBody({ card: CARDS.processingApproved, test_clock_id: id, ...NOTIFY }));
      expect(res.text).toMatch(/<order_status>2<\/order_status>/);
      const transactionId = /<transaction_id>([^<]+)</.exec(res.text)![1]!;
      // the live clock moving decides nothing for the test clock's payment
      await minutesPass(gw, clock, 10);
      expect((await stored(gw, transactionId))?.status).toBe('1000');
      const advanced = await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(start + 10 * 60_000) });
      expect(advanced.status, advanced.text).toBe(200);
      await runClockJobs([gw], id);
      expect((await stored(gw, transactionId))?.status).toBe('3000');
    } finally {
      await gw.close();
    }
  });
});

describe('the sandbox’s lost-answer test card', () => {
  it('when each call’s answer is lost and the sandbox acts 5 seconds later, then every operation is recorded once by recovery, and nothing moves twice', async () => {
    const { gw, clock } = gateway('lost-answer');
    try {
      const body = authoriseBody({ card: CARDS.lostAnswer, amount: '50.00', ...NOTIFY });
      const first = await authorise(gw, body);
      expect(first.status).toBe(503);
      expect(first.text).toMatch(/OUTCOME_UNKNOWN/);
      await minutesPass(gw, clock, 2);
      const again = await authorise(gw, body);
      expect(again.text).toMatch(/<order_status>1<\/order_status>/);
      const paid = {
        transaction_id: /<transaction_id>([^<]+)</.exec(again.text)![1]!,
        order_no: String(body.order_no),
        currency: 'USD',
        amount: '50.00',
        order_status: '1',
      };

      const capture = await postBatch(gw.app, 'capture', [ref(paid)]);
      expect(capture.body.capture_orders[0].error_message).toMatch(/^V5002:/);
      await minutesPass(gw, clock, 2);
      expect((await stored(gw, paid.transaction_id))?.status).toBe('3100');

      const order = ref(paid, { refund_amount: '20.00', refund_reason: 'returned' });
      expect((await postBatch(gw.app, 'refund', [order])).body.refund_orders[0].refund_message).toMatch(/^V5002:/);
      // sent again by the merchant before recovery: it waits for the first, then names it
      await minutesPass(gw, clock, 2);
      const retried = await postBatch(gw.app, 'refund', [order]);
      expect(retried.body.refund_orders[0].refund_message).toBe(`V3005:Identical to a recent refund: ${paid.transaction_id}-01`);
      const p = await stored(gw, paid.transaction_id);
      expect([p?.captured, p?.refunded, p?.refunds.length, p?.claim]).toEqual([5000, 2000, 1, undefined]);
      const types = (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, paid.order_no, 50)).map((n) => n.notify_type).sort();
      expect(types).toEqual(['capture', 'payment', 'refund']);
    } finally {
      await gw.close();
    }
  });

  it('when an ordinary card pays beside it, then nothing of the test card’s delay touches it', async () => {
    const { gw } = gateway('lost-answer-other');
    try {
      const paid = await pay(gw.app, { ...NOTIFY });
      expect(paid.order_status).toBe('1');
      expect((await postBatch(gw.app, 'capture', [ref(paid)])).body.capture_orders[0].capture_status).toBe('1');
    } finally {
      await gw.close();
    }
  });
});

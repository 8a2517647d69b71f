import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { authoriseBody, MERCHANT_ID, ACCOUNT_ID } from '../support/gateway.js';
import { authorise, dailyPlan, jobOf } from '../support/jobs.js';
import { instrumented } from '../support/faults.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { checkoutBody } from '../support/checkout.js';
import { CARDS, TEST_SECURITY_CODE } from '../support/cards.js';
import { settleAuthorisation } from '../../src/core/payments/settle.js';

/**
 * Issue 36, findings 1 and 2: an acquirer that acted but whose answer was lost, while its status cannot be
 * read either, leaves the outcome unknown. It is never reported as "not done" or "declined": the claim stays,
 * the call answers pending, and recovery settles it from the acquirer's record once it can be read.
 */
const world = redisWorld('faults-unknown-outcome');
const HOUR = 3_600_000;
const NOTIFY = { notify_url: 'https://merchant.example/notify' };

type Op = 'authorise' | 'capture' | 'refund';

/** A gateway on this file's Redis whose acquirer, on demand, acts but loses its answer while its status is down. */
function lostAnswers(name: string) {
  const clock = new ManualClock();
  let down = false;
  const connector = instrumented({ throwAfterActing: new Set(), statusDown: () => down });
  const gw = world.gateway(name, clock, { wrapConnector: connector.wrap });
  return {
    clock,
    gw,
    connector,
    /** `op` acts at the acquirer, then its answer is lost, and the acquirer's status cannot be read */
    lose(op: Op): void {
      down = true;
      connector.faults.throwAfterActing!.add(op);
    },
    heal(): void {
      down = false;
      connector.faults.throwAfterActing!.clear();
    },
    /** the claims go stale and the recovery job runs once */
    async recover(extraMs = 0): Promise<void> {
      clock.advance(gw.deps.pendingResolveMs + 1_000 + extraMs);
      await jobOf(gw, 'pending-resolve').runOnce();
    },
  };
}

/** A gateway whose acquirer is never reached by authorisations (their process died just before asking). */
function deadBeforeAsking(name: string) {
  const clock = new ManualClock();
  const connector = instrumented({ hangBeforeActing: new Set(['authorise']) });
  const gw = world.gateway(name, clock, { wrapConnector: connector.wrap });
  const find = (body: Record<string, unknown>) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
  return {
    clock,
    gw,
    connector,
    find,
    /** sends each order, which never returns, and waits until each has its pending payment and claim */
    async sendAndLose(...bodies: Record<string, unknown>[]): Promise<void> {
      for (const body of bodies)
        void request(gw.app)
          .post('/v1/authorise')
          .set('Content-Type', 'application/x-www-form-urlencoded')
          .send(JSON.stringify(body))
          .then(
            () => undefined,
            () => undefined,
          );
      for (let i = 0; i < 100; i++) {
        if ((await Promise.all(bodies.map(find))).every(Boolean)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      connector.faults.hangBeforeActing!.delete('authorise');
    },
  };
}

describe('unknown is never "no"', () => {
  it('when a refund acted at the acquirer but its answer and status are lost, then it is pending (V5002), recovered as done, and the next refund takes a new reference', async () => {
    const { gw, connector, lose, heal, recover } = lostAnswers('unknown-refund');
    const p = await pay(gw.app, NOTIFY);
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
    connector.calls.amounts.length = 0;
    lose('refund');
    const first = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '6.00', refund_reason: 'damaged' })]);
    expect(first.body.refund_orders[0]).toMatchObject({
      refund_status: '0',
      refund_message: 'V5002:Sent to the acquirer; the outcome is being recorded and will be notified',
    });
    heal();
    await recover();
    const after = await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    expect(after).toMatchObject({ status: '3200', refunded: 600 });
    expect(after!.claim).toBeUndefined();
    expect(after!.refunds.map((r) => r.refund_reference_id)).toEqual([`${p.transaction_id}-01`]);
    const second = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '4.00', refund_reason: 'returned' })]);
    expect(second.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-02` });
    // the acquirer refunded 6.00 and 4.00, once each: what the gateway shows
    expect(connector.calls.amounts.filter((a) => a.op === 'refund').map((a) => a.amount)).toEqual([600, 400]);
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3300', refunded: 1000 });
  });

  it('when a capture acted at the acquirer but its answer and status are lost, then it is not reported as not done and is recovered as captured', async () => {
    const { gw, connector, lose, heal, recover } = lostAnswers('unknown-capture');
    const p = await pay(gw.app, NOTIFY);
    lose('capture');
    const answer = await postBatch(gw.app, 'capture', [ref(p)]);
    expect(answer.body.capture_orders[0].error_message).toMatch(/^V5002:/);
    heal();
    await recover();
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3100', captured: 1000 });
    expect(connector.calls.capture).toBe(1);
  });

  it('when an authorisation acted at the acquirer but its answer and status are lost, then the merchant hears "try again" (503), never "declined", and recovery records the approval', async () => {
    const { gw, connector, lose, heal, recover } = lostAnswers('unknown-authorise');
    lose('authorise');
    const body = authoriseBody(NOTIFY);
    const res = await request(gw.app)
      .post('/v1/authorise')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify(body));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.text).not.toMatch(/<order_status>0<\/order_status>[\s\S]*5001/);
    heal();
    await recover();
    const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    expect(p).toMatchObject({ status: '3000' });
    expect(p!.claim).toBeUndefined();
    // the merchant's retry of the same order answers the approval, and the acquirer was asked for it once
    const again = await authorise(gw, body);
    expect(again).toMatchObject({ order_status: '1', transaction_id: p!.transaction_id });
    expect(connector.calls.authorise).toBe(1);
  });

  it('when the hosted card page pays and the acquirer acted but its answer and status are lost, then the shopper sees the pending result, never "declined", and recovery approves it', async () => {
    const { gw, lose, heal, recover } = lostAnswers('unknown-hosted');
    const body = checkoutBody({ open3d: 'no3DS' });
    const opened = await request(gw.app).post('/v1/checkout').set('Accept', 'application/json').send(JSON.stringify(body));
    const card = new URL(String(opened.body.checkout_url)).pathname;
    lose('authorise');
    const paid = await request(gw.app).post(`${card}/pay`).type('form').send({
      cardholder: 'Ada Lovelace',
      card: CARDS.approved,
      expiration_month: '12',
      expiration_year: '2034',
      security_code: TEST_SECURITY_CODE,
    });
    expect(paid.status).toBe(303);
    expect(new URL(String(paid.headers.location), 'http://x').pathname).toBe(`${card}/result`);
    const pending = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    expect(pending).toMatchObject({ status: '1000' });
    expect(pending!.claim).toBeDefined();
    heal();
    await recover();
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no))).toMatchObject({ status: '3000' });
    expect((await request(gw.app).get(`${card}/result`)).text).toContain('Payment successful');
  });

  it('when the process asking for an authorisation died before the acquirer saw it, then the order sent again after its claim went stale is authorised once, under the same transaction', async () => {
    const { clock, gw, connector, find, sendAndLose } = deadBeforeAsking('takeover-authorise');
    const body = authoriseBody(NOTIFY);
    await sendAndLose(body);
    const first = await find(body);
    expect(first).toMatchObject({ status: '1000' });
    clock.advance(gw.deps.pendingResolveMs + 1_000);
    const again = await authorise(gw, body);
    expect(again).toMatchObject({ order_status: '1', transaction_id: first!.transaction_id });
    expect(await gw.deps.store.getPayment(MERCHANT_ID, first!.transaction_id)).toMatchObject({ status: '3000' });
    // the acquirer authorised it once, under the payment's one reference
    expect(await gw.deps.connectors.get('sandbox')!.status(first!.transaction_id)).toMatchObject({
      op: 'authorise',
      outcome: { kind: 'approved' },
    });
    expect(connector.calls.authorise).toBe(2);
  });

  it('when recovery finds an authorisation the acquirer never saw, then the merchant still has half a resolve period to send the order again before it is recorded as failed', async () => {
    const { clock, gw, find, sendAndLose } = deadBeforeAsking('takeover-grace');
    const retried = authoriseBody(NOTIFY);
    const abandoned = authoriseBody(NOTIFY);
    await sendAndLose(retried, abandoned);
    clock.advance(gw.deps.pendingResolveMs + 1_000);
    await jobOf(gw, 'pending-resolve').runOnce();
    // recovery found no record at the acquirer: both still pending, neither declined yet
    expect(await find(retried)).toMatchObject({ status: '1000' });
    expect(await find(abandoned)).toMatchObject({ status: '1000' });
    expect(await authorise(gw, retried)).toMatchObject({ order_status: '1' });
    clock.advance(gw.deps.pendingResolveMs / 2 + 1_000);
    await jobOf(gw, 'pending-resolve').runOnce();
    // the order nobody sent again fails (nothing was charged), the other stays approved
    const failed = await find(abandoned);
    expect(failed).toMatchObject({ status: '4000', never_sent: true });
    expect(await find(retried)).toMatchObject({ status: '3000' });
    // sent again even then, the never-sent order is re-opened and approved once, under its one transaction
    expect(await authorise(gw, abandoned)).toMatchObject({ order_status: '1', transaction_id: failed!.transaction_id });
    expect(await find(abandoned)).toMatchObject({ status: '3000', transaction_id: failed!.transaction_id });
    expect(await authorise(gw, abandoned)).toMatchObject({ order_status: '1', transaction_id: failed!.transaction_id });
  });

  it('when the order is sent again while its claim is held, and meanwhile recovery records it as never sent, then the retry is re-opened and approved, never answered "declined"', async () => {
    const { gw, find, sendAndLose } = deadBeforeAsking('takeover-waiting');
    const body = authoriseBody(NOTIFY);
    await sendAndLose(body);
    const first = (await find(body))!;
    expect(first).toMatchObject({ status: '1000' });
    // the retry finds the first attempt's claim fresh: it waits for its outcome
    const again = authorise(gw, body);
    await new Promise((r) => setTimeout(r, 200));
    expect(await find(body)).toMatchObject({ status: '1000', version: first.version });
    // meanwhile another process's recovery ends the grace window with no record at the acquirer (recovery.ts)
    const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
    await settleAuthorisation(gw.deps, account, first, { kind: 'error', message: 'no record', notSent: true }, 'payment');
    expect(await find(body)).toMatchObject({ status: '4000', never_sent: true });
    expect(await again).toMatchObject({ order_status: '1', transaction_id: first.transaction_id });
    expect(await find(body)).toMatchObject({ status: '3000', transaction_id: first.transaction_id });
  });

  it('when a subscription charge acted at the acquirer but its answer and status are lost, then the period is not charged again as a new payment and the approval is recorded', async () => {
    const { clock, gw, lose, heal } = lostAnswers('unknown-charge');
    const answer = await authorise(gw, { ...NOTIFY, subscription: dailyPlan() });
    const rid = answer.recurring_id!;
    const scheduler = jobOf(gw, 'subscription-charges');
    lose('authorise');
    for (let h = 0; h < 25; h++) {
      clock.advance(HOUR);
      await scheduler.runOnce().catch(() => undefined);
    }
    const pending = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`);
    expect(pending).toMatchObject({ status: '1000' });
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2-R1`)).toBeUndefined();
    heal();
    for (let h = 0; h < 3; h++) {
      clock.advance(HOUR);
      await scheduler.runOnce().catch(() => undefined);
    }
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`)).toMatchObject({ status: '3000', amount: 2500 });
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2-R1`)).toBeUndefined();
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ charges_made: 2, failed_attempts: 0 });
  });
});

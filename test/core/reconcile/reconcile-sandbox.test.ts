import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { PASS_EVERY_MS, STEP_PAYMENTS } from '../../../src/core/reconcile/job.js';
import { reconcilePayment } from '../../../src/core/reconcile/reconcile-payment.js';
import { connectorFor } from '../../../src/core/ports/connector.js';
import { redisWorld } from '../../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref, type Paid } from '../../support/operations.js';
import { portalMerchants, PORTAL, signedIn } from '../../support/portal.js';
import { discrepancyMetric, reconcilePass } from '../../support/reconcile.js';
import { clockCall, compact, newClock, runClockJobs } from '../../support/clocks.js';
import { jobOf } from '../../support/jobs.js';
import { LOG_DIR } from '../../support/paths.js';
import { CARDS } from '../../support/cards.js';

/**
 * Reconciliation against the sandbox's books (docs/operations.md, "Reconciliation"), on a real Redis: a
 * refund at the acquirer that the gateway never recorded is a discrepancy, kept once, counted once, logged and
 * shown on the portal's payment page; a payment under a claim is left to recovery; a test clock's advance
 * reconciles the clock's payments in the clock's time.
 */
const world = redisWorld('reconcile-sandbox');
const DAY = 86_400_000;

async function gateway(name: string, clock = new ManualClock()): Promise<TestGateway> {
  return world.gateway(name, clock, { merchants: await portalMerchants() });
}

/** A payment of 50.00 captured whole and refunded 20.00 through the gateway (its refund `-01`). */
async function refundedInPart(gw: TestGateway, extra: Record<string, unknown> = {}): Promise<Paid> {
  const paid = await pay(gw.app, { amount: '50.00', ...extra });
  expect((await postBatch(gw.app, 'capture', [ref(paid, { amount: '50.00' })])).body.capture_orders[0].capture_status).toBe('1');
  const refund = await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '20.00', refund_reason: 'one returned' })]);
  expect(refund.body.refund_orders[0].refund_status).toBe('1');
  return paid;
}

/** A refund of 20.00 made at the sandbox acquirer directly, under the payment's next refund number: the gateway never heard of it. */
async function refundAtTheAcquirer(gw: TestGateway, transactionId: string, number: string): Promise<void> {
  const p = (await gw.deps.store.getPayment(MERCHANT_ID, transactionId))!;
  const record = {
    op: 'refund',
    connectorRef: p.connector_ref,
    amount: 2000,
    currency: 'USD',
    outcome: { ok: true, connectorRef: 're_direct' },
  };
  await gw.deps.store.ledgerOf!(MERCHANT_ID).ledgerRecord(`${transactionId}-${number}`, JSON.stringify(record));
}

describe('when the sandbox has refunded more than the gateway recorded', () => {
  it('then one discrepancy is kept and counted over two passes, logged with the transaction id, and shown on the payment page', async () => {
    const clock = new ManualClock();
    const gw = await gateway('reconcile-discrepancy', clock);
    const paid = await refundedInPart(gw);
    const agreeing = await refundedInPart(gw);
    await refundAtTheAcquirer(gw, paid.transaction_id, '02');
    const before = await discrepancyMetric(gw, 'sandbox', 'refunds');

    const first = await reconcilePass(gw);
    expect(first).toMatchObject({ compared: 2, discrepancies: 1, caught_up: 0 });
    const kept = await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id);
    expect(kept).toEqual([
      expect.objectContaining({
        kind: 'refunds',
        connector: 'sandbox',
        currency: 'USD',
        acquirer_amount: 4000,
        gateway_amount: 2000,
        references: [`${paid.transaction_id}-02`],
        found_at: clock.now(),
        version: 1,
      }),
    ]);
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, agreeing.transaction_id)).toEqual([]);
    expect(await discrepancyMetric(gw, 'sandbox', 'refunds')).toBe(before + 1);
    // nothing was changed on the payment: what no transition explains is the operator's to settle
    expect(await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id)).toMatchObject({ status: '3200', refunded: 2000 });

    clock.advance(PASS_EVERY_MS + 1_000);
    const second = await reconcilePass(gw);
    expect(second).toMatchObject({ compared: 2, discrepancies: 0 });
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([expect.objectContaining({ version: 1 })]);
    expect(await discrepancyMetric(gw, 'sandbox', 'refunds')).toBe(before + 1);

    const warnings = readFileSync(join(LOG_DIR, 'reconcile-discrepancy.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('reconciliation discrepancy'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        transaction_id: paid.transaction_id,
        kind: 'refunds',
        acquirer_amount: '40.00',
        gateway_amount: '20.00',
      }),
    ]);

    const agent = await signedIn(gw.app, PORTAL.admin);
    const page = await agent.get(`/portal/payments/${paid.transaction_id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<li class="discrepancy">');
    expect(page.text).toContain('Reconciliation: the acquirer (sandbox) refunded $40.00; the gateway records $20.00 refunded');
    const german = await agent.get(`/portal/payments/${paid.transaction_id}?lang=de`);
    expect(german.text).toContain('Abgleich: Der Acquirer (sandbox) hat 40,00');
    const clean = await agent.get(`/portal/payments/${agreeing.transaction_id}`);
    expect(clean.text).not.toContain('class="discrepancy"');
  });
});

describe('when two gateway processes share one Redis', () => {
  it('then a pass runs in bounded steps taken by either, and compares each payment once', async () => {
    const clock = new ManualClock();
    const one = await gateway('reconcile-steps-1', clock);
    const two = await gateway('reconcile-steps-2', clock);
    const made: Paid[] = [];
    for (let i = 0; i < 2 * STEP_PAYMENTS + 5; i++) {
      clock.advance(1_000);
      made.push(await pay(one.app, { amount: `${i + 1}.00` }));
    }
    await refundAtTheAcquirer(one, made[3]!.transaction_id, '01');
    clock.advance(1_000);
    // every read of the sandbox's books, by either process
    let reads = 0;
    for (const gw of [one, two]) {
      const sandbox = connectorFor(gw.deps, gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!);
      const books = sandbox.books!.bind(sandbox);
      sandbox.books = (refs) => {
        reads++;
        return books(refs);
      };
    }
    const jobs = [jobOf(one, 'reconciliation'), jobOf(two, 'reconciliation')];
    const steps: number[] = [];
    for (let run = 0; run < 20; run++) {
      await Promise.all(jobs.map((j) => j.runOnce()));
      const [pass] = await one.deps.store.getReconcilePasses(MERCHANT_ID, [ACCOUNT_ID]);
      steps.push(pass!.compared);
      if (pass!.phase === 'done') break;
    }
    // one step a run, of at most STEP_PAYMENTS payments, whichever process took it; every payment read once
    expect(steps).toEqual([STEP_PAYMENTS, 2 * STEP_PAYMENTS, made.length]);
    expect(reads).toBe(made.length);
    expect(await one.deps.store.discrepanciesOf(MERCHANT_ID, made[3]!.transaction_id)).toEqual([
      expect.objectContaining({ kind: 'refunds', acquirer_amount: 2000, gateway_amount: 0 }),
    ]);
  });
});

describe('when a payment holds a claim (an operation in flight)', () => {
  it('then reconciliation leaves it to recovery, and compares it once the claim is released', async () => {
    const clock = new ManualClock();
    const gw = await gateway('reconcile-claimed', clock);
    const paid = await refundedInPart(gw);
    await refundAtTheAcquirer(gw, paid.transaction_id, '02');
    // a refund under way: its claim written, the acquirer asked, its outcome not recorded yet
    const p = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    const claim = {
      id: 'claim_test',
      op: 'refund' as const,
      reference: `${paid.transaction_id}-02`,
      at: clock.now(),
      until: clock.now() + 60_000,
    };
    expect(await gw.deps.store.commit({ merchantId: MERCHANT_ID, payments: [{ next: { ...p, claim }, expected: p.version }] })).toBe(true);

    const account = gw.deps.merchants.find(MERCHANT_ID, ACCOUNT_ID)!;
    expect(await reconcilePayment(gw.deps, account, connectorFor(gw.deps, account), paid.transaction_id)).toEqual({
      kind: 'skipped',
      why: 'claimed',
    });
    expect(await reconcilePass(gw)).toMatchObject({ compared: 0, discrepancies: 0 });
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([]);

    const held = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    expect(
      await gw.deps.store.commit({ merchantId: MERCHANT_ID, payments: [{ next: { ...held, claim: undefined }, expected: held.version }] }),
    ).toBe(true);
    clock.advance(PASS_EVERY_MS + 1_000);
    expect(await reconcilePass(gw)).toMatchObject({ compared: 1, discrepancies: 1 });
  });
});

describe('when a test clock advances', () => {
  it('then its payments are reconciled in the clock time, and the live passes leave them alone', async () => {
    const live = new ManualClock();
    const gw = await gateway('reconcile-clock', live);
    // the clock two days behind the live time: its payment sits in the live window of the account's indexes
    const T0 = live.now() - 2 * DAY;
    const id = await newClock(gw.app, T0);
    const paid = await refundedInPart(gw, { test_clock_id: id });
    await refundAtTheAcquirer(gw, paid.transaction_id, '02');

    // the live job's pass leaves the clock's payment to the clock
    expect(await reconcilePass(gw)).toMatchObject({ compared: 0, discrepancies: 0 });
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([]);

    const res = await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + DAY) });
    expect(res.status).toBe(200);
    await runClockJobs([gw], id);
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([
      expect.objectContaining({ kind: 'refunds', acquirer_amount: 4000, gateway_amount: 2000, found_at: T0 + DAY }),
    ]);
    // a second advance finds it kept: nothing more is written
    await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + 2 * DAY) });
    await runClockJobs([gw], id);
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([expect.objectContaining({ version: 1 })]);
    // deleting the clock deletes what reconciliation kept of its payments
    expect((await clockCall(gw.app, 'testClockDelete', { test_clock_id: id })).status).toBe(200);
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([]);
  });

  it('then a refund of the failing-refund card that failed in the clock time is caught up by the advance, dated in the clock time', async () => {
    const gw = await gateway('reconcile-clock-refund', new ManualClock());
    const T0 = Date.UTC(2030, 0, 1);
    const id = await newClock(gw.app, T0);
    const paid = await pay(gw.app, { card: CARDS.refundFailsLater, amount: '30.00', test_clock_id: id });
    await postBatch(gw.app, 'capture', [ref(paid, { amount: '30.00' })]);
    expect((await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '10.00' })])).body.refund_orders[0].refund_status).toBe('1');

    await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + 5 * 60_000) });
    await runClockJobs([gw], id);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!.refunds[0]).toMatchObject({ refund_status: '1' });
    await clockCall(gw.app, 'testClockAdvance', { test_clock_id: id, frozen_time: compact(T0 + DAY) });
    await runClockJobs([gw], id);
    const p = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    expect(p).toMatchObject({ status: '3100', refunded: 0 });
    expect(p.refunds[0]).toMatchObject({ refund_status: '0', refund_processing_date: T0 + DAY });
    expect(await gw.deps.store.discrepanciesOf(MERCHANT_ID, paid.transaction_id)).toEqual([]);
  });
});

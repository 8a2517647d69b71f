import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import type { Payment } from '../../../src/core/records/payment.js';
import { verifyNotificationFields } from '../../../packages/sdk/src/index.js';
import { redisWorld } from '../../support/redis-world.js';
import {
  ACCOUNT_ID,
  AUTO_ACCOUNT_ID,
  AUTO_SIGN_KEY,
  authoriseBody,
  makeGateway,
  MERCHANT_ID,
  SIGN_KEY,
  testMerchants,
  type TestGateway,
} from '../../support/gateway.js';
import { NotificationReceiver } from '../../support/receiver.js';
import { authorise, jobOf } from '../../support/jobs.js';
import { FIELDS, sign, signBatch, signBody } from '../../support/sign.js';
import { postBatch } from '../../support/operations.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const world = redisWorld('subscriptions');
const gateway = world.gateway;

function subscription(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contract: 'C-1',
    contract_name: 'Gold plan',
    contract_amount: '25.00',
    interval: 'day',
    interval_count: '1',
    billing_cycle: 3,
    promotion_cycle: 2,
    contract_start: '2026-11-21',
    contract_end: '',
    price_id: 'price_gold',
    ...overrides,
  };
}

/** Moves the clock hour by hour, running the given scheduler runs at each step. */
async function runFor(clock: ManualClock, ms: number, run: () => Promise<unknown>): Promise<void> {
  for (let t = 0; t < ms; t += HOUR) {
    clock.advance(HOUR);
    await run();
  }
}

async function cancelSubscription(gw: TestGateway, recurringId: string, contractName = 'Gold plan', key = SIGN_KEY) {
  const body = signBody(
    { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, recurring_id: recurringId, contract_name: contractName },
    FIELDS.cancelsubscription,
    key,
  );
  return request(gw.app).post('/v1/cancelsubscription').set('Content-Type', 'application/xml').send(JSON.stringify(body));
}

describe('when a payment carries a 1-day subscription with billing_cycle 3', () => {
  it('then the shopper is charged exactly 3 times over the following days, at the promotion and then the contract amount', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const gw = gateway('subscription-three-charges', clock);
    const r = await new NotificationReceiver([200]).start();
    world.receivers.push(r);
    const answer = await authorise(gw, { notify_url: r.url, subscription: subscription() });
    expect(answer.order_status).toBe('1');
    expect(answer.contract_name).toBe('Gold plan');
    expect(answer.recurring_id).toMatch(/^RC/);
    expect(answer.recurring_deduction_period).toBe('1 day');
    expect(answer.recurring_deduction_time).toBe('2026-11-22 10:00:00');
    const rid = answer.recurring_id!;

    const scheduler = jobOf(gw, 'subscription-charges');
    const delivery = jobOf(gw, 'notification-delivery');
    const countedBefore = (await gw.deps.store.authorisationCounts(MERCHANT_ID, ACCOUNT_ID)).get('card') ?? { tried: 0, approved: 0 };
    await runFor(clock, 10 * DAY, async () => {
      await scheduler.runOnce();
      await delivery.runOnce();
    });

    const store = gw.deps.store;
    // each charge is counted for /v1/optimise by the commit that records it, once
    const counted = (await store.authorisationCounts(MERCHANT_ID, ACCOUNT_ID)).get('card')!;
    expect([counted.tried - countedBefore.tried, counted.approved - countedBefore.approved]).toEqual([2, 2]);
    const second = await store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`);
    const third = await store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-3`);
    expect(second).toMatchObject({ amount: 1000, status: '3000', source: 'recurring', recurring_id: rid, currency: 'USD' });
    expect(third).toMatchObject({ amount: 2500, status: '3000', source: 'recurring', recurring_id: rid });
    expect(second!.updated_at).toBeGreaterThanOrEqual(t0 + DAY);
    expect(second!.updated_at).toBeLessThan(t0 + DAY + HOUR);
    expect(third!.updated_at).toBeGreaterThanOrEqual(t0 + 2 * DAY);
    expect(await store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-4`)).toBeUndefined();
    const orderKeys = await world.redis.client().keys(`gw:{${MERCHANT_ID}}:order:${ACCOUNT_ID}:${rid}*`);
    expect(orderKeys).toHaveLength(2);
    expect(await store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Completed', charges_made: 3, next_charge_at: null });

    const charges = r.received.filter((n) => n.fields.notify_type === 'subscription_charge');
    expect(charges.map((n) => [n.fields.order_no, n.fields.amount, n.fields.order_status, n.fields.recurring_id])).toEqual([
      [`${rid}-2`, '10.00', '1', rid],
      [`${rid}-3`, '25.00', '1', rid],
    ]);
    expect(charges[1]!.fields.contract_status).toBe('Completed');
    for (const n of charges) expect(verifyNotificationFields(n.fields, SIGN_KEY).ok).toBe(true);
  });
});

describe('when two gateway processes on one Redis run the scheduler', () => {
  it('then each period is charged exactly once', async () => {
    const clock = new ManualClock();
    const a = gateway('subscription-two-a', clock);
    const b = gateway('subscription-two-b', clock);
    const answer = await authorise(a, { notify_url: 'http://127.0.0.1:9/notify', subscription: subscription({ billing_cycle: 4 }) });
    const rid = answer.recurring_id!;
    const jobs = [
      jobOf(a, 'subscription-charges'),
      jobOf(b, 'subscription-charges'),
      jobOf(a, 'subscription-charges'),
      jobOf(b, 'subscription-charges'),
    ];
    await runFor(clock, 6 * DAY, () => Promise.all(jobs.map((j) => j.runOnce())));

    const orderKeys = (await world.redis.client().keys(`gw:{${MERCHANT_ID}}:order:${ACCOUNT_ID}:${rid}*`)).sort();
    expect(orderKeys.map((k) => k.split(':').at(-1))).toEqual([`${rid}-2`, `${rid}-3`, `${rid}-4`]);
    const payments = await Promise.all([2, 3, 4].map((n) => a.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-${n}`)));
    expect(payments.map((p) => p!.status)).toEqual(['3000', '3000', '3000']);
    const outbox = await world.redis.client().keys(`gw:{${MERCHANT_ID}}:outbox:*`);
    expect(outbox).toHaveLength(4); // the first payment and three charges
    expect(await a.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Completed', charges_made: 4 });
  });
});

describe('when the subscription is cancelled (POST /v1/cancelsubscription, JSON under application/xml)', () => {
  it('then it answers cancel_status 1, the contract is Inactived and no later charge is made', async () => {
    const clock = new ManualClock();
    const gw = gateway('subscription-cancel', clock);
    const r = await new NotificationReceiver([200]).start();
    world.receivers.push(r);
    const rid = (await authorise(gw, { notify_url: r.url, subscription: subscription({ billing_cycle: 5 }) })).recurring_id!;
    const scheduler = jobOf(gw, 'subscription-charges');
    await runFor(clock, DAY + 2 * HOUR, () => scheduler.runOnce());
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`)).toMatchObject({ status: '3000' });

    const res = await cancelSubscription(gw, rid);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(res.body).toEqual({
      merchant_id: MERCHANT_ID,
      account_id: ACCOUNT_ID,
      recurring_id: rid,
      contract_name: 'Gold plan',
      cancel_status: '1',
      error_message: '',
      encryption_data: sign([MERCHANT_ID, ACCOUNT_ID, rid, '1'], SIGN_KEY),
    });
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Inactived' });

    await runFor(clock, 10 * DAY, () => scheduler.runOnce());
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-3`)).toBeUndefined();
    await jobOf(gw, 'notification-delivery').runOnce();
    const cancelled = r.received.find((n) => n.fields.notify_type === 'subscription_cancel');
    expect(cancelled?.fields).toMatchObject({ recurring_id: rid, contract_status: 'Inactived', contract_name: 'Gold plan' });
    expect(verifyNotificationFields(cancelled!.fields, SIGN_KEY).ok).toBe(true);

    const again = await cancelSubscription(gw, rid);
    expect(again.body).toMatchObject({ cancel_status: '0', error_message: 'subscription is already Inactived' });
    expect(again.body.encryption_data).toBe(sign([MERCHANT_ID, ACCOUNT_ID, rid, '0'], SIGN_KEY));
  });

  it('then a charge already created for the period is still charged at its due time, and none after it', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const gw = gateway('subscription-cancel-pending', clock);
    const rid = (await authorise(gw, { subscription: subscription({ billing_cycle: 5 }) })).recurring_id!;
    const scheduler = jobOf(gw, 'subscription-charges');
    clock.set(t0 + DAY - 30 * 60_000);
    await scheduler.runOnce();
    const pending = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`);
    expect(pending).toMatchObject({ status: '1000', source: 'recurring', amount: 1000 });

    expect((await cancelSubscription(gw, rid)).body.cancel_status).toBe('1');
    clock.set(t0 + DAY);
    await scheduler.runOnce();
    expect(await gw.deps.store.getPayment(MERCHANT_ID, pending!.transaction_id)).toMatchObject({ status: '3000' });
    await runFor(clock, 10 * DAY, () => scheduler.runOnce());
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-3`)).toBeUndefined();
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Inactived', next_charge_at: null });
  });

  it('then an unknown recurring_id gets cancel_status 0, another contract_name too, and a wrong signature 401', async () => {
    const gw = gateway('subscription-cancel-errors', new ManualClock());
    const unknown = await cancelSubscription(gw, 'RC-NOPE');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({
      cancel_status: '0',
      recurring_id: 'RC-NOPE',
      error_message: 'recurring_id: no such subscription',
    });
    const rid = (await authorise(gw, { subscription: subscription() })).recurring_id!;
    expect((await cancelSubscription(gw, rid, 'Silver plan')).body).toMatchObject({ cancel_status: '0' });
    expect((await cancelSubscription(gw, rid, 'Gold plan', 'wrong-key-000')).status).toBe(401);
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Active' });
  });
});

describe('when the pending charge of a period is cancelled before its due time', () => {
  it('then that period is skipped and the next period is charged', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const gw = gateway('subscription-charge-cancelled', clock);
    const rid = (await authorise(gw, { subscription: subscription({ billing_cycle: 3, promotion_cycle: 1 }) })).recurring_id!;
    const scheduler = jobOf(gw, 'subscription-charges');
    clock.set(t0 + DAY - 30 * 60_000);
    await scheduler.runOnce();
    const pending = (await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`))!;
    expect(pending.status).toBe('1000');
    const cancel = signBatch(
      {
        merchant_id: MERCHANT_ID,
        account_id: ACCOUNT_ID,
        cancel_orders: [{ transaction_id: pending.transaction_id, order_no: pending.order_no, currency: 'USD', amount: '25.00' }],
      },
      'cancel_orders',
      SIGN_KEY,
    );
    const res = await request(gw.app).post('/v1/cancel').send(JSON.stringify(cancel));
    expect(res.body.cancel_orders[0]).toMatchObject({ cancel_status: '1', error_message: '' });

    await runFor(clock, 5 * DAY, () => scheduler.runOnce());
    expect(await gw.deps.store.getPayment(MERCHANT_ID, pending.transaction_id)).toMatchObject({ status: '4100' });
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-3`)).toMatchObject({ status: '3000', amount: 2500 });
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Completed' });
  });
});

describe('when a /v1/cancel holds the pending charge at its due time', () => {
  it('then the scheduler waits for the cancel instead of charging under it', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const gw = gateway('subscription-charge-held', clock);
    const rid = (await authorise(gw, { subscription: subscription({ billing_cycle: 2, promotion_cycle: 1 }) })).recurring_id!;
    const scheduler = jobOf(gw, 'subscription-charges');
    clock.set(t0 + DAY - 30 * 60_000);
    await scheduler.runOnce();
    const pending = (await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`))!;
    // an operation's claim, as /v1/cancel writes it before asking the connector
    const held: Payment = {
      ...pending,
      claim: {
        id: 'claim_test',
        op: 'cancel',
        reference: `${pending.transaction_id}-void`,
        plan: { void: false },
        at: t0,
        until: t0 + DAY + 60_000,
      },
    };
    expect(await gw.deps.store.commit({ merchantId: MERCHANT_ID, payments: [{ next: held, expected: pending.version }] })).toBe(true);
    clock.set(t0 + DAY + 1000);
    await scheduler.runOnce();
    expect(await gw.deps.store.getPayment(MERCHANT_ID, pending.transaction_id)).toMatchObject({
      status: '1000',
      claim: { id: 'claim_test' },
    });
  });
});

describe('when the merchant already used the order_no a charge would take', () => {
  it('then the charge is still made once, under a longer order_no', async () => {
    const clock = new ManualClock();
    const gw = gateway('subscription-order-taken', clock);
    const rid = (await authorise(gw, { subscription: subscription({ billing_cycle: 2 }) })).recurring_id!;
    await authorise(gw, { order_no: `${rid}-2` });
    await runFor(clock, 2 * DAY, () => jobOf(gw, 'subscription-charges').runOnce());
    const keys = await world.redis.client().keys(`gw:{${MERCHANT_ID}}:order:${ACCOUNT_ID}:${rid}-2-c_*`);
    expect(keys).toHaveLength(1);
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Completed', charges_made: 2 });
  });
});

describe('when the stored card can no longer be charged', () => {
  it('then the charge is retried after 1 and 3 days and the contract is Suspended with a notification', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const gw = gateway('subscription-suspend', clock);
    const r = await new NotificationReceiver([200]).start();
    world.receivers.push(r);
    // the card expires at the end of November; the monthly charge falls in December
    const rid = (
      await authorise(gw, {
        notify_url: r.url,
        expiration_month: '11',
        expiration_year: '2026',
        subscription: subscription({ interval: 'month', billing_cycle: 12 }),
      })
    ).recurring_id!;
    const scheduler = jobOf(gw, 'subscription-charges');
    const delivery = jobOf(gw, 'notification-delivery');
    await runFor(clock, 40 * DAY, async () => {
      await scheduler.runOnce();
      await delivery.runOnce();
    });
    const due = Date.UTC(2026, 11, 21, 10, 0, 0);
    expect(due).toBe(t0 + 30 * DAY);
    const tries = await Promise.all(
      [`${rid}-2`, `${rid}-2-R1`, `${rid}-2-R2`, `${rid}-2-R3`].map((o) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, o)),
    );
    expect(tries.slice(0, 3).map((p) => [p!.status, p!.result_code])).toEqual([
      ['4000', '3003'],
      ['4000', '3003'],
      ['4000', '3003'],
    ]);
    expect(tries[3]).toBeUndefined();
    expect(tries[1]!.updated_at - tries[0]!.updated_at).toBeGreaterThanOrEqual(DAY);
    expect(tries[1]!.updated_at - tries[0]!.updated_at).toBeLessThan(DAY + HOUR);
    expect(tries[2]!.updated_at - tries[1]!.updated_at).toBeGreaterThanOrEqual(3 * DAY);
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Suspended', next_charge_at: null });
    const charges = r.received.filter((n) => n.fields.notify_type === 'subscription_charge');
    expect(charges.map((n) => [n.fields.order_status, n.fields.contract_status])).toEqual([
      ['0', 'Active'],
      ['0', 'Active'],
      ['0', 'Suspended'],
    ]);
  });
});

describe('when a declined charge falls on the last day of its contract (contract_end)', () => {
  it('then it is not retried after contract_end: no charge is made past the contract, and the contract is Suspended', async () => {
    // the card expires at the end of November; the daily charge 2 falls on 1 December, the contract's last day
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 10, 0, 0));
    const gw = gateway('subscription-retry-end', clock);
    const rid = (
      await authorise(gw, {
        expiration_month: '11',
        expiration_year: '2026',
        subscription: subscription({ billing_cycle: 5, contract_start: '2026-11-30', contract_end: '2026-12-01' }),
      })
    ).recurring_id!;
    await runFor(clock, 6 * DAY, () => jobOf(gw, 'subscription-charges').runOnce());
    const [second, retry] = await Promise.all(
      [`${rid}-2`, `${rid}-2-R1`].map((o) => gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, o)),
    );
    expect(second).toMatchObject({ status: '4000', result_code: '3003' });
    expect(retry).toBeUndefined();
    expect(await gw.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Suspended', next_charge_at: null });
  });
});

describe('when the account captures automatically', () => {
  it('then the recurring charge is captured (3100)', async () => {
    const clock = new ManualClock();
    const gw = gateway('subscription-auto', clock);
    const body = { account_id: AUTO_ACCOUNT_ID, subscription: subscription({ billing_cycle: 2 }) };
    const res = await request(gw.app)
      .post('/v1/authorise')
      .send(JSON.stringify(authoriseBody(body, AUTO_SIGN_KEY)));
    const rid = /<recurring_id>([^<]+)</.exec(res.text)![1]!;
    await runFor(clock, 2 * DAY, () => jobOf(gw, 'subscription-charges').runOnce());
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, AUTO_ACCOUNT_ID, `${rid}-2`)).toMatchObject({
      status: '3100',
      captured: 1000,
    });
  });
});

describe('when 50 subscriptions belong to an account that is no longer configured', () => {
  it("then they do not hold up the charges of the merchant's other accounts", async () => {
    const clock = new ManualClock();
    const before = gateway('subscription-orphans-before', clock);
    for (let i = 0; i < 50; i++) {
      const body = authoriseBody({ account_id: AUTO_ACCOUNT_ID, subscription: subscription({ billing_cycle: 2 }) }, AUTO_SIGN_KEY);
      expect((await request(before.app).post('/v1/authorise').send(JSON.stringify(body))).text).toContain('<recurring_id>RC');
    }
    clock.advance(1000);
    const rid = (await authorise(before, { subscription: subscription({ billing_cycle: 2 }) })).recurring_id!;
    const merchants = testMerchants();
    const accounts = (merchants.merchants[0] as unknown as { accounts: { account_id: string }[] }).accounts;
    accounts.splice(
      accounts.findIndex((a) => a.account_id === AUTO_ACCOUNT_ID),
      1,
    );
    const after = makeGateway({ name: 'subscription-orphans-after', redisUrl: world.redis.url, clock, merchants });
    world.open.push(after);
    await runFor(clock, 2 * DAY, () => jobOf(after, 'subscription-charges').runOnce());
    expect(await after.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`)).toMatchObject({ status: '3000', amount: 1000 });
    expect(await after.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({ status: 'Completed', charges_made: 2 });
  });
});

describe('when the stored card cannot be opened by the vault (VAULT_KEY changed)', () => {
  it('then each try is a failed charge on the retry schedule and the contract is Suspended, without stopping the scheduler', async () => {
    const clock = new ManualClock();
    const before = gateway('subscription-vault-before', clock);
    const rid = (await authorise(before, { subscription: subscription({ billing_cycle: 3 }) })).recurring_id!;
    const after = makeGateway({ name: 'subscription-vault-after', redisUrl: world.redis.url, clock, env: { VAULT_KEY: 'b2'.repeat(32) } });
    world.open.push(after);
    await runFor(clock, 6 * DAY, () => jobOf(after, 'subscription-charges').runOnce());
    const tries = await Promise.all(
      [`${rid}-2`, `${rid}-2-R1`, `${rid}-2-R2`].map((o) => after.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, o)),
    );
    expect(tries.map((p) => p?.status)).toEqual(['4000', '4000', '4000']);
    expect(await after.deps.store.getContract(MERCHANT_ID, rid)).toMatchObject({
      status: 'Suspended',
      next_charge_at: null,
      charges_made: 1,
    });
  });
});

describe('when a held payment with a subscription is approved by review', () => {
  it("then the next period's charge is created an hour ahead of its due time, like any other, so the merchant can still cancel it", async () => {
    const clock = new ManualClock();
    const gw = gateway('subscription-after-review', clock);
    const held = await authorise(gw, { shopper_email: 'held+review@example.com', subscription: subscription({ billing_cycle: 3 }) });
    expect(held.order_status).toBe('2');
    const approved = await postBatch(gw.app, 'review', [
      { transaction_id: held.transaction_id, order_no: held.order_no, currency: 'USD', amount: '10.00', review_flag: '1' },
    ]);
    expect(approved.body.review_orders[0].review_status).toBe('1');
    const rid = (await gw.deps.store.getPayment(MERCHANT_ID, held.transaction_id!))!.recurring_id!;
    const contract = (await gw.deps.store.getContract(MERCHANT_ID, rid))!;
    clock.set(contract.next_charge_at! - 30 * 60_000);
    await jobOf(gw, 'subscription-charges').runOnce();
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`)).toMatchObject({
      status: '1000',
      source: 'recurring',
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { backgroundJobs } from '../../../src/compose.js';
import type { BackgroundJob } from '../../../src/core/schedule/due-queue.js';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { makeGateway, MERCHANT_ID, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref, type Paid } from '../../support/operations.js';

const DAY = 86_400_000;
let redis: RedisServer;
const clock = new ManualClock();
let one: TestGateway;
let two: TestGateway;

beforeAll(async () => {
  redis = await startRedis('auth-expiry');
  one = makeGateway({ name: 'auth-expiry-1', redisUrl: redis.url, clock });
  two = makeGateway({ name: 'auth-expiry-2', redisUrl: redis.url, clock });
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

const sweep = (gw: TestGateway): BackgroundJob => backgroundJobs(gw.deps, gw.config).find((j) => j.name === 'auth-expiry')!;
const statusOf = async (p: Paid) => (await one.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.status;

async function expireNotifications(p: Paid): Promise<number> {
  const due = await one.deps.store.due(MERCHANT_ID, 'outbox', Number.MAX_SAFE_INTEGER, 10_000);
  const records = await Promise.all(due.map((d) => one.deps.store.getOutbox(MERCHANT_ID, d.member)));
  return records.filter((r) => r?.notify_type === 'expire' && r.fields.transaction_id === p.transaction_id).length;
}

describe('the authorisation expiry sweep', () => {
  it('when an authorisation is not captured within 7 days, then two gateways sweeping at once expire it exactly once (4400)', async () => {
    const p = await pay(one.app, { notify_url: 'https://merchant.example/notify' });
    const captured = await pay(one.app);
    await postBatch(one.app, 'capture', [ref(captured)]);
    clock.advance(7 * DAY - 1000);
    expect(await sweep(one).runOnce()).toBe(0);
    expect(await statusOf(p)).toBe('3000');
    clock.advance(1000);
    const handled = await Promise.all([sweep(one).runOnce(), sweep(two).runOnce(), sweep(one).runOnce()]);
    expect(handled.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await statusOf(p)).toBe('4400');
    expect(await statusOf(captured)).toBe('3100');
    expect(await expireNotifications(p)).toBe(1);
    expect(await redis.client().zscore(`gw:{${MERCHANT_ID}}:due:auth_expiry`, p.transaction_id)).toBeNull();
    const late = await postBatch(one.app, 'capture', [ref(p)]);
    expect(late.body.capture_orders[0].error_message).toBe('V2003:Authorisation has expired');
  });

  it('when an authorisation is captured or cancelled, then it leaves the expiry queue', async () => {
    const a = await pay(one.app);
    const b = await pay(one.app);
    const queue = `gw:{${MERCHANT_ID}}:due:auth_expiry`;
    expect(await redis.client().zscore(queue, a.transaction_id)).not.toBeNull();
    await postBatch(one.app, 'capture', [ref(a)]);
    await postBatch(one.app, 'cancel', [ref(b)]);
    expect(await redis.client().zscore(queue, a.transaction_id)).toBeNull();
    expect(await redis.client().zscore(queue, b.transaction_id)).toBeNull();
  });

  it('when a held payment is approved, then its 7 days still run from the authorisation, not from the approval', async () => {
    const p = await pay(one.app, { shopper_email: 'late+review@example.com' });
    clock.advance(5 * DAY);
    const approved = await postBatch(one.app, 'review', [ref(p, { review_flag: '1' })]);
    expect(approved.body.review_orders[0].review_status).toBe('1');
    expect(await statusOf(p)).toBe('3000');
    clock.advance(2 * DAY);
    expect(await sweep(two).runOnce()).toBeGreaterThanOrEqual(1);
    expect(await statusOf(p)).toBe('4400');
  });

  it('when a held payment is never reviewed, then it expires like an authorisation (4400) and a late approval is refused', async () => {
    const p = await pay(one.app, { shopper_email: 'never+review@example.com' });
    expect(await statusOf(p)).toBe('2000');
    clock.advance(7 * DAY);
    const late = await postBatch(one.app, 'review', [ref(p, { review_flag: '1' })]);
    expect(late.body.review_orders[0]).toMatchObject({ review_status: '0', error_message: 'V2003:Authorisation has expired' });
    expect(await sweep(one).runOnce()).toBeGreaterThanOrEqual(1);
    expect(await statusOf(p)).toBe('4400');
  });

  it('when an authorisation is captured after its window ran out but before the sweep reached it, then the capture fails as expired and nothing is captured', async () => {
    const p = await pay(one.app);
    clock.advance(7 * DAY);
    const late = await postBatch(one.app, 'capture', [ref(p)]);
    expect(late.body.capture_orders[0]).toMatchObject({ capture_status: '0', error_message: 'V2003:Authorisation has expired' });
    expect((await one.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.captured).toBe(0);
    await sweep(one).runOnce();
    expect(await statusOf(p)).toBe('4400');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { makeGateway, MERCHANT_ID, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, ref } from '../../support/operations.js';

let redis: RedisServer;
/** two gateways over one Redis, as two processes behind a load balancer */
let one: TestGateway;
let two: TestGateway;

beforeAll(async () => {
  redis = await startRedis('operations-concurrency');
  one = makeGateway({ name: 'operations-concurrency-1', redisUrl: redis.url });
  two = makeGateway({ name: 'operations-concurrency-2', redisUrl: redis.url });
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

const either = (i: number) => (i % 2 === 0 ? one : two).app;

describe('when 50 refunds of 1.00 race against a captured 10.00 (real Redis, two gateways)', () => {
  it('then exactly 10 succeed with distinct reference ids and 10.00 is refunded in total', async () => {
    const p = await pay(one.app);
    expect((await postBatch(one.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postBatch(either(i), 'refund', [ref(p, { refund_amount: '1.00', refund_reason: `r${i}` })])),
    );
    const orders = answers.map((a) => {
      expect(a.status).toBe(200);
      return a.body.refund_orders[0];
    });
    const won = orders.filter((o) => o.refund_status === '1');
    expect(won).toHaveLength(10);
    expect(new Set(won.map((o) => o.refund_reference_id)).size).toBe(10);
    for (const o of orders.filter((x) => x.refund_status === '0')) {
      expect(['V3002:Refund amount exceeds the amount left to refund', 'V2009:Transaction has been refunded in full']).toContain(
        o.refund_message,
      );
    }
    const stored = await one.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    expect(stored).toMatchObject({ status: '3300', refunded: 1000 });
    expect(stored!.refunds.reduce((sum, r) => sum + r.refund_amount, 0)).toBe(1000);
    expect(stored!.claim).toBeUndefined();
  });
});

describe('when 20 captures of one authorisation race', () => {
  it('then exactly one succeeds', async () => {
    const p = await pay(one.app);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => postBatch(either(i), 'capture', [ref(p)])));
    const statuses = answers.map((a) => a.body.capture_orders[0].capture_status);
    expect(statuses.filter((s) => s === '1')).toHaveLength(1);
    expect(await one.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3100', captured: 1000 });
  });
});

describe('when a capture and a cancel of one authorisation race', () => {
  it('then exactly one of them wins, and the payment shows the winner', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await pay(one.app);
      const [capture, cancel] = await Promise.all([postBatch(one.app, 'capture', [ref(p)]), postBatch(two.app, 'cancel', [ref(p)])]);
      const captured = capture.body.capture_orders[0].capture_status === '1';
      const cancelled = cancel.body.cancel_orders[0].cancel_status === '1';
      expect(captured !== cancelled).toBe(true);
      const stored = await one.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
      expect(stored?.status).toBe(captured ? '3100' : '4100');
    }
  });
});

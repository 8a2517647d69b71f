import { describe, expect, it } from 'vitest';
import { redisWorld } from '../../support/redis-world.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';
import { ACCOUNT_ID, MERCHANT_ID } from '../../support/gateway.js';
import { batchSignature, pay, postQuery } from '../../support/operations.js';

/** docs/api.md: /v1/retrievalTrans naming no order answers the account's newest payments, from a store index. */
const world = redisWorld('recent-transactions');
const MINUTE = 60_000;
const compact = (ms: number) => new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14);

describe('POST /v1/retrievalTrans naming no order', () => {
  it('when sent with only merchant_id, account_id and encryption_data, then the newest payments come, newest first', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('recent-newest', clock);
    const paid = [];
    for (let i = 0; i < 3; i++) {
      paid.push(await pay(gw.app));
      clock.advance(MINUTE);
    }
    await pay(gw.app, {}, true); // another account of the same merchant: not listed
    const res = await postQuery(gw.app, '/v1/retrievalTrans', {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, return_status: '1', has_more: '0' });
    expect(res.body.encryption_data).toBe(batchSignature(res.body));
    expect(res.body.orders_list.map((o: { transaction_id: string }) => o.transaction_id)).toEqual(
      paid.map((p) => p.transaction_id).reverse(),
    );
    expect(res.body.orders_list[0]).toMatchObject({
      order_no: paid[2]!.order_no,
      amount: '10.00',
      payment_status: '3000',
      query_result: '1',
    });
    expect(res.body.fraud_check_result.length).toBeGreaterThan(0);
  });

  it('when start_date and end_date are given, then only payments created within them (inclusive) come', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('recent-bounds', clock);
    const times: number[] = [];
    const paid = [];
    for (let i = 0; i < 4; i++) {
      times.push(clock.now());
      paid.push(await pay(gw.app));
      clock.advance(10 * MINUTE);
    }
    const res = await postQuery(gw.app, '/v1/retrievalTrans', { start_date: compact(times[1]!), end_date: compact(times[2]!) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.orders_list.map((o: { order_no: string }) => o.order_no)).toEqual([paid[2]!.order_no, paid[1]!.order_no]);
    const reversed = await postQuery(gw.app, '/v1/retrievalTrans', { start_date: compact(times[2]!), end_date: compact(times[1]!) });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toMatchObject({ field: 'end_date', return_status: '0' });
    const notADate = await postQuery(gw.app, '/v1/retrievalTrans', { start_date: '2026-11-21' });
    expect(notADate.body).toMatchObject({ field: 'start_date', return_status: '0' });
  });

  it('when more than 100 payments match, then the newest 100 come with has_more 1, read from the per-account index', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('recent-many', clock);
    for (let batch = 0; batch < 11; batch++) {
      await Promise.all(Array.from({ length: 10 }, () => pay(gw.app)));
      clock.advance(1000);
    }
    const newest = await pay(gw.app);
    const index = `gw:{${MERCHANT_ID}}:pay-by-time:${ACCOUNT_ID}`;
    expect(await world.redis.client().zcard(index)).toBe(111);
    const res = await postQuery(gw.app, '/v1/retrievalTrans', {});
    expect(res.body.orders_list).toHaveLength(100);
    expect(res.body.has_more).toBe('1');
    expect(res.body.orders_list[0].transaction_id).toBe(newest.transaction_id);
    // the answer comes from the index: a payment left out of it is not found by scanning
    await world.redis.client().zrem(index, newest.transaction_id);
    const again = await postQuery(gw.app, '/v1/retrievalTrans', {});
    expect(again.body.orders_list.map((o: { transaction_id: string }) => o.transaction_id)).not.toContain(newest.transaction_id);
  });
});

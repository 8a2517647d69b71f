import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { ACCOUNT_ID, makeGateway, MERCHANT_ID, type TestGateway } from '../../support/gateway.js';
import { payoutBody, payoutMerchants } from '../../support/payout.js';
import { ManualClock } from '../../../src/core/kernel/clock.js';

let redis: RedisServer;
const gateways: TestGateway[] = [];
const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
/** each sample payout takes 1020.00 USD (1000.00 plus the payer's 20.00 fee): the balance covers exactly 10 */
const OPENING = 10 * 102_000;

beforeAll(async () => {
  redis = await startRedis('payout-concurrency');
  // two gateway processes over the same Redis, as in production behind a load balancer
  for (const name of ['payout-concurrency-a', 'payout-concurrency-b']) {
    gateways.push(makeGateway({ name, redisUrl: redis.url, clock, merchants: payoutMerchants({ USD: OPENING }) }));
  }
});
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await redis?.stop();
});

describe('when 20 payouts race for a deposit balance that covers 10 (real Redis)', () => {
  it('then exactly 10 are accepted, 10 refused, and the balance ends at zero', async () => {
    const bodies = Array.from({ length: 20 }, () => payoutBody());
    const answers = await Promise.all(
      bodies.map((b, i) =>
        request(gateways[i % 2]!.app)
          .post('/v1/payout')
          .send(JSON.stringify(b)),
      ),
    );
    const accepted = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 422);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(10);
    for (const r of accepted) expect(r.body.status).toBe('PENDING');
    for (const r of refused) expect(r.body.code).toBe('INSUFFICIENT_BALANCE');
    const balance = await gateways[0]!.deps.store.getBalance(MERCHANT_ID, ACCOUNT_ID, 'USD');
    expect(balance?.available).toBe(0);
    const stored = await redis.client().keys(`gw:{${MERCHANT_ID}}:payout:*`);
    expect(stored).toHaveLength(10);
  });
});

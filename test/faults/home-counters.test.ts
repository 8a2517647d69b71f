import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { readDayCounters, type DayFigures } from '../../src/core/records/day-figures-record.js';
import { PaymentStatus } from '../../src/core/records/payment.js';
import { redisWorld } from '../support/redis-world.js';
import { ACCOUNT_ID, MERCHANT_ID, authoriseBody, type TestGateway } from '../support/gateway.js';
import { jobOf } from '../support/jobs.js';
import { faultyStore, instrumented, StoreTimeout } from '../support/faults.js';
import { KvGatewayStore } from '../../src/store/gateway-store.js';
import { RedisKv, connectRedis } from '../../src/store/redis-kv.js';
import type { KvStore } from '../../src/store/kv.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { CARDS } from '../support/cards.js';

/**
 * The portal home's day counters (docs/portal.md#home) move in the commit that moves the payment: a commit
 * applied whose answer was lost, one retried after it failed unapplied, a recovery, a replayed request, a
 * refund sent twice and the dispute steps run twice each count once.
 */
const world = redisWorld('faults-home-counters');
const DAY_KEY = '20261121';

async function figures(gw: TestGateway, currency = 'USD'): Promise<Partial<DayFigures>> {
  const [raw] = await gw.deps.store.dayCounters(MERCHANT_ID, [DAY_KEY]);
  const row = readDayCounters(raw!).get(`${ACCOUNT_ID}|${currency}`);
  // only the figures that moved, so an expectation names what it means
  return Object.fromEntries(Object.entries(row ?? {}).filter(([, n]) => n !== 0));
}

const authoriseOnce = (gw: TestGateway, body: Record<string, unknown>) =>
  request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));

describe('when the commits that move the home’s figures fail, repeat or are replayed', () => {
  it('then an outcome whose commit was applied but unanswered, and a refund retried after an unapplied commit, count once', async () => {
    const faulty = faultyStore(world.redis.url);
    const gw = world.gateway('home-counters-faults', new ManualClock(), { store: faulty.store });
    // the approval's commit lands, its answer is lost: the flow reads it back
    faulty.fail({
      mode: 'after',
      times: 1,
      when: (c) => (c.payments ?? []).some((p) => p.expected > 0 && p.next.status === PaymentStatus.AUTHORISED),
    });
    const paid = await pay(gw.app, { amount: '20.00' });
    expect(paid.order_status).toBe('1');
    await postBatch(gw.app, 'capture', [ref(paid)]);
    // the refund's commit fails before it is applied; the same change is committed again
    faulty.fail({ mode: 'before', times: 1, when: (c) => (c.payments ?? []).some((p) => p.next.refunds.length > 0 && !p.next.claim) });
    const refund = ref(paid, { refund_amount: '5.00', refund_reason: 'returned' });
    const first = (await postBatch(gw.app, 'refund', [refund])).body.refund_orders[0];
    expect(first, JSON.stringify(first)).toMatchObject({ refund_status: '1' });
    expect(faulty.failures()).toBe(2);
    // the same refund sent again is refused as a duplicate (V3005) and counts nothing
    const again = (await postBatch(gw.app, 'refund', [refund])).body.refund_orders[0];
    expect(again).toMatchObject({ refund_status: '0', refund_message: expect.stringMatching(/^V3005/) });
    expect(await figures(gw)).toEqual({ payments: 1, approved: 1, volume: 2000, refunds: 1, refunded: 500 });
  });

  it('then a commit that failed in the key-value store, unapplied, and is sent again whole counts once', async () => {
    const kv = new RedisKv(connectRedis(world.redis.url));
    let failing = 1;
    // the gateway store has built the commit (and its counters) when the key-value store fails, applying nothing
    const flaky = new Proxy(kv, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'commit') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        return async (...args: Parameters<KvStore['commit']>) => {
          if (failing > 0 && args[1].some((w) => w.op === 'tally' && w.fields.some((f) => f.endsWith('|refunds')))) {
            failing--;
            throw new StoreTimeout();
          }
          return target.commit(...args);
        };
      },
    });
    const gw = world.gateway('home-counters-kv', new ManualClock(), { store: new KvGatewayStore(flaky) });
    const paid = await pay(gw.app, { amount: '8.00' });
    await postBatch(gw.app, 'capture', [ref(paid)]);
    const refund = (await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '3.00', refund_reason: 'late' })])).body.refund_orders[0];
    expect(refund).toMatchObject({ refund_status: '1' });
    expect(failing).toBe(0);
    expect(await figures(gw)).toEqual({ payments: 1, approved: 1, volume: 800, refunds: 1, refunded: 300 });
  });

  it('then a payment settled by recovery, and its request replayed, count once', async () => {
    const clock = new ManualClock();
    let down = false;
    const connector = instrumented({ throwAfterActing: new Set(), statusDown: () => down });
    const gw = world.gateway('home-counters-recovery', clock, { wrapConnector: connector.wrap });
    down = true;
    connector.faults.throwAfterActing!.add('authorise');
    const body = authoriseBody({ amount: '12.00', items: undefined, item_total: undefined });
    await authoriseOnce(gw, body);
    expect(await figures(gw)).toEqual({ payments: 1 });
    down = false;
    connector.faults.throwAfterActing!.clear();
    clock.advance(gw.deps.pendingResolveMs + 1_000);
    await jobOf(gw, 'pending-resolve').runOnce();
    await jobOf(gw, 'pending-resolve').runOnce();
    expect((await authoriseOnce(gw, body)).text).toContain('<order_status>1</order_status>');
    expect(await figures(gw)).toEqual({ payments: 1, approved: 1, volume: 1200 });
  });

  it('then a commit sent again after it was applied, and the dispute steps run twice, count once', async () => {
    const gw = world.gateway('home-counters-replay', new ManualClock());
    const paid = await pay(gw.app, { card: CARDS.disputeFraud, amount: '30.00' });
    const stored = (await gw.deps.store.getPayment(MERCHANT_ID, paid.transaction_id))!;
    const change = { merchantId: MERCHANT_ID, payments: [{ next: { ...stored, note: 'replayed' }, expected: stored.version }] };
    expect(await gw.deps.store.commit(change)).toBe(true);
    expect(await gw.deps.store.commit(change)).toBe(false);
    await postBatch(gw.app, 'capture', [ref(paid)]);
    await jobOf(gw, 'dispute-steps').runOnce();
    await jobOf(gw, 'dispute-steps').runOnce();
    expect(await figures(gw)).toEqual({ payments: 1, approved: 1, volume: 3000, disputes: 1, disputed: 3000 });
  });
});

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { MERCHANT_ID, ACCOUNT_ID } from '../support/gateway.js';
import { authorise, dailyPlan, jobOf } from '../support/jobs.js';
import { faultyStore, instrumented } from '../support/faults.js';

const world = redisWorld('faults-subscription');
const HOUR = 3_600_000;

describe('scenario 5: a subscription charge whose outcome commit fails', () => {
  it('when the commit throws after the acquirer approved, then after the lease the charge is recorded from the acquirer, not authorised again', async () => {
    const clock = new ManualClock();
    const faulty = faultyStore(world.redis.url);
    const connector = instrumented();
    const gw = world.gateway('fault-charge-commit', clock, { store: faulty.store, wrapConnector: connector.wrap });
    const answer = await authorise(gw, { notify_url: 'https://merchant.example/notify', subscription: dailyPlan() });
    const rid = answer.recurring_id!;
    expect(connector.calls.authorise).toBe(1);
    const scheduler = jobOf(gw, 'subscription-charges');
    // the commit that records the second charge's outcome fails, and the store stays down past its retries
    faulty.fail({
      when: (c) => (c.payments ?? []).some((p) => p.next.source === 'recurring' && p.next.status !== '1000'),
      mode: 'before',
      times: 10,
    });
    for (let h = 0; h < 48; h++) {
      clock.advance(HOUR);
      await scheduler.runOnce().catch(() => undefined);
    }
    const charge = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${rid}-2`);
    expect(charge).toMatchObject({ status: '3000', amount: 2500 });
    expect(charge!.claim).toBeUndefined();
    expect(faulty.failures()).toBeGreaterThan(0);
    // the first payment and the second charge, each asked of the acquirer once
    expect(connector.calls.authorise).toBe(2);
    const contract = await gw.deps.store.getContract(MERCHANT_ID, rid);
    expect(contract).toMatchObject({ charges_made: 2, status: 'Completed' });
  });
});

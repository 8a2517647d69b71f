import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { MERCHANT_ID } from '../support/gateway.js';
import { jobOf } from '../support/jobs.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { instrumented } from '../support/faults.js';

const world = redisWorld('faults-review');
const DAY = 86_400_000;

describe('scenario 6: payments held for review', () => {
  it('when nobody reviews a held payment, then it expires at the end of the authorisation window and is voided at the acquirer', async () => {
    const clock = new ManualClock();
    const connector = instrumented();
    const gw = world.gateway('fault-held-expiry', clock, { wrapConnector: connector.wrap });
    const p = await pay(gw.app, { shopper_email: 'held+review@example.com' });
    expect(p.order_status).toBe('2');
    clock.advance(7 * DAY + 1000);
    expect(await jobOf(gw, 'auth-expiry').runOnce()).toBe(1);
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.status).toBe('4400');
    expect(connector.calls.void).toBe(1);
  });

  it('when a held payment is approved after the acquirer dropped its authorisation, then the approval is refused, not a fresh window', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('fault-held-late-approval', clock);
    const p = await pay(gw.app, { shopper_email: 'late+review@example.com' });
    clock.advance(8 * DAY);
    const res = await postBatch(gw.app, 'review', [ref(p, { review_flag: '1' })]);
    expect(res.body.review_orders[0]).toMatchObject({ review_status: '0', error_message: expect.stringMatching(/^V2003:/) });
    expect((await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id))!.status).not.toBe('3000');
  });
});

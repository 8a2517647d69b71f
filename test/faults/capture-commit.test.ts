import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { MERCHANT_ID, ACCOUNT_ID, type TestGateway } from '../support/gateway.js';
import { jobOf } from '../support/jobs.js';
import { pay, postBatch, ref } from '../support/operations.js';
import { faultyStore, instrumented } from '../support/faults.js';

const world = redisWorld('faults-capture');
const MINUTE = 60_000;

const captureNotices = async (gw: TestGateway, orderNo: string) =>
  (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, orderNo, 10)).filter((n) => n.notify_type === 'capture').length;

/** What the sandbox acquirer recorded: how many captures it performed for this authorisation. */
async function acquirerCaptures(gw: TestGateway, transactionId: string): Promise<number> {
  const raw = await gw.deps.store.ledgerLookup(`${transactionId}-cap`);
  return raw ? 1 : 0;
}

describe('scenario 4: a capture whose outcome commit fails', () => {
  it('when the commit throws, then the order answers "being recorded", the call is a 200, and recovery records it without a second capture', async () => {
    const clock = new ManualClock();
    const faulty = faultyStore(world.redis.url);
    const connector = instrumented();
    const gw = world.gateway('fault-capture-commit', clock, { store: faulty.store, wrapConnector: connector.wrap });
    const a = await pay(gw.app, { notify_url: 'https://merchant.example/notify' });
    const b = await pay(gw.app);
    faulty.fail({
      when: (c) => (c.payments ?? []).some((p) => p.next.transaction_id === a.transaction_id && !p.next.claim && p.next.status === '3100'),
      mode: 'before',
      times: 4,
    });
    const res = await postBatch(gw.app, 'capture', [ref(a), ref(b)]);
    expect(res.status).toBe(200);
    expect(res.body.capture_orders[0]).toMatchObject({ capture_status: '0', error_message: expect.stringMatching(/^V5002:/) });
    expect(res.body.capture_orders[1]).toMatchObject({ capture_status: '1' });
    expect(connector.calls.capture).toBe(2);

    // the merchant tries again after the old 30 s claim: it waits for the claim, then sees the capture resolved
    clock.advance(2 * MINUTE);
    const again = await postBatch(gw.app, 'capture', [ref(a)]);
    expect(again.body.capture_orders[0].error_message).toMatch(/^V2001:/); // already captured, by the first call
    await jobOf(gw, 'pending-resolve').runOnce();
    expect(await gw.deps.store.getPayment(MERCHANT_ID, a.transaction_id)).toMatchObject({ status: '3100', captured: 1000 });
    expect(connector.calls.capture).toBe(2); // a's capture was asked once; its record was read, not repeated
    expect(await acquirerCaptures(gw, a.transaction_id)).toBe(1);
    expect(await captureNotices(gw, a.order_no)).toBe(1);
  });

  it('when the connector is slower than the claim, then a second capture resumes the same capture and the acquirer captures once', async () => {
    const clock = new ManualClock();
    const connector = instrumented({ delayMs: { capture: 400 } });
    const slow = world.gateway('fault-capture-slow', clock, { wrapConnector: connector.wrap });
    const other = world.gateway('fault-capture-other', clock);
    const a = await pay(slow.app, { notify_url: 'https://merchant.example/notify' });
    const first = postBatch(slow.app, 'capture', [ref(a, { amount: '6.00' })]).then((r) => r);
    while (connector.calls.capture === 0) await new Promise((r) => setTimeout(r, 5));
    clock.advance(2 * MINUTE); // the first holder's claim is stale: another process finds it
    const second = await postBatch(other.app, 'capture', [ref(a, { amount: '7.00' })]);
    expect(second.status).toBe(200);
    const firstRes = await first;
    expect(firstRes.body.capture_orders[0].capture_status).toBe('1');
    expect(second.body.capture_orders[0].capture_status).toBe('0'); // the 6.00 capture was resumed, 7.00 refused
    const p = await slow.deps.store.getPayment(MERCHANT_ID, a.transaction_id);
    expect(p).toMatchObject({ status: '3100', captured: 600 });
    expect(await acquirerCaptures(slow, a.transaction_id)).toBe(1);
    expect(await captureNotices(slow, a.order_no)).toBe(1);
  });

  it('when the store takes no commit for any order, then each order answers V5002 (its claim may have been written), never "nothing was changed", and nothing is captured', async () => {
    const clock = new ManualClock();
    const faulty = faultyStore(world.redis.url);
    const gw = world.gateway('fault-capture-down', clock, { store: faulty.store });
    const a = await pay(gw.app);
    faulty.fail({ when: () => true, mode: 'before', times: 100 });
    const res = await postBatch(gw.app, 'capture', [ref(a)]);
    expect(res.status).toBe(200);
    expect(res.body.capture_orders[0]).toMatchObject({ capture_status: '0', error_message: expect.stringMatching(/^V5002:/) });
    expect(await gw.deps.store.getPayment(MERCHANT_ID, a.transaction_id)).toMatchObject({ status: '3000', captured: 0 });
  });
});

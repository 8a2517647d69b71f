import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { MERCHANT_ID, ACCOUNT_ID, type TestGateway } from '../support/gateway.js';
import { CARDS, CHALLENGE_CODE } from '../support/cards.js';
import { authorise, jobOf } from '../support/jobs.js';
import { postBatch } from '../support/operations.js';
import { instrumented } from '../support/faults.js';

const world = redisWorld('faults-challenge');
const MINUTE = 60_000;

async function challenged(gw: TestGateway) {
  const doc = await authorise(gw, { card: CARDS.challenge, open3d: 'do3DS', notify_url: 'https://merchant.example/notify' });
  expect(doc.order_status).toBe('2');
  return {
    doc: doc as Record<string, string> & { transaction_id: string; order_no: string; currency: string; amount: string },
    path: new URL(doc.issuer_url!).pathname,
  };
}

const answer = (gw: TestGateway, path: string, code = CHALLENGE_CODE) => request(gw.app).post(path).type('form').send({ code });

const notices = async (gw: TestGateway, orderNo: string) =>
  (await gw.deps.store.outboxOfOrder(MERCHANT_ID, ACCOUNT_ID, orderNo, 10)).map((n) => [n.notify_type, n.fields.order_status ?? '']);

describe('scenario 2: a cancel in flight at the acquirer when the shopper answers the challenge', () => {
  it('when the void is under way, then the answer waits for it and the payment ends cancelled, never approved', async () => {
    const clock = new ManualClock();
    const connector = instrumented({ delayMs: { void: 300 } });
    const gw = world.gateway('fault-cancel-vs-answer', clock, { wrapConnector: connector.wrap });
    const { doc, path } = await challenged(gw);
    const cancel = postBatch(gw.app, 'cancel', [
      { transaction_id: doc.transaction_id, order_no: doc.order_no, currency: doc.currency, amount: doc.amount },
    ]).then((r) => r);
    while (connector.calls.void === 0) await new Promise((r) => setTimeout(r, 5));
    const answered = await answer(gw, path);
    expect(answered.status).toBeLessThan(500);
    expect((await cancel).body.cancel_orders[0].cancel_status).toBe('1');
    const p = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(p!.status).toBe('4100');
    expect(connector.calls.completeChallenge).toBe(0);
    expect(await notices(gw, doc.order_no)).not.toContainEqual(['threeds', '1']);
  });
});

describe('scenario 3: a late challenge answer and the challenge-expiry sweep', () => {
  it('when the acquirer approved an answer whose process then died, then the sweep records the approval, not 4300', async () => {
    const clock = new ManualClock();
    const connector = instrumented({ hangAfterActing: new Set(['completeChallenge']) });
    const dying = world.gateway('fault-answer-dies', clock, { wrapConnector: connector.wrap });
    const { doc, path } = await challenged(dying);
    void answer(dying, path).then(
      () => undefined,
      () => undefined,
    );
    while (connector.calls.completeChallenge === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    const sweeper = world.gateway('fault-answer-sweeper', clock);
    clock.advance(31 * MINUTE);
    await jobOf(sweeper, 'threeds-challenge-expiry').runOnce();
    const p = await sweeper.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(p).toMatchObject({ status: '3000', threeds: { challenge_pending: false } });
    expect(p!.claim).toBeUndefined();
    expect(await notices(sweeper, doc.order_no)).toContainEqual(['threeds', '1']);
  });

  it('when the answer is still at the acquirer as the window closes, then the sweep waits and the answer wins', async () => {
    const clock = new ManualClock();
    const connector = instrumented({ delayMs: { completeChallenge: 300 } });
    const gw = world.gateway('fault-answer-slow', clock, { wrapConnector: connector.wrap });
    const { doc, path } = await challenged(gw);
    const answering = answer(gw, path).then((r) => r);
    while (connector.calls.completeChallenge === 0) await new Promise((r) => setTimeout(r, 5));
    clock.advance(30 * MINUTE + 1000);
    await jobOf(gw, 'threeds-challenge-expiry').runOnce();
    await answering;
    const p = await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id);
    expect(p!.status).toBe('3000');
    expect(await notices(gw, doc.order_no)).not.toContainEqual(['threeds', '0']);
  });

  it('when nobody answers, then the sweep still fails the challenge (4300) with its notification', async () => {
    const clock = new ManualClock();
    const gw = world.gateway('fault-answer-none', clock);
    const { doc } = await challenged(gw);
    clock.advance(31 * MINUTE);
    await jobOf(gw, 'threeds-challenge-expiry').runOnce();
    expect((await gw.deps.store.getPayment(MERCHANT_ID, doc.transaction_id))!.status).toBe('4300');
    expect(await notices(gw, doc.order_no)).toContainEqual(['threeds', '0']);
  });
});

import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { redisWorld } from '../support/redis-world.js';
import { authoriseBody, MERCHANT_ID, ACCOUNT_ID, AUTO_ACCOUNT_ID, AUTO_SIGN_KEY } from '../support/gateway.js';
import { jobOf } from '../support/jobs.js';
import { postBatch } from '../support/operations.js';
import { faultyStore, instrumented } from '../support/faults.js';

const world = redisWorld('faults-authorise');
const xml = new XMLParser({ parseTagValue: false });
const MINUTE = 60_000;

function setup(name: string) {
  const clock = new ManualClock();
  const faulty = faultyStore(world.redis.url);
  const connector = instrumented();
  const gw = world.gateway(name, clock, { store: faulty.store, wrapConnector: connector.wrap });
  return { clock, faulty, connector, gw };
}

const post = (gw: ReturnType<typeof setup>['gw'], body: Record<string, unknown>) =>
  request(gw.app).post('/v1/authorise').set('Content-Type', 'application/x-www-form-urlencoded').send(JSON.stringify(body));

async function notifications(gw: ReturnType<typeof setup>['gw'], orderNo: string, accountId = ACCOUNT_ID) {
  return gw.deps.store.outboxOfOrder(MERCHANT_ID, accountId, orderNo, 10);
}

describe('scenario 1: the commit after an approved authorisation fails', () => {
  it('when the outcome commit throws and the store stays down, then the call answers 503 and recovery records the approval with its notification', async () => {
    const { clock, faulty, connector, gw } = setup('fault-auth-commit');
    const body = authoriseBody({ notify_url: 'https://merchant.example/notify' });
    // every commit that records an outcome fails for a while: the store is down right after the acquirer answered
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected > 0 && !p.next.claim), mode: 'before', times: 4 });
    const first = await post(gw, body);
    expect(first.status).toBe(503);
    expect(connector.calls.authorise).toBe(1);
    const stuck = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    expect(stuck).toMatchObject({ status: '1000', claim: { op: 'authorise' } });
    // the payment is stored: the answer says its outcome is not known yet, never that nothing was written
    expect(xml.parse(first.text).respon.result_info).toMatch(/^OUTCOME_UNKNOWN:/);

    clock.advance(2 * MINUTE);
    expect(await jobOf(gw, 'pending-resolve').runOnce()).toBe(1);
    const resolved = await gw.deps.store.getPayment(MERCHANT_ID, stuck!.transaction_id);
    expect(resolved).toMatchObject({ status: '3000' });
    expect(resolved!.claim).toBeUndefined();
    expect(connector.calls.authorise).toBe(1); // asked for its record, not charged again
    const sent = await notifications(gw, String(body.order_no));
    expect(sent.map((n) => [n.notify_type, n.fields.order_status])).toEqual([['payment', '1']]);

    // the merchant's resend now answers the recorded approval, and /v1/cancel works on it
    const again = await post(gw, body);
    expect(xml.parse(again.text).respon).toMatchObject({ order_status: '1', transaction_id: stuck!.transaction_id });
    const cancel = await postBatch(gw.app, 'cancel', [
      { transaction_id: stuck!.transaction_id, order_no: body.order_no, currency: 'USD', amount: '10.00' },
    ]);
    expect(cancel.body.cancel_orders[0].cancel_status).toBe('1');
  });

  it('when the store refuses the outcome commit (out of memory) after the claim was written, then the answer is OUTCOME_UNKNOWN, not STORE_UNAVAILABLE', async () => {
    const { faulty, gw } = setup('fault-auth-commit-refused');
    const body = authoriseBody();
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected > 0 && !p.next.claim), mode: 'before', times: 4, refused: true });
    const first = await post(gw, body);
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBeDefined();
    expect(xml.parse(first.text).respon.result_info).toMatch(/^OUTCOME_UNKNOWN:/);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no))).toMatchObject({ status: '1000' });
  });

  it('when the store refuses the claim commit (out of memory), then the answer is STORE_UNAVAILABLE and nothing is stored', async () => {
    const { faulty, connector, gw } = setup('fault-auth-claim-refused');
    const body = authoriseBody();
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected === 0), mode: 'before', times: 4, refused: true });
    const first = await post(gw, body);
    expect(first.status).toBe(503);
    expect(xml.parse(first.text).respon.result_info).toMatch(/^STORE_UNAVAILABLE:/);
    expect(connector.calls.authorise).toBe(0);
    expect(await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no))).toBeUndefined();
  });

  it('when the claim commit gets no answer each time (it may have been applied), then the answer is OUTCOME_UNKNOWN and the same order sent again gets its outcome', async () => {
    const { faulty, gw } = setup('fault-auth-claim-lost');
    const body = authoriseBody();
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected === 0), mode: 'before', times: 4 });
    const first = await post(gw, body);
    expect(first.status).toBe(503);
    expect(xml.parse(first.text).respon.result_info).toMatch(/^OUTCOME_UNKNOWN:/);
    const again = await post(gw, body);
    expect(xml.parse(again.text).respon).toMatchObject({ order_status: '1' });
  });

  it('when capture_mode is auto and the outcome commit throws, then the shopper is told: recovery records 3100 and notifies', async () => {
    const { clock, faulty, gw } = setup('fault-auth-commit-auto');
    const body = authoriseBody({ account_id: AUTO_ACCOUNT_ID, notify_url: 'https://merchant.example/notify' }, AUTO_SIGN_KEY);
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected > 0), mode: 'before', times: 4 });
    expect((await post(gw, body)).status).toBe(503);
    clock.advance(2 * MINUTE);
    await jobOf(gw, 'pending-resolve').runOnce();
    const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, AUTO_ACCOUNT_ID, String(body.order_no));
    expect(p).toMatchObject({ status: '3100', captured: 1000 });
    expect((await notifications(gw, String(body.order_no), AUTO_ACCOUNT_ID)).length).toBe(1);
  });

  it('when the store flaps right after the outcome commit, then the approval is still counted, once', async () => {
    const { faulty, gw } = setup('fault-auth-counters');
    const body = authoriseBody();
    // the counters used to be a second store call after the commit, and it failing lost the count for good;
    // now the outcome commit carries them: its answer lost (applied, then a timeout) still counts once
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected > 0 && !p.next.claim), mode: 'after', times: 1 });
    const res = await post(gw, body);
    expect(xml.parse(res.text).respon.order_status).toBe('1');
    const counts = await gw.deps.store.authorisationCounts(MERCHANT_ID, ACCOUNT_ID);
    expect(counts.get('card')).toEqual({ tried: 1, approved: 1 });
  });

  it('when the create commit is applied but its answer is lost, then the payment goes on to its outcome instead of wedging', async () => {
    const { faulty, connector, gw } = setup('fault-auth-create-lost');
    const body = authoriseBody();
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected === 0), mode: 'after', times: 1 });
    const res = await post(gw, body);
    expect(res.status).toBe(200);
    expect(xml.parse(res.text).respon.order_status).toBe('1');
    expect(connector.calls.authorise).toBe(1);
    const p = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no));
    expect(p).toMatchObject({ status: '3000' });
  });

  it('when the outcome commit is applied but its answer is lost, then the call answers the recorded outcome once', async () => {
    const { faulty, gw } = setup('fault-auth-settle-lost');
    const body = authoriseBody({ notify_url: 'https://merchant.example/notify' });
    faulty.fail({ when: (c) => (c.payments ?? []).some((p) => p.expected > 0), mode: 'after', times: 1 });
    const res = await post(gw, body);
    expect(res.status).toBe(200);
    expect(xml.parse(res.text).respon.order_status).toBe('1');
    expect((await notifications(gw, String(body.order_no))).length).toBe(1);
  });

  it("when a process dies between the acquirer and the commit, then a resend after the window answers the acquirer's outcome", async () => {
    const clock = new ManualClock();
    const connector = instrumented({ hangAfterActing: new Set(['authorise']) });
    const dying = world.gateway('fault-auth-dies', clock, { wrapConnector: connector.wrap });
    const body = authoriseBody();
    void post(dying, body).then(
      () => undefined,
      () => undefined,
    );
    let p;
    for (let i = 0; i < 100 && !(p = await dying.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, String(body.order_no))); i++)
      await new Promise((r) => setTimeout(r, 10));
    while (connector.calls.authorise === 0) await new Promise((r) => setTimeout(r, 10));
    const survivor = world.gateway('fault-auth-survivor', clock);
    clock.advance(2 * MINUTE);
    const res = await post(survivor, body);
    expect(res.status).toBe(200);
    expect(xml.parse(res.text).respon).toMatchObject({ order_status: '1', transaction_id: p!.transaction_id });
  });
});

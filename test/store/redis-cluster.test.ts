import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { startRedisCluster, type RedisCluster } from '../support/redis.js';
import { ACCOUNT_ID, authoriseBody, makeGateway, MERCHANT_ID, testMerchants, type TestGateway } from '../support/gateway.js';
import { postBatch, postQuery, ref } from '../support/operations.js';
import { jobOf } from '../support/jobs.js';
import { FIELDS, signBody } from '../support/sign.js';

const xml = new XMLParser({ parseTagValue: false });
const OTHER_MERCHANT = '2000002';
const OTHER_ACCOUNT = '2000002001';
const OTHER_KEY = 'other-sign-key-0002';

let cluster: RedisCluster;
let gw: TestGateway;
const clock = new ManualClock();

beforeAll(async () => {
  cluster = await startRedisCluster('cluster');
  const merchants = testMerchants();
  merchants.merchants.push({
    merchant_id: OTHER_MERCHANT,
    name: 'Other Shop',
    accounts: [{ account_id: OTHER_ACCOUNT, sign_key: OTHER_KEY }],
  } as never);
  gw = makeGateway({ name: 'redis-cluster', redisUrl: cluster.url, merchants, clock });
}, 90_000);
afterAll(async () => {
  await gw?.close();
  await cluster?.stop();
});

async function authorise(body: Record<string, unknown>) {
  const res = await request(gw.app).post('/v1/authorise').send(JSON.stringify(body));
  expect(res.status).toBe(200);
  return xml.parse(res.text).respon as { [field: string]: string; transaction_id: string; order_no: string; recurring_id: string };
}

describe('the gateway on a real three-node Redis Cluster (REDIS_URL=redis+cluster://…)', () => {
  it('when the two merchants hash to different slots, then each one keeps all its keys in one slot', async () => {
    const node = cluster.nodes[0]!.client();
    const slots = await Promise.all([MERCHANT_ID, OTHER_MERCHANT].map((m) => node.cluster('KEYSLOT', `gw:{${m}}:pay:x`)));
    expect(slots[0]).not.toBe(slots[1]);
    expect(await node.cluster('KEYSLOT', `gw:{${MERCHANT_ID}}:order:${ACCOUNT_ID}:abc`)).toBe(slots[0]);
  });

  it('when payments, tokens and subscriptions are made for both merchants, then every multi-key step commits', async () => {
    const a = await authorise(
      authoriseBody({
        token_flag: 'YES',
        notify_url: 'https://merchant.example/notify',
        subscription: { contract_name: 'Gold', contract_amount: '5.00', interval: 'day', interval_count: '1', billing_cycle: 2 },
      }),
    );
    expect(a).toMatchObject({ order_status: '1', result_info: '0000:Success' });
    expect(a.token_id).toMatch(/^tok_/);
    expect(a.recurring_id).toMatch(/^RC/);
    const other = await authorise(authoriseBody({ merchant_id: OTHER_MERCHANT, account_id: OTHER_ACCOUNT, currency: 'EUR' }, OTHER_KEY));
    expect(other.order_status).toBe('1');
    const tokenPay = await authorise(
      authoriseBody({
        token_id: a.token_id,
        card: undefined,
        expiration_month: undefined,
        expiration_year: undefined,
        security_code: undefined,
      }),
    );
    expect(tokenPay).toMatchObject({ order_status: '1', card: a.card });
  });

  it('when a payment is captured, refunded and queried, then the follow-up calls work across the cluster', async () => {
    const paid = await authorise(authoriseBody());
    const p = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '10.00', order_status: '1' };
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
    const refund = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '4.00', refund_reason: 'partial' })]);
    expect(refund.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: `${p.transaction_id}-01` });
    const query = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: p.transaction_id });
    expect(query.body.orders_list[0]).toMatchObject({ payment_status: '3200', query_result: '1' });
    const refunds = await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: p.transaction_id });
    expect(refunds.body.refund_orders).toHaveLength(1);
  });

  it("when a payment is authorised and captured, then the sandbox acquirer's records of it sit in its merchant's slot, beside it", async () => {
    const paid = await authorise(authoriseBody());
    const p = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '10.00', order_status: '1' };
    expect((await postBatch(gw.app, 'capture', [ref(p)])).body.capture_orders[0].capture_status).toBe('1');
    const node = cluster.nodes[0]!.client();
    const slot = await node.cluster('KEYSLOT', `gw:{${MERCHANT_ID}}:pay:${paid.transaction_id}`);
    const records = [`acq:{${MERCHANT_ID}}:${paid.transaction_id}`, `acq:{${MERCHANT_ID}}:${paid.transaction_id}-cap`];
    for (const key of records) {
      expect(await node.cluster('KEYSLOT', key)).toBe(slot);
      expect(JSON.parse((await gw.deps.store.ledgerOf!(MERCHANT_ID).ledgerLookup(key.slice(key.lastIndexOf(':') + 1)))!)).toMatchObject({
        amount: 1000,
      });
    }
    // and nothing of the payment under the reference alone (its own slot)
    expect(await gw.deps.store.ledgerLookup(paid.transaction_id)).toBeUndefined();
  });

  it('when the subscription falls due, then the scheduler charges it through the cluster', async () => {
    const body = authoriseBody({
      subscription: {
        contract_name: 'Daily',
        contract_amount: '3.00',
        interval: 'day',
        interval_count: '1',
        billing_cycle: 2,
        promotion_cycle: 1,
      },
    });
    const first = await authorise(body);
    clock.advance(24 * 3_600_000 + 60_000);
    const scheduler = jobOf(gw, 'subscription-charges');
    await scheduler.runOnce();
    await scheduler.runOnce();
    const charge = await gw.deps.store.findPaymentByOrder(MERCHANT_ID, ACCOUNT_ID, `${first.recurring_id}-2`);
    expect(charge).toMatchObject({ status: '3000', amount: 300, source: 'recurring' });
    expect(await gw.deps.store.getContract(MERCHANT_ID, first.recurring_id!)).toMatchObject({ status: 'Completed', charges_made: 2 });
  });

  it('when a subscription is cancelled, then the cancel is signed and stored', async () => {
    const paid = await authorise(
      authoriseBody({
        subscription: { contract_name: 'Weekly', contract_amount: '2.00', interval: 'week', interval_count: '1', billing_cycle: 4 },
      }),
    );
    const cancel = signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, recurring_id: paid.recurring_id, contract_name: 'Weekly' },
      FIELDS.cancelsubscription,
      'test-sign-key-0001',
    );
    const res = await request(gw.app).post('/v1/cancelsubscription').set('Content-Type', 'application/xml').send(JSON.stringify(cancel));
    expect(res.body).toMatchObject({ cancel_status: '1' });
    expect(await gw.deps.store.getContract(MERCHANT_ID, paid.recurring_id!)).toMatchObject({ status: 'Inactived' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startRedis, type RedisServer } from '../../support/redis.js';
import { ACCOUNT_ID, MERCHANT_ID, makeGateway, testMerchants, type TestGateway } from '../../support/gateway.js';
import { pay, postBatch, postQuery, ref, batchSignature } from '../../support/operations.js';
import { FIELDS, signBody } from '../../support/sign.js';
import type { MerchantsFile } from '../../../src/core/records/directory.js';
import { luhnNumber } from '../../support/cards.js';

const OFFICE_ACCOUNT = '1000001003';
const OFFICE_KEY = 'test-sign-key-0003';

/** the test merchants plus an account that lets only an office network query */
function merchants(): MerchantsFile {
  const file = testMerchants() as unknown as { merchants: { accounts: Record<string, unknown>[] }[] };
  file.merchants[0]!.accounts.push({ account_id: OFFICE_ACCOUNT, sign_key: OFFICE_KEY, allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
  return file as unknown as MerchantsFile;
}

let redis: RedisServer;
let gw: TestGateway;
let proxied: TestGateway;

beforeAll(async () => {
  redis = await startRedis('retrieval');
  gw = makeGateway({ name: 'retrieval', redisUrl: redis.url, merchants: merchants(), env: { GATEWAY_TIMEZONE: 'Asia/Shanghai' } });
  proxied = makeGateway({ name: 'retrieval-proxied', redisUrl: redis.url, merchants: merchants(), env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await gw?.close();
  await proxied?.close();
  await redis?.stop();
});

describe('POST /v1/retrievalTrans', () => {
  it('when orders are named by order_no and transaction_id, then each known order is listed once with its status', async () => {
    const a = await pay(gw.app, { open3d: 'do3DS' });
    const b = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(b)]);
    const res = await postQuery(gw.app, '/v1/retrievalTrans', {
      order_no: `${a.order_no},NO-SUCH-ORDER`,
      transaction_id: `${a.transaction_id},${b.transaction_id}`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      merchant_id: MERCHANT_ID,
      account_id: ACCOUNT_ID,
      return_status: '1',
      return_message: 'OK',
      is3ds: '1',
    });
    expect(res.body.encryption_data).toBe(batchSignature(res.body));
    const list = res.body.orders_list;
    expect(list).toHaveLength(3);
    expect(list[0]).toMatchObject({
      order_no: a.order_no,
      transaction_id: a.transaction_id,
      reference_no: a.transaction_id,
      amount: '10.00',
      currency: 'USD',
      payment_status: '3000',
      query_result: '1',
      website: 'https://shop.example',
    });
    expect(list[0].transaction_date).toMatch(/^\d{14}$/);
    expect(list[1]).toMatchObject({ order_no: 'NO-SUCH-ORDER', query_result: '0' });
    expect(list[2]).toMatchObject({ transaction_id: b.transaction_id, payment_status: '3100', query_result: '1' });
    expect(typeof res.body.antifraud_provider).toBe('string');
    expect(res.body.fraud_check_result.length).toBeGreaterThan(0);
    for (const c of res.body.fraud_check_result) expect(Object.keys(c).sort()).toEqual(['check_items', 'status']);
  });

  it('when the gateway runs in another time zone, then transaction_date is written in it', async () => {
    const p = await pay(gw.app);
    const stored = await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id);
    const res = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: p.transaction_id });
    const shanghai = new Date(stored!.created_at + 8 * 3_600_000).toISOString().replace(/\D/g, '').slice(0, 14);
    expect(res.body.orders_list[0].transaction_date).toBe(shanghai);
  });

  it('when orders are named as a JSON array in a JSON body, then they are found', async () => {
    const p = await pay(gw.app);
    const body = signBody(
      { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, transaction_id: [p.transaction_id] },
      FIELDS.retrieval,
      'test-sign-key-0001',
    );
    const res = await request(gw.app).post('/v1/retrievalTrans').send(JSON.stringify(body)).set('Content-Type', 'application/json');
    expect(res.body.orders_list[0]).toMatchObject({ transaction_id: p.transaction_id, query_result: '1' });
  });

  it('when more than 100 orders are named, then the call is refused with 400 (naming none asks for the newest payments)', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `O${i}`).join(',');
    const res = await postQuery(gw.app, '/v1/retrievalTrans', { order_no: many });
    expect(res.status).toBe(400);
    expect(res.body.return_status).toBe('0');
  });

  it('when the caller address is not registered, then it is refused with 403 and nothing is disclosed', async () => {
    const p = await pay(gw.app);
    const res = await postQuery(gw.app, '/v1/retrievalTrans', { transaction_id: p.transaction_id }, OFFICE_ACCOUNT, OFFICE_KEY);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('IP_NOT_ALLOWED');
    expect(res.text).not.toContain(p.transaction_id);
    expect(res.body.orders_list).toBeUndefined();
  });

  it('when X-Forwarded-For names an allowed address, then it is believed only with TRUST_PROXY', async () => {
    const send = (app: typeof gw.app) =>
      request(app)
        .post('/v1/retrievalTrans')
        .set('X-Forwarded-For', '10.1.2.3')
        .type('form')
        .send(
          new URLSearchParams(
            signBody({ merchant_id: MERCHANT_ID, account_id: OFFICE_ACCOUNT, order_no: 'X' }, FIELDS.retrieval, OFFICE_KEY),
          ).toString(),
        );
    expect((await send(gw.app)).status).toBe(403);
    const trusted = await send(proxied.app);
    expect(trusted.status).toBe(200);
    expect(trusted.body.orders_list[0]).toMatchObject({ order_no: 'X', query_result: '0' });
  });

  it('when the signature is wrong, then the call is refused with 401 before the address is looked at', async () => {
    const body = { merchant_id: MERCHANT_ID, account_id: OFFICE_ACCOUNT, order_no: 'X', encryption_data: 'ab'.repeat(32) };
    const res = await request(gw.app).post('/v1/retrievalTrans').type('form').send(new URLSearchParams(body).toString());
    expect(res.status).toBe(401);
  });

  it('when a subscription charge stored before recurring ids kept digit runs apart is named by its order_no, then it is found as stored', async () => {
    // such a charge's order_no holds a Luhn-valid 14-digit stamp; query lists are names, not free text, so
    // the order_no the merchant was notified of finds it (by transaction_id it was always found)
    const made = await pay(gw.app);
    const p = (await gw.deps.store.getPayment(MERCHANT_ID, made.transaction_id))!;
    const charge = {
      ...p,
      version: 0,
      transaction_id: `${made.transaction_id.slice(0, 14)}LUHNRUN1`,
      order_no: 'RC20261123065504ABCDEF-2',
    };
    expect(await gw.deps.store.commit({ merchantId: MERCHANT_ID, payments: [{ next: charge, expected: 0 }] })).toBe(true);
    for (const order_no of ['RC20261123065504ABCDEF-2', JSON.stringify(['RC20261123065504ABCDEF-2'])]) {
      const res = await postQuery(gw.app, '/v1/retrievalTrans', { order_no });
      expect(res.body.orders_list).toEqual([
        expect.objectContaining({ order_no: 'RC20261123065504ABCDEF-2', transaction_id: charge.transaction_id, query_result: '1' }),
      ]);
    }
  });
});

describe('orders numbered like card numbers (masked, docs/security.md)', () => {
  it('when a merchant names such an order by the order_no it sent, then retrievalTrans and retrievalRefund find it', async () => {
    // a 16-digit order number under a card issuer's prefix (4) that passes the Luhn check: card-shaped
    const orderNo = luhnNumber(`4026${String(Math.floor(Math.random() * 1e11)).padStart(11, '0')}`);
    const paid = await pay(gw.app, { order_no: orderNo });
    expect(paid.order_no).toBe(`${orderNo.slice(0, 6)}***${orderNo.slice(-4)}`);
    // a batch names the order by the number the merchant keeps (masked as it is read, as it was stored)
    const captured = await postBatch(gw.app, 'capture', [ref(paid, { order_no: orderNo })]);
    expect(JSON.stringify(captured.body)).toContain('"capture_status":"1"');
    await postBatch(gw.app, 'refund', [ref(paid, { refund_amount: '1.00' })]);
    for (const sent of [orderNo, paid.order_no, JSON.stringify([orderNo])]) {
      const trans = await postQuery(gw.app, '/v1/retrievalTrans', { order_no: sent });
      expect(trans.body.orders_list).toEqual([
        expect.objectContaining({ order_no: paid.order_no, transaction_id: paid.transaction_id, query_result: '1' }),
      ]);
      const refunds = await postQuery(gw.app, '/v1/retrievalRefund', { order_no: sent });
      expect(refunds.body.refund_orders).toEqual([expect.objectContaining({ transaction_id: paid.transaction_id })]);
    }
  });
});

describe('POST /v1/retrievalRefund', () => {
  it('when refunds are searched by transaction, order or reference id, then their records come newest first', async () => {
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00', refund_reason: 'first' })]);
    await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '2.00', refund_reason: 'second' })]);
    const byTxn = await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: p.transaction_id });
    expect(byTxn.status).toBe(200);
    expect(byTxn.body).toMatchObject({ return_status: '1', return_message: 'OK', has_more: '0' });
    expect(byTxn.body.encryption_data).toBe(batchSignature(byTxn.body));
    const ids = byTxn.body.refund_orders.map((r: { refund_reference_id: string }) => r.refund_reference_id).sort();
    expect(ids).toEqual([`${p.transaction_id}-01`, `${p.transaction_id}-02`]);
    const first = byTxn.body.refund_orders.find((r: { refund_reference_id: string }) => r.refund_reference_id.endsWith('-01'));
    expect(first).toMatchObject({
      transaction_id: p.transaction_id,
      order_no: p.order_no,
      amount: '10.00',
      currency: 'USD',
      refund_amount: '1.00',
      refund_reason: 'first',
      refund_status: '1',
      payment_status: '3200',
    });
    expect(first.refund_date).toMatch(/^\d{14}$/);
    expect(first.refund_processing_date).toMatch(/^\d{14}$/);
    const byOrder = await postQuery(gw.app, '/v1/retrievalRefund', { order_no: p.order_no });
    expect(byOrder.body.refund_orders).toHaveLength(2);
    const byRef = await postQuery(gw.app, '/v1/retrievalRefund', { refund_reference_id: `${p.transaction_id}-02` });
    expect(byRef.body.refund_orders).toHaveLength(1);
    expect(byRef.body.refund_orders[0]).toMatchObject({ refund_amount: '2.00', refund_reason: 'second' });
  });

  it('when more than 100 refunds fall in a date range, then 100 come back newest first with has_more 1', async () => {
    const a = await pay(proxied.app, { amount: '100.00' });
    const b = await pay(proxied.app, { amount: '100.00' });
    await postBatch(proxied.app, 'capture', [ref(a), ref(b)]);
    // each its own reason: identical refunds within refund_duplicate_seconds are duplicates (docs/api.md#errors-and-idempotency)
    let sent = 0;
    const cents = (p: typeof a, n: number) =>
      Array.from({ length: n }, () => ref(p, { refund_amount: '0.01', refund_reason: `cent ${sent++}` }));
    for (const orders of [cents(a, 50), cents(a, 49), cents(b, 2)]) {
      const res = await postBatch(proxied.app, 'refund', orders);
      expect(res.body.refund_orders.every((o: { refund_status: string }) => o.refund_status === '1')).toBe(true);
    }
    const res = await postQuery(proxied.app, '/v1/retrievalRefund', { start_date: '20000101000000', end_date: '20991231235959' });
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe('1');
    expect(res.body.refund_orders).toHaveLength(100);
    const dates: string[] = res.body.refund_orders.map((r: { refund_date: string }) => r.refund_date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const old = await postQuery(proxied.app, '/v1/retrievalRefund', { start_date: '20000101000000', end_date: '20001231235959' });
    expect(old.body).toMatchObject({ refund_orders: [], has_more: '0' });
  });

  it('when no criterion is given (docs/api.md), then the newest refunds of the account come', async () => {
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    const refund = await postBatch(gw.app, 'refund', [ref(p, { refund_amount: '3', refund_reason: 'newest' })]);
    const res = await postQuery(gw.app, '/v1/retrievalRefund', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ return_status: '1', return_message: 'OK' });
    expect(res.body.refund_orders[0]).toMatchObject({
      refund_reference_id: refund.body.refund_orders[0].refund_reference_id,
      refund_amount: '3.00',
    });
    const dates = res.body.refund_orders.map((r: { refund_date: string }) => r.refund_date);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('when a malformed date is given, then the call is refused with 400', async () => {
    const bad = await postQuery(gw.app, '/v1/retrievalRefund', { start_date: '20261340000000' });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('start_date');
  });

  it('when the caller address is not registered, then it is refused with 403', async () => {
    expect((await postQuery(gw.app, '/v1/retrievalRefund', { transaction_id: 'X' }, OFFICE_ACCOUNT, OFFICE_KEY)).status).toBe(403);
  });
});

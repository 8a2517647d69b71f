import { describe, expect, it } from 'vitest';
import { KvGatewayStore } from '../../../src/store/gateway-store.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import type { IdempotencyRecord } from '../../../src/core/idempotency/idempotency-key.js';
import { makeGateway, MERCHANT_ID } from '../../support/gateway.js';
import { pay, postBatch, ref } from '../../support/operations.js';

const M = '1000001';
const A = '1000001001';

describe('the refund index and idempotency records of the gateway store (embedded store)', () => {
  it('when refunds are indexed, then a date range lists them newest first per account and a reference id finds its transaction', async () => {
    const store = new KvGatewayStore(new MemoryKv());
    const entry = (id: string, txn: string, at: number, accountId = A) => ({ accountId, refundReferenceId: id, transactionId: txn, at });
    await store.commit({
      merchantId: M,
      refunds: [entry('T1-01', 'T1', 100), entry('T2-01', 'T2', 300), entry('T1-02', 'T1', 200), entry('X-01', 'X', 250, 'other')],
    });
    expect((await store.refundsByDate(M, A, -Infinity, Infinity, 10)).map((e) => e.refundReferenceId)).toEqual(['T2-01', 'T1-02', 'T1-01']);
    expect((await store.refundsByDate(M, A, 150, 250, 10)).map((e) => e.refundReferenceId)).toEqual(['T1-02']);
    expect(await store.refundsByDate(M, A, -Infinity, Infinity, 1)).toEqual([{ refundReferenceId: 'T2-01', transactionId: 'T2', at: 300 }]);
    expect(await store.findRefund(M, A, 'T1-02')).toBe('T1');
    expect(await store.findRefund(M, A, 'X-01')).toBeUndefined();
  });

  it('when an idempotency record is written, then only the holder of its version may replace or remove it', async () => {
    const store = new KvGatewayStore(new MemoryKv());
    const rec: IdempotencyRecord = { version: 0, request_hash: 'h', status: 'running', lease_until: 5, created_at: 1 };
    const write = (next: IdempotencyRecord | null, expected: number) =>
      store.commit({ merchantId: M, idempotency: [{ accountId: A, key: 'k', next, expected, ttlMs: 60_000 }] });
    expect(await write(rec, 0)).toBe(true);
    expect(await write(rec, 0)).toBe(false);
    expect(await store.getIdempotency(M, A, 'k')).toMatchObject({ version: 1, status: 'running' });
    expect(await write({ ...rec, status: 'done', answer: { status: 200, content_type: 'application/json', body: '{}' } }, 1)).toBe(true);
    expect((await store.getIdempotency(M, A, 'k'))?.answer?.body).toBe('{}');
    expect(await store.getIdempotency(M, 'other', 'k')).toBeUndefined();
    expect(await write(null, 2)).toBe(true);
    expect(await store.getIdempotency(M, A, 'k')).toBeUndefined();
  });
});

describe('when 30 refunds of 1.00 race on the embedded store', () => {
  it('then exactly 10 succeed against a captured 10.00', async () => {
    const gw = makeGateway({ name: 'operations-memory' });
    const p = await pay(gw.app);
    await postBatch(gw.app, 'capture', [ref(p)]);
    // each body differs (its reason): an identical refund body would answer the first result (docs/security.md)
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => postBatch(gw.app, 'refund', [ref(p, { refund_amount: '1.00', refund_reason: `part ${i}` })])),
    );
    expect(answers.filter((a) => a.body.refund_orders[0].refund_status === '1')).toHaveLength(10);
    expect(await gw.deps.store.getPayment(MERCHANT_ID, p.transaction_id)).toMatchObject({ status: '3300', refunded: 1000 });
  });
});
